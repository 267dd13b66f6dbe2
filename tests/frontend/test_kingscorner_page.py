"""The King's Corner page: the envelope in the page is the viewer's own and nothing else leaks."""

import json
import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec, move_submit
from kingscorner.rules import RULES, GameState, position
from tests.factories import game_started

pytestmark = pytest.mark.django_db

ENVELOPE = re.compile(r'<script id="initial-envelope" type="application/json">(.*?)</script>', re.S)
QUOTED_CARD = re.compile(r"""["']([A2-9TJQK][CDHS])["']""")

ALICE = ["4C", "9D", "KS"]
BOB = ["2C", "KD", "8H"]
COMPUTER = ["3C", "7S"]
STOCK = ["2H", "3H", "4D"]
PILES = {"N": ["6C", "5D"], "E": ["QS", "JH"], "S": ["TC"], "W": ["9H"], "NE": ["KH"]}
PILE_CARDS = {card for cards in PILES.values() for card in cards}


def deal(game: Game, state: GameState) -> None:
    """Put a game that has no moves yet at a hand-built position."""
    Game.objects.filter(pk=game.pk).update(state=RULES.encode(state), to_move=RULES.to_move(state))


@pytest.fixture
def game(alice, bob) -> Game:
    created = game_started(
        creator=alice,
        kind="kingscorner",
        opponents=[SeatSpec(user=bob), SeatSpec(ai_level="easy")],
    )
    deal(created, position(hands=[ALICE, BOB, COMPUTER], piles=PILES, stock=STOCK))
    return created


def page_for(client, user, game: Game) -> tuple[dict, str]:
    """The envelope embedded in the page, and the rest of the page."""
    client.force_login(user)
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    match = ENVELOPE.search(html)
    assert match is not None
    return json.loads(match.group(1)), html[: match.start()] + html[match.end() :]


def cards_in(data: object) -> set[str]:
    return set(QUOTED_CARD.findall(json.dumps(data)))


def test_each_player_finds_only_their_own_hand_in_the_page(client, game, alice, bob):
    envelope, rest = page_for(client, alice, game)
    assert envelope["kind"] == "kingscorner"
    assert envelope["you"] == 0
    assert envelope["state"]["hand"] == ["4C", "9D", "KS"]
    assert envelope["state"]["hand_sizes"] == [3, 3, 2]
    assert envelope["state"]["stock"] == 3
    assert "final_hands" not in envelope["state"]
    assert {"action": "end_turn"} in envelope["legal_moves"]
    assert cards_in(envelope) <= set(ALICE) | PILE_CARDS
    assert not QUOTED_CARD.search(rest)
    assert "data-card" not in rest

    envelope, rest = page_for(client, bob, game)
    assert envelope["state"]["hand"] == ["2C", "8H", "KD"]
    assert envelope["legal_moves"] == []
    assert cards_in(envelope) <= set(BOB) | PILE_CARDS
    assert not QUOTED_CARD.search(rest)


def test_a_spectator_sees_no_hand(client, game, carol):
    envelope, rest = page_for(client, carol, game)
    assert envelope["you"] is None
    assert "hand" not in envelope["state"]
    assert envelope["legal_moves"] == []
    assert cards_in(envelope) <= PILE_CARDS
    assert not QUOTED_CARD.search(rest)


def test_after_the_game_every_page_shows_every_hand_and_its_penalty(
    client, game, alice, bob, carol
):
    game.refresh_from_db()
    version = game.version
    for card, pile in (("9D", "S"), ("KS", "NW")):
        version = move_submit(
            game_id=game.pk,
            user=alice,
            move={"action": "play", "card": card, "to": pile},
            expected_version=version,
        ).version
    move_submit(
        game_id=game.pk,
        user=alice,
        move={"action": "play", "card": "4C", "to": "N"},
        expected_version=version,
    )
    assert Game.objects.get(pk=game.pk).status == GameStatus.FINISHED

    for viewer in (alice, bob, carol):
        envelope, rest = page_for(client, viewer, game)
        assert envelope["status"] == "finished"
        assert envelope["state"]["final_hands"] == [[], ["2C", "8H", "KD"], ["3C", "7S"]]
        assert envelope["state"]["penalties"] == [0, 12, 2]
        assert envelope["outcome"]["winners"] == [0]
        assert not cards_in(envelope) & set(STOCK), "the stock stays hidden"
        assert not QUOTED_CARD.search(rest)


def test_the_kingscorner_app_serves_its_page_module_and_stylesheet(client, game, alice):
    module = finders.find("kingscorner/page.js")
    assert module is not None
    assert finders.find("kingscorner/page.css") is not None
    source = Path(module).read_text()
    assert "export function mount(" in source
    assert "describeMove(entry, envelope)" in source
    assert "describeOutcome(outcome)" in source

    _, html = page_for(client, alice, game)
    assert '"kingscorner/page": "/static/kingscorner/page.js"' in html
    assert 'href="/static/kingscorner/page.css"' in html
