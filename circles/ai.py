"""Computer players for Circles. Pure: no Django, no I/O, no clock, no global random.

`choose_move(state, level=..., seed=..., budget_ms=...)` is the `ComputerPlayer` the platform
calls. It is deterministic: the same state, level, seed and budget always give the same move.

Levels
------
* ``easy`` — the move that flips the most discs; a ``random.Random(seed)`` picks among equals.
* ``medium`` — negamax alpha-beta search 3 plies deep over a positional weight table (corners
  good, squares next to corners bad) plus mobility; finished games score by disc difference.
* ``hard`` — the same search 5 plies deep.

Searches deepen one ply at a time. `budget_ms` is turned into a node budget (``NODES_PER_MS``
nodes per millisecond, a cautious figure for a small server) rather than read off a clock, so a
move never depends on machine load; when the budget runs out mid-ply the deepest finished ply's
move is played. Equal moves are shuffled with the seed before searching, so the first best move
found — the one played — varies with the seed.
"""

from __future__ import annotations

import random
from typing import Final

from circles.rules import GameState, flip_mask, move_mask

LEVELS: Final = ("easy", "medium", "hard")
DEPTHS: Final[dict[str, int]] = {"medium": 3, "hard": 5}
NODES_PER_MS: Final = 100
MIN_NODES: Final = 2_000

# fmt: off
WEIGHTS: Final[tuple[int, ...]] = (
    100, -20,  10,   5,   5,  10, -20, 100,
    -20, -50,  -2,  -2,  -2,  -2, -50, -20,
     10,  -2,   1,   1,   1,   1,  -2,  10,
      5,  -2,   1,   0,   0,   1,  -2,   5,
      5,  -2,   1,   0,   0,   1,  -2,   5,
     10,  -2,   1,   1,   1,   1,  -2,  10,
    -20, -50,  -2,  -2,  -2,  -2, -50, -20,
    100, -20,  10,   5,   5,  10, -20, 100,
)
# fmt: on
"""Positional value of a disc on each square (reading order, a1 first)."""

MOBILITY: Final = 5
"""Value of each legal move the side has more than its opponent."""

WIN: Final = 10_000
"""Value of each disc of margin in a finished game: more than any position can be worth."""

_GROUPS: Final[tuple[tuple[int, int], ...]] = tuple(
    (weight, sum(1 << square for square in range(64) if WEIGHTS[square] == weight))
    for weight in sorted(set(WEIGHTS), reverse=True)
)
"""(weight, mask of the squares with that weight), best squares first."""

_INFINITY: Final = 1 << 40


class _OutOfBudget(Exception):
    pass


class _Search:
    __slots__ = ("limit", "nodes")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.nodes = 0


def choose_move(state: GameState, *, level: str, seed: int, budget_ms: int) -> int:
    """The square the computer at `level` plays in `state` (the seat to move's move)."""
    position = state.position
    squares = position.legal_squares()
    if not squares:
        raise ValueError("There is no move to choose: the game is over.")
    if level not in LEVELS:
        raise ValueError(f"Circles computer levels are {', '.join(LEVELS)}, not {level!r}.")
    rng = random.Random(seed)
    if level == "easy":
        return _most_flips(state, squares, rng)
    if len(squares) == 1:
        return squares[0]
    rng.shuffle(squares)
    squares.sort(key=lambda square: -WEIGHTS[square])  # stable: equal squares stay shuffled
    limit = max(MIN_NODES, budget_ms * NODES_PER_MS)
    return _deepening(position.own, position.opponent, squares, DEPTHS[level], _Search(limit))


def _most_flips(state: GameState, squares: list[int], rng: random.Random) -> int:
    position = state.position
    own, opp = position.own, position.opponent
    flips = {square: flip_mask(square, own, opp).bit_count() for square in squares}
    most = max(flips.values())
    return rng.choice([square for square in squares if flips[square] == most])


def evaluate(own: int, opp: int) -> int:
    """The static value of a position for the side owning `own`, which is to move."""
    own_moves = move_mask(own, opp)
    opp_moves = move_mask(opp, own)
    if not own_moves and not opp_moves:
        return _final(own, opp)
    return _evaluate(own, opp, own_moves)


def _final(own: int, opp: int) -> int:
    return (own.bit_count() - opp.bit_count()) * WIN


def _evaluate(own: int, opp: int, own_moves: int) -> int:
    score = 0
    for weight, mask in _GROUPS:
        score += weight * ((own & mask).bit_count() - (opp & mask).bit_count())
    return score + MOBILITY * (own_moves.bit_count() - move_mask(opp, own).bit_count())


def _ordered(moves: int) -> list[int]:
    """The squares of `moves`, best-weighted first (a cheap ordering for alpha-beta)."""
    squares: list[int] = []
    for _weight, mask in _GROUPS:
        group = moves & mask
        while group:
            low = group & -group
            squares.append(low.bit_length() - 1)
            group ^= low
    return squares


def _deepening(own: int, opp: int, squares: list[int], depth: int, search: _Search) -> int:
    best = squares[0]
    for ply in range(1, depth + 1):
        try:
            best = _root(own, opp, squares, ply, search)
        except _OutOfBudget:
            break
        squares = [best, *(square for square in squares if square != best)]
    return best


def _root(own: int, opp: int, squares: list[int], depth: int, search: _Search) -> int:
    alpha = -_INFINITY
    best = squares[0]
    for square in squares:
        flips = flip_mask(square, own, opp)
        score = -_negamax(
            opp ^ flips, own | flips | (1 << square), depth - 1, -_INFINITY, -alpha, search
        )
        if score > alpha:
            alpha, best = score, square
    return best


def _negamax(own: int, opp: int, depth: int, alpha: int, beta: int, search: _Search) -> int:
    search.nodes += 1
    if search.nodes > search.limit:
        raise _OutOfBudget
    moves = move_mask(own, opp)
    if not moves:
        if not move_mask(opp, own):
            return _final(own, opp)
        return -_negamax(opp, own, depth, -beta, -alpha, search)  # a pass costs no depth
    if depth <= 0:
        return _evaluate(own, opp, moves)
    for square in _ordered(moves):
        flips = flip_mask(square, own, opp)
        score = -_negamax(
            opp ^ flips, own | flips | (1 << square), depth - 1, -beta, -alpha, search
        )
        if score > alpha:
            alpha = score
            if alpha >= beta:
                break
    return alpha
