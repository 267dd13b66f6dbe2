"""Staff see every game message in the admin, hidden ones too, and review them."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from greycircle.chat import services
from greycircle.chat.models import GameMessage
from greycircle.chat.selectors import game_messages_for
from greycircle.games.selectors import game_get
from greycircle.games.services import SeatSpec
from tests.factories import UserFactory, game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

ABUSE = "you are a piece of shit"


@pytest.fixture
def flagged(alice, bob) -> GameMessage:
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    message = services.game_message_post(user=alice, game_id=game.pk, room="players", body=ABUSE)
    assert message.hidden
    return message


def bob_reads(message: GameMessage, bob) -> list[int]:
    game = game_get(game_id=message.game_id)
    return [m.pk for m in game_messages_for(viewer=bob, game=game, room="players")]


def review(client: Client, action: str, message: GameMessage):
    return client.post(
        "/admin/chat/gamemessage/", {"action": action, "_selected_action": [message.pk]}
    )


def test_staff_see_a_hidden_message_and_showing_it_reaches_the_players(flagged, bob, admin_client):
    listed = admin_client.get("/admin/chat/gamemessage/?review=waiting")
    assert ABUSE in listed.content.decode()
    assert admin_client.get(f"/admin/chat/gamemessage/{flagged.pk}/change/").status_code == 200

    assert review(admin_client, "review_show", flagged).status_code == 302
    flagged.refresh_from_db()
    assert (flagged.hidden, flagged.reviewed_at is not None) == (False, True)
    assert bob_reads(flagged, bob) == [flagged.pk]


def test_kept_hidden_it_is_reviewed_and_still_hidden(flagged, bob, admin_client):
    review(admin_client, "review_keep_hidden", flagged)
    flagged.refresh_from_db()
    assert (flagged.hidden, flagged.reviewed_at is not None) == (True, True)
    assert bob_reads(flagged, bob) == []


def test_viewing_alone_does_not_let_staff_review(flagged, bob):
    viewer = UserFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_gamemessage"))
    client = Client()
    client.force_login(viewer)

    assert client.get("/admin/chat/gamemessage/").status_code == 200
    review(client, "review_show", flagged)
    flagged.refresh_from_db()
    assert flagged.hidden
    assert bob_reads(flagged, bob) == []
