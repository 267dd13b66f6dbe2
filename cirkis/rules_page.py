"""The positions the CirKis rules page draws (`cirkis/rules.html`, `cirkis/rules.js`).

Each example of play is a real game: the moves below, replayed with the engine from
`RULES.new_game` (each one must be legal where it is played). The piece gallery shows each piece
alone on the board, as `position()` builds it. `rules_diagrams()` maps each figure's name to the
envelope the game page's renderer draws, the log entries that tell it which fields make one piece,
and the fields to zoom in on.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any, Final

from cirkis.board import (
    FIELDS,
    PLACEMENTS,
    SHAPES,
    fields_of,
    mask_of,
    touching,
)
from cirkis.rules import RULES, GameState, Placement, position
from cirkis.scoring import label_mask
from cirkis.state import PIECE_KEYS
from greycircle.games.diagrams import diagram_envelope

__all__ = ["GAMES", "rules_context", "rules_diagrams"]

COLOURS: Final = ("Purple", "Red", "Green", "Yellow")

Moves = tuple[tuple[str, tuple[int, ...]], ...]

GAMES: Final[dict[str, tuple[int, Mapping[str, bool], Moves]]] = {
    # (seats, options, moves). Purple's Hook completes Circle C3, where Red has the most
    # segments, and Star S4, where Purple has: Purple scores 10 + 5, Red 10.
    "double": (
        2,
        {},
        (
            ("cube", (10, 11)),
            ("hook", (21, 41)),
            ("kite", (61,)),
            ("triangle", (22, 28, 42)),
            ("kite", (87,)),
            ("hook", (112, 122)),
            ("wedge", (131, 132)),
            ("arrow", (111,)),
            ("hook", (62, 93)),
        ),
    ),
    # Red's Small Slice completes Circle C3, where Purple's Big Slice holds three segments.
    "split": (
        2,
        {},
        (
            ("arrow", (3,)),
            ("cube", (10, 11)),
            ("big_slice", (28, 42, 62)),
            ("small_slice", (41, 61)),
        ),
    ),
    # Three players: Red completes Circle C4 split 2-2-1 (Green 2, Red 2, Purple 1).
    "tie": (
        3,
        {},
        (
            ("triangle", (3, 11, 12)),
            ("hook", (0, 5)),
            ("triangle", (24, 29, 44)),
            ("hook", (23, 43)),
            ("small_slice", (63, 64)),
        ),
    ),
    # Purple's Hook covers the last dart of the Center Star: 10 points and a free turn.
    "center_star": (2, {}, (("wedge", (2, 3)), ("wedge", (0, 4)), ("hook", (1, 7)))),
    # Purple plays the game's first Sliver: a free turn.
    "sliver": (
        2,
        {},
        (
            ("hook", (1, 8)),
            ("wedge", (17, 31)),
            ("big_slice", (25, 36, 56)),
            ("arrow", (106,)),
            ("sliver", (156,)),
        ),
    ),
    # Red's Kite fills the last space of a hole (and completes Circle C7): a free turn.
    "filled": (
        2,
        {},
        (
            ("small_slice", (9, 10)),
            ("arrow", (32,)),
            ("small_slice", (48, 49)),
            ("big_slice", (39, 59, 60)),
            ("hook", (69, 77)),
            ("kite", (119,)),
            ("hook", (139, 149)),
            ("hook", (98, 138)),
            ("kite", (99,)),
            ("kite", (148,)),
        ),
    ),
    # After Red's Arrow nothing of Purple's fits against the Leader: Purple loses the turn.
    "lost_turn": (
        2,
        {},
        (
            ("kite", (11,)),
            ("big_slice", (28, 42, 62)),
            ("hook", (87, 112)),
            ("hook", (142, 152)),
            ("kite", (102,)),
            ("hook", (143, 153)),
            ("kite", (79,)),
            ("triangle", (34, 52, 53)),
            ("hook", (73, 103)),
            ("arrow", (72,)),
        ),
    ),
    # With the Center Ring option: Purple covers the last ring kite and holds the most: 15.
    "ring": (
        3,
        {"center_ring": True},
        (
            ("kite", (9,)),
            ("hook", (2, 10)),
            ("wedge", (20, 33)),
            ("small_slice", (28, 41)),
            ("arrow", (71,)),
            ("kite", (86,)),
            ("hook", (111, 121)),
            ("hook", (87, 112)),
            ("hook", (142, 152)),
            ("small_slice", (103, 153)),
            ("small_slice", (88, 123)),
            ("arrow", (73,)),
            ("big_slice", (29, 43, 44)),
            ("kite", (14,)),
            ("arrow", (0,)),
            ("hook", (4, 13)),
            ("arrow", (34,)),
            ("small_slice", (42, 62)),
            ("arrow", (22,)),
            ("kite", (12,)),
            ("hook", (3, 11)),
            ("triangle", (1, 7, 8)),
            ("small_slice", (5, 6)),
        ),
    ),
}


class Replay:
    """A game of `GAMES` played with the engine: its states (``states[n]`` after n moves) and
    its log entries, as the game page gets them."""

    def __init__(self, name: str) -> None:
        seats, options, moves = GAMES[name]
        state = RULES.new_game(seats, seed=0, options=options)
        self.seats = seats
        self.states: list[GameState] = [state]
        self.log: list[dict[str, Any]] = []
        for number, (piece, fields) in enumerate(moves, start=1):
            move = RULES.parse_move({"piece": piece, "fields": list(fields)})
            after = RULES.play(state, move)
            entry = RULES.log_entry(state, move, after).public
            self.log.append({"number": number, **entry})
            self.states.append(after)
            state = after

    def diagram(
        self,
        moves: int | None = None,
        *,
        focus: Iterable[int] = (),
        scores: bool = False,
        helpers: bool = False,
    ) -> dict[str, Any]:
        """The game after `moves` moves (all of them by default)."""
        count = len(self.log) if moves is None else moves
        state = self.states[count]
        seat = RULES.to_move(state) if helpers else None
        legal = RULES.legal_moves(state) if helpers else None
        envelope = diagram_envelope(
            RULES,
            state,
            names=COLOURS[: self.seats],
            seat=seat,
            legal_moves=legal,
            move_count=count,
        )
        return {
            "envelope": envelope,
            "moves": self.log[:count],
            "focus": sorted(set(focus)),
            "scores": scores,
            "helpers": helpers,
        }

    def placed(self, number: int) -> tuple[int, ...]:
        """The fields move `number` (from 1) covered."""
        return tuple(self.log[number - 1]["fields"])


def around(fields: Iterable[int], rings: int = 1) -> list[int]:
    """`fields` and the fields touching them, `rings` deep: the part of the board to show."""
    mask = mask_of(fields)
    for _ in range(rings):
        mask |= touching(mask)
    return list(fields_of(mask))


def shape_fields(*labels: str) -> list[int]:
    """The fields of the shapes called `labels` ("C3", "S0", "R")."""
    return [i for label in labels for i in fields_of(label_mask(label))]


def _gallery_placement(piece: str) -> Placement:
    """Where the piece gallery shows `piece`: its placement nearest the head of Circle C2."""
    hx, hy = next(shape.head for shape in SHAPES if shape.kind == "circle" and shape.number == 2)

    def distance(placement: Placement) -> float:
        points = [FIELDS[i].centroid for i in placement.fields]
        x = sum(p[0] for p in points) / len(points)
        y = sum(p[1] for p in points) / len(points)
        return math.hypot(x - hx, y - hy)

    return min(PLACEMENTS[piece], key=distance)


def _piece_diagram(piece: str) -> dict[str, Any]:
    """`piece` alone on the board: Purple has just placed it."""
    placement = _gallery_placement(piece)
    state = position(covered=[placement.fields, []], leader=(piece, placement.fields), to_move=1)
    envelope = diagram_envelope(RULES, state, names=COLOURS[:2])
    entry = {"number": 1, "seat": 0, "piece": piece, "fields": list(placement.fields)}
    return {
        "envelope": envelope,
        "moves": [entry],
        "focus": around(placement.fields),
        "scores": False,
        "helpers": False,
    }


def _board_diagram(focus: Sequence[int] = ()) -> dict[str, Any]:
    """The empty board (zoomed in on `focus`, if given)."""
    state = RULES.new_game(2, seed=0, options={})
    return {
        "envelope": diagram_envelope(RULES, state, names=COLOURS[:2]),
        "moves": [],
        "focus": list(focus),
        "scores": False,
        "helpers": False,
    }


@cache
def rules_diagrams() -> dict[str, dict[str, Any]]:
    """Figure name -> ``{"envelope", "moves" (log entries), "focus" (field ids), "scores",
    "helpers"}``; an empty focus shows the whole board."""
    centre = shape_fields("S0", "R")
    games = {name: Replay(name) for name in GAMES}
    double, split, tie = games["double"], games["split"], games["tie"]
    filled, lost = games["filled"], games["lost_turn"]
    diagrams: dict[str, dict[str, Any]] = {
        "board": _board_diagram(),
        "circle": _board_diagram(around(shape_fields("C2"))),
        "star": _board_diagram(around(shape_fields("S3"))),
        "centre": _board_diagram(around(centre)),
    }
    for piece in PIECE_KEYS:
        diagrams[f"piece-{piece}"] = _piece_diagram(piece)
    hole = around(filled.placed(10), 2)
    diagrams.update(
        {
            "first-piece": double.diagram(1, focus=around(centre)),
            "follow-leader": double.diagram(2, helpers=True),
            "free-filled-before": filled.diagram(9, focus=hole),
            "free-filled-after": filled.diagram(focus=hole, scores=True),
            "free-center-star": games["center_star"].diagram(focus=around(centre)),
            "free-sliver": games["sliver"].diagram(focus=around(games["sliver"].placed(5), 2)),
            "lost-turn": lost.diagram(focus=around(lost.placed(10), 2)),
            "score-split": split.diagram(focus=around(shape_fields("C3")), scores=True),
            "score-tie": tie.diagram(focus=around(shape_fields("C4")), scores=True),
            "score-double": double.diagram(focus=around(shape_fields("C3", "S4")), scores=True),
            "option-ring": games["ring"].diagram(focus=around(centre), scores=True),
        }
    )
    return diagrams


def rules_context() -> dict[str, Any]:
    """What `cirkis/rules.html` needs besides the registry's: the diagrams and the piece set."""
    return {"diagrams": rules_diagrams(), "piece_keys": list(PIECE_KEYS)}
