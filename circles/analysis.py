"""Circles games analysed by the hard engine, after the game. Pure: no Django, no I/O, no clock.

For each position of a game (before each move), the engine gives the best move and its score, and
scores the move actually played the same way; the difference is what the move lost:

* **Endgame** (at most `EXACT_EMPTIES` empty squares): the exact solver (`circles.ai_search`)
  gives the final disc margin with perfect play from both sides, for the best move and for the
  move played. These figures are exact (`exact: true`).
* **Before that**: the hard player's iterative-deepening search, stopped by a node limit
  (`nodes`) rather than a clock, so the same game always gets the same analysis. The move played
  is searched to the same depth as the best move, with the same table, so their scores compare.
  Its evaluation is in the engine's own units; `DISC_UNITS` of them count as one disc (fitted
  against exact solves at 14-16 empty squares: correlation 0.96, a spread of 9 discs), so midgame
  figures are estimates. A line that the search saw to the game's end is scored in discs.

Scores are disc margins for the player to move (positive: ahead). `loss` is best minus played,
never below 0; a move that loses `MISTAKE` discs or more is a ``mistake``, `BLUNDER` or more a
``blunder``.

Positions are analysed one at a time (`position_analyse`) so that the platform's task can spread a
long game over several short runs (`circles.services`); `analysis_compute` does a whole game. A
position's analysis can be given up halfway (`interrupt`, asked every few milliseconds: the task
gives its worker to a computer's turn): it raises `Interrupted`, and analysing the position again
later gives the same result, the limits being node counts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from circles.ai import root_order
from circles.ai_eval import WIN
from circles.ai_search import INFINITY, OutOfTime, Search
from circles.rules import FULL, RULES, SQUARE_NAMES, GameState, Position, flip_mask

NODES: Final = 25_000
"""Midgame search: nodes per position (the best move's search; the move played costs extra)."""
EXACT_EMPTIES: Final = 16
"""From this many empty squares down, positions are solved exactly."""
SOLVE_NODES: Final = 400_000
"""An exact solve that needs more nodes than this gives way to the midgame search."""
MAX_DEPTH: Final = 60
DISC_UNITS: Final = 45
"""The hard evaluation's units per disc of final margin (see the module doc)."""
MISTAKE: Final = 4
BLUNDER: Final = 10
MARKS: Final = ("mistake", "blunder")

__all__ = [
    "BLUNDER",
    "DISC_UNITS",
    "EXACT_EMPTIES",
    "MARKS",
    "MISTAKE",
    "NODES",
    "Budget",
    "Interrupted",
    "analysis_compute",
    "analysis_summary",
    "game_positions",
    "mark_for",
    "position_analyse",
]


@dataclass(frozen=True, slots=True)
class Budget:
    """How hard the engine looks at each position (defaults: the site's)."""

    nodes: int = NODES
    exact_empties: int = EXACT_EMPTIES
    solve_nodes: int = SOLVE_NODES


class Interrupted(Exception):
    """The analysis of a position was given up (`position_analyse`'s `interrupt` said so)."""


class _Search(Search):
    """The engine's search, which also stops (`Interrupted`, not `OutOfTime`: no search keeps a
    partial result) when `interrupt()` says so, asked at each of its limit checks."""

    __slots__ = ("interrupt",)

    def __init__(self, *, interrupt: Callable[[], bool] | None, **limits: int | None) -> None:
        self.interrupt = interrupt
        super().__init__(**limits)

    def _check(self) -> None:
        if self.interrupt is not None and self.interrupt():
            raise Interrupted
        super()._check()


def mark_for(loss: int) -> str | None:
    """``"blunder"``, ``"mistake"`` or None for a move that lost `loss` discs."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    return None


def _discs(value: int) -> float:
    """An engine value as a disc margin: a finished line's exact margin, else the estimate."""
    if abs(value) >= WIN:
        return value / WIN
    return value / DISC_UNITS


def _exact(
    own: int,
    opp: int,
    squares: list[int],
    played: int,
    budget: Budget,
    interrupt: Callable[[], bool] | None,
) -> tuple[int, int, int] | None:
    """(best square, its margin, the played move's margin) by the exact solver, or None when
    the solve needs more than `budget.solve_nodes` nodes."""
    if (~(own | opp) & FULL).bit_count() == 1:
        # The last square (`Search.solve_root` expects at least one empty square after the move).
        [square] = squares
        flips = flip_mask(square, own, opp).bit_count()
        margin = (own.bit_count() + flips + 1) - (opp.bit_count() - flips)
        return square, margin, margin
    solver = _Search(max_nodes=budget.solve_nodes, interrupt=interrupt)
    try:
        best_value, best = solver.solve_root(own, opp, squares, -65, 65)
        if played == best:
            return best, best_value, best_value
        played_value, _ = solver.solve_root(own, opp, [played], -65, 65)
    except OutOfTime:
        return None
    return best, best_value, played_value


def _searched(
    own: int,
    opp: int,
    squares: list[int],
    played: int,
    budget: Budget,
    interrupt: Callable[[], bool] | None,
) -> tuple[int, float, float]:
    """(best square, its score, the played move's score) in discs, by the midgame search."""
    search = _Search(max_nodes=budget.nodes, interrupt=interrupt)
    progress: list[tuple[int, int, int]] = []
    search.think(own, opp, squares, max_depth=MAX_DEPTH, progress=progress)
    # The deepest finished iteration: its move and value belong together.
    depth, best, value = progress[-1]
    if played == best:
        return best, _discs(value), _discs(value)
    # The move played, to the same depth with the same table (and no limit: one root move of an
    # iteration that finished costs less than the iteration did).
    follow = _Search(interrupt=interrupt)
    follow.tt = search.tt
    played_value, _, _ = follow.root(own, opp, [played], depth, -INFINITY, INFINITY)
    return best, _discs(value), _discs(played_value)


def position_analyse(
    position: Position,
    played: int,
    *,
    number: int,
    budget: Budget | None = None,
    interrupt: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """The analysis of `position` (its side to move must have a move), where `played` was played
    as move `number` of the game. Raises `Interrupted` as soon as `interrupt()` is true."""
    budget = budget or Budget()
    own, opp = position.own, position.opponent
    squares = root_order(own, opp, position.legal_squares())
    if played not in squares:
        raise ValueError(f"{SQUARE_NAMES[played]} is not a legal move in this position.")
    empties = (~(own | opp) & FULL).bit_count()
    found = (
        _exact(own, opp, squares, played, budget, interrupt)
        if empties <= budget.exact_empties
        else None
    )
    if found is not None:
        best, best_score, played_score = found
        exact = True
    else:
        best, best_score, played_score = _searched(own, opp, squares, played, budget, interrupt)
        exact = False
    best_score, played_score = round(best_score), round(played_score)
    if played_score >= best_score:
        # The move played is as good as the engine's (or, the search being heuristic, scored
        # better at this depth): it is the best move.
        best, best_score = played, played_score
    loss = best_score - played_score
    return {
        "number": number,
        "seat": position.turn,
        "played": SQUARE_NAMES[played],
        "best": SQUARE_NAMES[best],
        "best_score": best_score,
        "played_score": played_score,
        "loss": loss,
        "exact": exact,
        "forced": len(squares) == 1,
        "mark": mark_for(loss),
    }


def game_positions(
    moves: Sequence[int], *, start: GameState | None = None
) -> list[tuple[Position, int]]:
    """(position before the move, the move) for each move of a game, passes made as they come.

    Raises IllegalMove for a move that cannot be played.
    """
    state = RULES.new_game(2, seed=0, options={}) if start is None else start
    positions = []
    for square in moves:
        positions.append((state.position, square))
        state = RULES.play(state, square)
    return positions


def analysis_summary(positions: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per seat: the moves analysed, mistakes, blunders and the average loss in discs."""
    seats = [
        {"seat": seat, "moves": 0, "mistakes": 0, "blunders": 0, "average_loss": 0.0}
        for seat in (0, 1)
    ]
    losses = [0, 0]
    for position in positions:
        seat = seats[position["seat"]]
        seat["moves"] += 1
        losses[position["seat"]] += position["loss"]
        if position["mark"] == "mistake":
            seat["mistakes"] += 1
        elif position["mark"] == "blunder":
            seat["blunders"] += 1
    for seat, total in zip(seats, losses, strict=True):
        seat["average_loss"] = round(total / seat["moves"], 1) if seat["moves"] else 0.0
    return seats


def analysis_compute(
    *, moves: Sequence[int], start: GameState | None = None, budget: Budget | None = None
) -> dict[str, Any]:
    """The analysis of a whole game: `moves` (squares) played from `start` (the usual start).

    ``{"positions": [one per move, see position_analyse], "seats": analysis_summary(...)}``.
    """
    positions = [
        position_analyse(position, square, number=number, budget=budget)
        for number, (position, square) in enumerate(game_positions(moves, start=start), start=1)
    ]
    return {"positions": positions, "seats": analysis_summary(positions)}
