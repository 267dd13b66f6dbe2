"""The positions the Circles rules page draws (`circles/rules.html`, `circles/rules.js`).

Every diagram is a game replayed with the engine from the start (`RULES.from_record`), then
shown as the game page would show it: `rules_diagrams()` maps each figure's name to the envelope
its renderer draws, plus what the figure marks on top (the discs a move flipped).
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final

from circles.rules import RULES, GameState, parse_square
from greycircle.games.diagrams import diagram_envelope

__all__ = ["CAPTURE_RECORD", "CAPTURE_SQUARE", "rules_context", "rules_diagrams"]

NAMES: Final = ("White", "Black")

CAPTURE_RECORD: Final = "d6c4c3c6e3e6e7d3"
"""Eight moves of a game; then white's c5 flips four discs in four directions."""
CAPTURE_SQUARE: Final = "c5"
PASS_RECORD: Final = "c5c6c7b7e3c8a8a6"
"""After black's a6 white has no move: white passes and black moves again."""
WIPEOUT_RECORD: Final = "e3f3g3d3c5c4c3c6b7"
"""White's b7 takes black's last disc: the game ends, 13-0, with most of the board empty."""
TIE_RECORD: Final = (
    "d6e6f3c5b4g2f5g6g5c6e3b5g7a3g3f4h1c3g4h2e7f6b2g8a5a1b7f8c4e2"
    "f2d3c2f1g1e1h4b3d2b1h6b6d8d7a2h3a6b8c8c1h5d1h8f7e8h7a7c7a8a4"
)
"""A whole game that fills the board 32-32: a tie."""


def _diagram(
    state: GameState,
    *,
    seat: int | None = None,
    show: list[int] | None = None,
    marks: list[str] | None = None,
) -> dict[str, Any]:
    envelope = diagram_envelope(
        RULES, state, names=NAMES, seat=seat, legal_moves=show, move_count=len(state.record)
    )
    return {"envelope": envelope, "helpers": show is not None, "marks": marks or []}


@cache
def rules_diagrams() -> dict[str, dict[str, Any]]:
    """Figure name -> what it draws: ``{"envelope", "helpers", "marks"}``."""
    start = RULES.new_game(2, seed=0, options={})
    before = RULES.from_record(CAPTURE_RECORD)
    square = parse_square(CAPTURE_SQUARE)
    after = RULES.play(before, square)
    flipped = RULES.log_entry(before, square, after).public["flipped"]
    passed = RULES.from_record(PASS_RECORD)
    return {
        # White's four possible first moves, as the helpers show them.
        "start": _diagram(start, seat=0, show=RULES.legal_moves(start)),
        "capture-before": _diagram(before, seat=0, show=[square]),
        "capture-after": _diagram(after, marks=flipped),
        # White passed; the grey circles are black's moves.
        "pass": _diagram(passed, seat=passed.position.turn, show=RULES.legal_moves(passed)),
        "wipeout": _diagram(RULES.from_record(WIPEOUT_RECORD)),
        "tie": _diagram(RULES.from_record(TIE_RECORD)),
    }


def rules_context() -> dict[str, Any]:
    """What `circles/rules.html` needs besides the registry's: the diagrams and their records."""
    return {
        "diagrams": rules_diagrams(),
        "capture_moves": [CAPTURE_RECORD[i : i + 2] for i in range(0, len(CAPTURE_RECORD), 2)],
    }
