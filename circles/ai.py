"""Computer players for Circles. Pure: no Django, no I/O, no global random.

`choose_move(state, level=..., seed=..., budget_ms=...)` is the `ComputerPlayer` the platform
calls. The `seed` only breaks ties between equally good moves (a ``random.Random(seed)``
shuffles the moves before a stable sort or search, and the first best move found is played).

Levels
------
* ``easy`` — the move that flips the most discs; the seed picks among equals. No search.
* ``medium`` — negamax alpha-beta, `MEDIUM_DEPTH` plies, over a square-weight table plus
  mobility (`circles.ai_eval.evaluate_simple`). Deterministic for a seed (3 plies take a few
  milliseconds, so only a budget far below that cuts it short).
* ``hard`` — iterative-deepening principal-variation search with a transposition table and
  mobility ordering over a richer evaluation (mobility, frontier, edge stability, corners,
  X-/C-squares, parity: `circles.ai_eval.evaluate`), then, with `SOLVE_EMPTIES` or fewer empty
  squares, an exact endgame solver: first win/draw/loss, then the exact disc margin
  (`circles.ai_search`).
* ``expert`` — ``hard``'s search and solver over an evaluation fitted from self-play games
  (`circles.ai_fitted`: per-phase weights and an edge pattern table, data in
  ``circles/data/fitted.txt``), with an opening book (`circles.ai_book`: the seed picks among
  the book's moves while the game is in it) and the exact solve tried from
  `EXPERT_SOLVE_EMPTIES` empty squares (at once from `EXPERT_EXACT_EMPTIES`), so it plays the
  endgame perfectly some moves earlier.

Time
----
Searching levels think for at most `budget_ms` milliseconds: ``time.perf_counter()`` is read
every few hundred nodes (this is the only use of the clock) and the move of the last finished
iteration is played (benchmarks may pass another `clock`, e.g. a CPU clock). So ``hard`` and
``expert`` are only reproducible given the clock; for tests, `max_nodes`
(a node limit per search phase) and `max_depth` (of the midgame search) make it deterministic
whenever the budget is not what stops it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from time import perf_counter
from typing import Final

from circles.ai_book import book_moves
from circles.ai_eval import WEIGHTS, evaluate, evaluate_simple, evaluate_with, final_score
from circles.ai_fitted import fitted_evaluate_with
from circles.ai_search import PRIORITY, OutOfTime, Search
from circles.rules import FULL, GameState, flip_mask, move_mask

__all__ = [
    "EXPERT_EXACT_EMPTIES",
    "EXPERT_SOLVE_EMPTIES",
    "LEVELS",
    "MEDIUM_DEPTH",
    "SOLVE_EMPTIES",
    "choose_move",
    "evaluate",
    "evaluate_simple",
    "hard_move",
    "medium_move",
]

LEVELS: Final = ("easy", "medium", "hard", "expert")
MEDIUM_DEPTH: Final = 3
SOLVE_EMPTIES: Final = 18
"""The hard player tries to solve the game exactly from this many empty squares."""
EXACT_EMPTIES: Final = 12
"""From this many empty squares down, the hard player solves at once (no midgame search)."""
EXPERT_SOLVE_EMPTIES: Final = 20
"""The expert player tries to solve the game exactly from this many empty squares."""
EXPERT_EXACT_EMPTIES: Final = 12
"""From this many empty squares down, the expert player solves at once."""
MIDGAME_SHARE: Final = 0.25
"""Share of the budget for a midgame search (a fallback move) before a longer exact solve."""
SAFETY: Final = 0.93
"""Searches stop at this share of `budget_ms` (the rest covers unwinding and slow checks)."""
MAX_DEPTH: Final = 60

_INFINITY: Final = 1 << 30


def choose_move(
    state: GameState,
    *,
    level: str,
    seed: int,
    budget_ms: int,
    max_depth: int | None = None,
    max_nodes: int | None = None,
    clock: Callable[[], float] = perf_counter,
) -> int:
    """The square the computer at `level` plays in `state` (the seat to move's move).

    `clock` is what the budget is measured on: the wall clock (the site), or a CPU clock for
    benchmarks that compare strength on a busy machine.
    """
    position = state.position
    squares = position.legal_squares()
    if not squares:
        raise ValueError("There is no move to choose: the game is over.")
    if level not in LEVELS:
        raise ValueError(f"Circles computer levels are {', '.join(LEVELS)}, not {level!r}.")
    rng = random.Random(seed)
    own, opp = position.own, position.opponent
    if level == "easy":
        flips = {square: flip_mask(square, own, opp).bit_count() for square in squares}
        most = max(flips.values())
        return rng.choice([square for square in squares if flips[square] == most])
    if len(squares) == 1:
        return squares[0]
    if level == "expert":
        book = book_moves(own, opp)
        if book:
            return rng.choice(sorted(book))
    rng.shuffle(squares)
    deadline = clock() + max(0, budget_ms) * SAFETY / 1000
    if level == "medium":
        return medium_move(
            own, opp, squares, depth=max_depth or MEDIUM_DEPTH, deadline=deadline, clock=clock
        )
    expert = level == "expert"
    return hard_move(
        own,
        opp,
        squares,
        deadline=deadline,
        max_depth=max_depth,
        max_nodes=max_nodes,
        solve_empties=EXPERT_SOLVE_EMPTIES if expert else SOLVE_EMPTIES,
        exact_empties=EXPERT_EXACT_EMPTIES if expert else EXACT_EMPTIES,
        clock=clock,
        evaluate=fitted_evaluate_with if expert else evaluate_with,
    )


# --- medium ----------------------------------------------------------------------------------


def medium_move(
    own: int,
    opp: int,
    squares: list[int],
    *,
    depth: int,
    deadline: float | None = None,
    clock: Callable[[], float] = perf_counter,
) -> int:
    """Alpha-beta to `depth` over `evaluate_simple`; the first of the best `squares` is played.

    Deepens one ply at a time; past `deadline` the deepest finished ply's move is played.
    """
    squares = sorted(squares, key=lambda square: -WEIGHTS[square])  # stable: shuffle kept
    best = squares[0]
    counter = [0, deadline, clock]
    for ply in range(1, depth + 1):
        try:
            best = _medium_root(own, opp, squares, ply, counter if ply > 1 else [0, None, clock])
        except OutOfTime:
            break
        squares = [best, *(square for square in squares if square != best)]
    return best


def _medium_root(own: int, opp: int, squares: list[int], depth: int, counter: list) -> int:
    alpha = -_INFINITY
    best = squares[0]
    for square in squares:
        flips = flip_mask(square, own, opp)
        value = -_medium(
            opp ^ flips, own | flips | (1 << square), depth - 1, -_INFINITY, -alpha, counter
        )
        if value > alpha:
            alpha, best = value, square
    return best


def _medium(own: int, opp: int, depth: int, alpha: int, beta: int, counter: list) -> int:
    counter[0] += 1
    if counter[0] & 255 == 0 and counter[1] is not None and counter[2]() >= counter[1]:
        raise OutOfTime
    moves = move_mask(own, opp)
    if not moves:
        if not move_mask(opp, own):
            return final_score(own, opp)
        return -_medium(opp, own, depth, -beta, -alpha, counter)  # a pass costs no depth
    if depth <= 0:
        return evaluate_simple(own, opp)
    squares = []
    while moves:
        bit = moves & -moves
        moves ^= bit
        squares.append(bit.bit_length() - 1)
    squares.sort(key=WEIGHTS.__getitem__, reverse=True)
    for square in squares:
        flips = flip_mask(square, own, opp)
        value = -_medium(
            opp ^ flips, own | flips | (1 << square), depth - 1, -beta, -alpha, counter
        )
        if value > alpha:
            alpha = value
            if alpha >= beta:
                break
    return alpha


# --- hard ------------------------------------------------------------------------------------


def root_order(own: int, opp: int, squares: list[int]) -> list[int]:
    """`squares` by the opponent's mobility after the move, then `PRIORITY` (a stable sort)."""

    def key(square: int) -> int:
        flips = flip_mask(square, own, opp)
        replies = move_mask(opp ^ flips, own | flips | (1 << square))
        return replies.bit_count() * 16 - PRIORITY[square]

    return sorted(squares, key=key)


def hard_move(
    own: int,
    opp: int,
    squares: list[int],
    *,
    deadline: float | None,
    max_depth: int | None = None,
    max_nodes: int | None = None,
    info: dict | None = None,
    solve_empties: int = SOLVE_EMPTIES,
    exact_empties: int = EXACT_EMPTIES,
    clock: Callable[[], float] = perf_counter,
    evaluate: Callable[[int, int, int, int], int] = evaluate_with,
) -> int:
    """The hard player's move among `squares` (ties go to the earliest in `squares`).

    With more than `solve_empties` empty squares: iterative deepening until `deadline`,
    `max_depth` or `max_nodes`. With fewer: a short midgame search (skipped from
    `exact_empties` down), then a win/draw/loss solve and an exact one, each kept only if it
    finishes in time. `info`, if given, is filled with what was searched (for benchmarks).
    Without a `deadline`, give `max_nodes` (or `max_depth` far from the end): nothing else
    stops the search. `evaluate` is the midgame search's evaluation (``evaluate_with``'s
    signature): hard's by default, the fitted one for expert.
    """
    empties = (~(own | opp) & FULL).bit_count()
    squares = root_order(own, opp, squares)
    info = {} if info is None else info
    best = squares[0]
    if empties > exact_empties:
        midgame_deadline = deadline
        if empties <= solve_empties and deadline is not None:
            now = clock()
            midgame_deadline = now + (deadline - now) * MIDGAME_SHARE
        search = Search(
            deadline=midgame_deadline, max_nodes=max_nodes, clock=clock, evaluate=evaluate
        )
        best, value, depth = search.think(
            own, opp, squares, max_depth=min(max_depth or MAX_DEPTH, MAX_DEPTH)
        )
        info.update(depth=depth, value=value, nodes=search.nodes)
        squares = [best, *(square for square in squares if square != best)]
        if empties > solve_empties:
            return best
    solver = Search(deadline=deadline, max_nodes=max_nodes, clock=clock)
    try:
        value, move = solver.solve_root(own, opp, squares, -1, 1)
        best = move
        info.update(solved="wld", result=value)
        if value:
            squares = [best, *(square for square in squares if square != best)]
            window = (0, 65) if value > 0 else (-65, 0)
            value, best = solver.solve_root(own, opp, squares, *window)
            info.update(solved="exact", result=value)
    except OutOfTime:
        pass
    finally:
        info["solver_nodes"] = solver.nodes
    return best
