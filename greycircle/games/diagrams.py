"""Positions for the diagrams of the rules pages, in the shape the game page draws.

A game's rules page draws its diagrams with the game's own page module (`<kind>/page.js`), whose
renderer takes an envelope, as the API gives it. `diagram_envelope` makes one from a state built
with the kind's engine, so every diagram shows a position the engine itself produced: the view
is `rules.view(state, seat)` and the legal moves, when shown, are the engine's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from greycircle.games.engine import Rules


def diagram_envelope(
    rules: Rules[Any, Any],
    state: Any,
    *,
    names: Sequence[str],
    seat: int | None = None,
    legal_moves: Iterable[Any] | None = None,
    move_count: int = 0,
) -> dict[str, Any]:
    """The envelope of `state` as `seat` (None: a spectator) sees it, for a diagram.

    `names` names the seats. `legal_moves` are the moves to show as legal (the kind's page marks
    them when helpers are on): some of the engine's legal moves for `seat`, which must be the
    seat to move; None shows none. Raises ValueError for a move the engine does not allow there.
    """
    to_move = rules.to_move(state)
    outcome = rules.outcome(state)
    shown: list[dict[str, Any]] = []
    if legal_moves is not None:
        if seat is None or to_move != seat:
            raise ValueError("Legal moves are shown only to the seat to move.")
        allowed = [rules.move_to_json(move) for move in rules.legal_moves(state)]
        for move in legal_moves:
            as_json = rules.move_to_json(move)
            if as_json not in allowed:
                raise ValueError(f"{as_json} is not a legal move here.")
            shown.append(as_json)
    return {
        "kind": rules.kind,
        "status": "finished" if outcome is not None else "active",
        "version": move_count,
        "seats": [
            {"seat": index, "user": None, "ai_level": None, "name": name, "open": False}
            for index, name in enumerate(names)
        ],
        "to_move": to_move,
        "you": seat,
        "state": rules.view(state, seat),
        "legal_moves": shown,
        "outcome": None if outcome is None else outcome.to_json(),
        "move_count": move_count,
    }
