"""The positions the King's Corner rules page draws (`kingscorner/rules.html`, `rules.js`).

The deal is a real deal (`RULES.new_game`); the turn is one player's turn played with the engine
from a table built with `position()`, action by action, so each diagram is what `RULES.play` made
of the one before. `rules_diagrams()` maps each figure's name to the envelope the game page's
renderer draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, Final

from greycircle.games.diagrams import diagram_envelope
from kingscorner.rules import END_TURN, RULES, GameState, Move, position

__all__ = ["DEAL_SEED", "rules_context", "rules_diagrams"]

DEAL_SEED: Final = 7
"""A three-player deal that turns up a King for West: it goes to the South-west corner."""
NAMES: Final = ("Ann", "Ben", "Cleo")
"""The players of the diagrams; you are Ann, seat 0."""

# The table at the start of your turn (two players). East's bottom card, the black 7, is one
# lower than North's top card, the red 8, and of the other colour: East may move onto North.
# West has a King at the bottom: it may move into an empty corner.
TURN_TABLE: Final = {
    "N": ["9S", "8H"],
    "E": ["7C", "6H"],
    "S": ["8C"],
    "W": ["KS", "QD"],
    "NE": ["KC"],
}
TURN_HANDS: Final = (["7D", "2H", "KD", "5S", "JC"], ["3S", "TD", "4C", "QS", "9H", "AH", "6C"])
TURN_STOCK: Final = ["4H", "JH", "2D", "AS", "TC"]


def _play(state: GameState, *moves: dict[str, str]) -> GameState:
    for move in moves:
        state = RULES.play(state, RULES.parse_move(move))
    return state


def _diagram(
    state: GameState,
    *,
    names: Sequence[str] = NAMES[:2],
    seat: int | None = 0,
    show: Sequence[Move] | None = None,
    expanded: Sequence[str] = (),
) -> dict[str, Any]:
    envelope = diagram_envelope(RULES, state, names=names, seat=seat, legal_moves=show)
    return {"envelope": envelope, "helpers": show is not None, "expanded": list(expanded)}


@cache
def rules_diagrams() -> dict[str, dict[str, Any]]:
    """Figure name -> what it draws: ``{"envelope", "helpers", "expanded"}`` (piles shown open)."""
    deal = RULES.new_game(3, seed=DEAL_SEED, options={})
    start = position(hands=TURN_HANDS, piles=TURN_TABLE, stock=TURN_STOCK)
    pile_move = RULES.parse_move({"action": "move_pile", "from": "E", "to": "N"})
    moved = _play(start, RULES.move_to_json(pile_move))
    cards = _play(
        moved,
        {"action": "play", "card": "7D", "to": "S"},
        {"action": "play", "card": "2H", "to": "E"},
        {"action": "play", "card": "KD", "to": "SE"},
    )
    king_pile = _play(cards, {"action": "move_pile", "from": "W", "to": "SW"})
    drawn = _play(king_pile, {"action": "end_turn"})

    # Going out: your last card goes on North's black 6, and you win at once.
    last_card = position(
        hands=[["5D"], ["KS", "3D", "8C"]],
        piles={"N": ["7H", "6S"], "E": ["TC"], "S": ["QD"], "W": ["2S"], "NE": ["KH"]},
        stock=["9D", "4S"],
    )
    went_out = _play(last_card, {"action": "play", "card": "5D", "to": "N"})

    # A stalemate: the stock is empty, nothing fits anywhere (nothing goes on an ace, no hand
    # holds a card for a corner), and Ben ends his turn without playing, as you ended yours.
    blocked = position(
        hands=[["4H", "9C"], ["2C", "9D", "5S"]],
        piles={
            "N": ["AD"],
            "E": ["AC"],
            "S": ["AS"],
            "W": ["AH"],
            "NE": ["KC", "QD"],
            "SE": ["KH"],
            "SW": ["KS"],
            "NW": ["KD"],
        },
        to_move=1,
        idle_turns=1,
    )
    stalemate = RULES.play(blocked, END_TURN)

    return {
        "deal": _diagram(deal, names=NAMES, seat=None),
        "pile-before": _diagram(start, show=[pile_move]),
        "pile-after": _diagram(moved),
        "cards-after": _diagram(cards),
        "king-pile-after": _diagram(king_pile, expanded=["N"]),
        "end-turn": _diagram(drawn),
        "went-out": _diagram(went_out),
        "stalemate": _diagram(stalemate),
    }


def rules_context() -> dict[str, Any]:
    """What `kingscorner/rules.html` needs besides the registry's: the diagrams."""
    return {"diagrams": rules_diagrams()}
