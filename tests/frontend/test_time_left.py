"""Time per move on the site: the Play form's option, the time left in lists, the game page."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from greycircle.games.models import Game
from greycircle.games.services import SeatSpec
from tests.factories import game_started, let_anyone_invite

pytestmark = pytest.mark.django_db


def test_the_play_form_offers_the_time_per_move_for_every_kind(client, alice):
    client.force_login(alice)
    html = client.get("/play/").content.decode()

    for kind in ("circles", "kingscorner", "cirkis"):
        select = re.search(
            rf'<select name="{kind}-days_per_move".*?</select>', html, flags=re.S
        ).group(0)
        assert re.findall(r'<option value="(\d)"', select) == ["1", "3", "7"]
        assert '<option value="3" selected>3 days</option>' in select
    assert html.count(">Time per move</label>") == 3


def test_a_game_started_from_the_form_has_the_time_per_move_chosen(client, alice, bob):
    let_anyone_invite(bob)
    client.force_login(alice)
    response = client.post(
        "/play/",
        {
            "kind": "circles",
            "circles-seat_1": "user",
            "circles-username_1": "bob",
            "circles-days_per_move": "7",
        },
    )
    assert response.status_code == 302
    assert Game.objects.get().days_per_move == 7


def test_a_time_per_move_not_offered_is_a_form_error(client, alice):
    client.force_login(alice)
    response = client.post(
        "/play/", {"kind": "circles", "circles-seat_1": "ai:easy", "circles-days_per_move": "2"}
    )
    assert response.status_code == 200
    assert not Game.objects.exists()
    assert "Select a valid choice" in response.content.decode()


def row_of(html: str, game: Game) -> str:
    return re.search(
        rf'<li class="game-list__item" data-game-id="{game.pk}">.*?</ul>\s*</li>', html, re.S
    ).group(0)


def test_my_games_and_home_show_the_time_left_to_move(client, alice, bob):
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    computer = game_started(creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")])
    client.force_login(alice)

    for page in ("/games/", "/"):
        html = client.get(page).content.decode()
        row = row_of(html, game)
        assert re.search(r'class="status status--deadline"[^>]*>2 days 23 hours left</span>', row)
        assert "status--deadline" not in row_of(html, computer)

    Game.objects.filter(pk=game.pk).update(move_deadline=timezone.now() - timedelta(minutes=1))
    row = row_of(client.get("/games/").content.decode(), game)
    assert re.search(r'class="status status--deadline status--time-up"[^>]*>Time is up</span>', row)


def test_the_game_page_has_a_place_for_the_time_left_and_a_claim_button(client, alice, bob):
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    client.force_login(bob)
    html = client.get(f"/games/{game.pk}/").content.decode()
    # Both filled in and shown by the script, from the envelope (move_deadline, can_claim).
    assert '<p class="game__deadline" id="deadline" hidden></p>' in html
    assert re.search(
        r'<button class="button button--primary" id="claim" type="button" hidden>'
        r"Claim the win</button>",
        html,
    )
    assert '"can_claim": false' in html
