"""Computer players for CirKis. Pure: no Django, no I/O, no global random.

`choose_move(state, level=..., seed=..., budget_ms=...)` returns the placement the seat to move
makes. CirKis hides nothing, so every level sees the whole `GameState`.

Time
----
Every level stops at its wall clock budget: a deadline `SAFETY` x ``budget_ms`` after the call,
read from `clock` (``time.perf_counter`` unless a test injects one; the engines' one use of the
clock) every `CLOCK_EVERY` positions valued. A level cut short plays the best move it has: the
best of the moves valued so far (``normal``, and ``hard`` before its first search), or the best
move of the deepest search completed (``hard``). Within the budget ``normal`` and ``hard`` are
deterministic for a seed: ``hard``'s own limit is a count of positions (below), so only a
machine too slow or too busy for that count reaches the deadline first.

Levels
------
``easy``
    A random legal placement (``random.Random(seed)``).
``normal``
    Greedy, one placement deep. Each legal placement is played (`RULES.advance`) and valued from
    the mover's side: the points it scores minus the most any other seat scores by it (a 10 given
    away counts against it); a free turn (or every other seat losing its turn), plus what the mover
    can then complete straight away; minus what the next seat can complete straight away — its best
    completing placement touching the new Leader (`best_strike`), which stops it from leaving a
    shape one segment short where an opponent holds the majority; a little for pieces that are
    hard to place later (big pieces, few placements: played early); a little for taking the
    majority in a shape still open. A won game scores above everything, a lost one below. Ties are
    broken at random by `seed`.
``hard``
    A paranoid alpha-beta search over a beam of the most promising moves, deepening iteratively,
    on a lean copy of the rules with an evaluation of points, strikes, majorities in open shapes
    and pieces left (`cirkis.ai_search`, whose docstring says more). ``budget_ms`` also becomes a
    budget of positions played (`NODES_PER_MS` per millisecond, at least `MIN_NODES`), so that
    on an idle machine the answer for a seed does not depend on its speed: `NODES_PER_MS` is
    below the 60-90k positions a second the bench machine plays (bench/README.md), so there the
    count ends a search before the deadline; the deadline ends it on a slower or busy machine.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Final

from cirkis.ai_search import Budget, OutOfBudget, Search
from cirkis.board import CENTER_RING_MASK, FIELD_COUNT, PIECES, PLACEMENTS
from cirkis.rules import (
    PIECE_INDEX,
    PIECE_KEYS,
    RULES,
    GameState,
    Placement,
    required_mask,
)
from cirkis.scoring import SHAPE_MASKS, completions, majority, shapes_hit

__all__ = [
    "CLOCK_EVERY",
    "LEVELS",
    "MIN_NODES",
    "NODES_PER_MS",
    "SAFETY",
    "best_strike",
    "choose_move",
    "greedy_value",
]

LEVELS: Final = ("easy", "normal", "hard")
NODES_PER_MS: Final = 60
MIN_NODES: Final = 200
SAFETY: Final = 0.9
"""Thinking stops at this share of ``budget_ms``: the rest covers unwinding and a slow check."""
CLOCK_EVERY: Final = 8
"""The clock is read every this many positions (each takes some 50 us on an idle machine)."""

WIN: Final = 1000.0
EXTRA_TURN: Final = 4.0
THREAT_WEIGHT: Final = 0.9
STRIKE_WEIGHT: Final = 0.8
MAJORITY_WEIGHT: Final = 1.0

_TARGET_MASKS: Final[tuple[int, ...]] = (*SHAPE_MASKS, CENTER_RING_MASK)
_CONTAINING: Final[tuple[tuple[tuple[int, int], ...], ...]] = tuple(
    tuple(
        (PIECE_INDEX[p.piece], p.mask)
        for key in PIECE_KEYS
        for p in PLACEMENTS[key]
        if p.mask >> field & 1
    )
    for field in range(FIELD_COUNT)
)
"""For each field: (piece index, mask) of every placement covering it."""

PIECE_WEIGHT: Final[dict[str, float]] = {
    key: 0.5 * len(piece.field_kinds) + 5.0 / len(PLACEMENTS[key]) for key, piece in PIECES.items()
}
"""A small preference for pieces that are hard to place later: big ones, and rare fits."""


def _gains(before: Sequence[int], after: Sequence[int], seat: int) -> float:
    """What `seat` gained minus the most any other seat gained between two score lists."""
    gains = [a - b for a, b in zip(after, before, strict=True)]
    return gains[seat] - max(g for s, g in enumerate(gains) if s != seat)


def best_strike(state: GameState) -> float:
    """The most the seat to move can net (its points minus the most another seat gets) with one
    placement completing a shape now; 0 when nothing worth it can be completed."""
    if state.finished is not None:
        return 0.0
    seat = state.turn
    occupied = state.occupied
    required = 0
    pieces = state.pieces_left[seat]
    targets = len(_TARGET_MASKS) if state.center_ring else len(SHAPE_MASKS)
    best = 0.0
    for index in range(targets):
        missing = _TARGET_MASKS[index] & ~occupied
        if not missing or missing.bit_count() > 3:
            continue
        if not required:
            required = required_mask(state)
        lowest = (missing & -missing).bit_length() - 1
        for piece, mask in _CONTAINING[lowest]:
            if (
                mask & missing != missing
                or mask & occupied
                or not mask & required
                or not pieces[piece]
            ):
                continue
            covered = list(state.covered)
            covered[seat] |= mask
            points = [0] * state.seats
            for completion in completions(covered, mask, seat, center_ring=state.center_ring):
                for who, gained in completion.awards:
                    points[who] += gained
            value = points[seat] - max(p for s, p in enumerate(points) if s != seat)
            best = max(best, value)
    return best


def _final_value(state: GameState, seat: int) -> float:
    outcome = RULES.outcome(state)
    assert outcome is not None
    scores = outcome.scores
    diff = scores[seat] - max(s for who, s in enumerate(scores) if who != seat)
    if seat in outcome.winners:
        return diff + (WIN if len(outcome.winners) == 1 else WIN / 2)
    return diff - WIN


def _majority_gain(before: GameState, after: GameState, move: Placement, seat: int) -> float:
    value = 0.0
    occupied = after.occupied
    for index in shapes_hit(move.mask):
        mask = SHAPE_MASKS[index]
        if occupied & mask == mask:
            continue  # completed now: already counted as points
        if majority(after.covered, mask) == seat and majority(before.covered, mask) != seat:
            value += MAJORITY_WEIGHT
    return value


def greedy_value(state: GameState, move: Placement, after: GameState | None = None) -> float:
    """The ``normal`` player's value of `move` for the seat making it (see the module docstring)."""
    seat = state.turn
    if after is None:
        after = RULES.advance(state, move)
    if after.finished is not None:
        return _final_value(after, seat)
    value = _gains(state.scores, after.scores, seat)
    if after.round != state.round:
        return value  # a new round of a long game: the board is empty again
    if after.turn == seat:
        value += EXTRA_TURN + STRIKE_WEIGHT * best_strike(after)
    else:
        value -= THREAT_WEIGHT * best_strike(after)
    value += PIECE_WEIGHT[move.piece]
    value += _majority_gain(state, after, move, seat)
    return value


