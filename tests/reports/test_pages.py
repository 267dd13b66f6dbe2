"""The Report buttons the pages render for js/report.js: on a player's profile and for each other
person of a game, for signed-in players (never on oneself, never for guests)."""

import re

import pytest

from accounts.friends import user_block
from greycircle.games.services import SeatSpec
from tests.factories import UserFactory, game_started

pytestmark = pytest.mark.django_db

REPORT_BUTTON = re.compile(r"<button[^>]*data-report=\"([^\"]*)\"[^>]*>")


def report_buttons(client, path):
    return REPORT_BUTTON.findall(client.get(path).content.decode())


def test_a_profile_has_a_report_button_but_ones_own(client, alice, bob):
    client.force_login(alice)

    assert report_buttons(client, "/u/bob/") == ["bob"]
    assert 'data-report-username="bob"' in client.get("/u/bob/").content.decode()
    assert report_buttons(client, "/u/alice/") == []


def test_a_player_one_blocked_may_be_reported_from_their_profile(client, alice, bob):
    user_block(blocker=alice, username="bob")
    client.force_login(alice)

    assert report_buttons(client, "/u/bob/") == ["bob"]


def test_a_guest_gets_no_report_button_on_a_profile(client, bob):
    client.force_login(UserFactory(is_guest=True))

    assert report_buttons(client, "/u/bob/") == []


@pytest.mark.usefixtures("tictactoe")
def test_the_game_page_has_a_report_button_for_each_other_person(client, alice, bob, carol):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    client.force_login(alice)
    assert report_buttons(client, f"/games/{game.pk}/") == ["bob"]
    client.force_login(carol)  # watching
    assert report_buttons(client, f"/games/{game.pk}/") == ["alice", "bob"]
    client.force_login(UserFactory(is_guest=True))
    assert report_buttons(client, f"/games/{game.pk}/") == []
