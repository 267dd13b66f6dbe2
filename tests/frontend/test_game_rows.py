"""A game in a list (frontend/includes/game_row.html, on the home page, My games, Watch and
profiles): once it is over, how it ended for the viewer, the scores and why."""

import re

import pytest

from greycircle.games import selectors, services
from greycircle.games.services import SeatSpec, game_create
from tests.factories import game_started
from tests.frontend.test_views import game_items

pytestmark = pytest.mark.django_db

WIPE_OUT = "e3d3c2f2e2f3c5d2g2"  # Circles: white (seat 0) wipes black out, 13-0, in 9 moves


def item_of(html: str, game_id: int) -> str:
    [item] = [item for item in game_items(html) if f'data-game-id="{game_id}"' in item]
    return item


def test_finished_games_show_the_result_the_score_and_why(client, alice):
    game = game_create(
        creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")], record=WIPE_OUT
    )
    client.force_login(alice)

    for html in (
        client.get("/games/?list=finished").content.decode(),
        client.get("/").content.decode(),
    ):
        item = item_of(html, game.pk)
        assert (
            '<p class="game-list__result" data-result="won"><strong>You won 13-0 on discs' in item
        )
        assert re.search(
            r'alice <span class="seat__score">13</span></li>\s*<li class="seat">'
            r'Computer \(easy\) <span class="seat__score">0</span>',
            item,
        )


@pytest.mark.usefixtures("tictactoe")
def test_a_resigned_game_shows_who_resigned_from_each_side_and_no_score(client, alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    services.game_resign(game_id=game.pk, user=bob)

    client.force_login(alice)
    item = item_of(client.get("/games/?list=finished").content.decode(), game.pk)
    assert "<strong>You won: bob resigned</strong>" in item
    assert "seat__score" not in item
    client.force_login(bob)
    item = item_of(client.get("/games/?list=finished").content.decode(), game.pk)
    assert '<p class="game-list__result" data-result="lost"><strong>You resigned</strong>' in item


def test_a_kings_corner_result_tells_nothing_of_the_hands(client, alice):
    game = game_create(creator=alice, kind="kingscorner", opponents=[SeatSpec(ai_level="easy")])
    hand = selectors.game_view_for(game=game, viewer=alice)["state"]["hand"]
    services.game_resign(game_id=game.pk, user=alice)
    client.force_login(alice)

    item = item_of(client.get("/games/?list=finished").content.decode(), game.pk)

    assert "<strong>You resigned</strong>" in item
    assert "seat__score" not in item
    assert not any(card in item for card in hand)


def test_games_not_over_show_no_result(client, alice):
    game_create(creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")])
    client.force_login(alice)

    html = client.get("/").content.decode()

    assert "game-list__result" not in html
    assert "seat__score" not in html