def _greedy_best(
    state: GameState, moves: Sequence[Placement], rng: random.Random, budget: Budget
) -> Placement:
    """The ``normal`` choice among `moves`: of those valued before `budget` ran out, if it did."""
    best: tuple[float, float, Placement] | None = None
    for move in moves:
        try:
            budget.spend()
        except OutOfBudget:
            break
        item = (greedy_value(state, move), rng.random(), move)
        if best is None or item[:2] > best[:2]:
            best = item
    return moves[0] if best is None else best[2]


def choose_move(
    state: GameState,
    *,
    level: str,
    seed: int,
    budget_ms: int,
    clock: Callable[[], float] = time.perf_counter,
) -> Placement:
    """The placement the seat to move makes at `level` ("easy", "normal" or "hard"), within
    `budget_ms` milliseconds of `clock` (seconds, as ``time.perf_counter``)."""
    moves = RULES.legal_moves(state)
    if not moves:
        raise ValueError("Nobody is to move: the game is over.")
    rng = random.Random(seed)
    if len(moves) == 1 and level in LEVELS:
        return moves[0]
    if level == "easy":
        return rng.choice(moves)
    if level not in LEVELS:
        raise ValueError(f"CirKis computer players are {', '.join(LEVELS)}, not {level!r}.")
    deadline = clock() + max(0, budget_ms) * SAFETY / 1000
    if level == "normal":
        budget = Budget(nodes=len(moves), deadline=deadline, clock=clock, every=CLOCK_EVERY)
        return _greedy_best(state, moves, rng, budget)
    nodes = max(MIN_NODES, budget_ms * NODES_PER_MS)
    budget = Budget(nodes=nodes, deadline=deadline, clock=clock, every=CLOCK_EVERY)
    return Search(state, budget, rng).best_move(state)
