"""A classic Othello engine for Circles, the baseline the computer levels are measured against.

Written apart from ``circles/ai*.py`` (it shares only ``circles.rules``' move generator and flip
mask), the way the literature's first strong programs played:

* **Search**: negascout (principal-variation search) to a fixed depth (default 10 plies), with
  iterative deepening for move ordering, a transposition table (``(own, opp)`` -> depth, bound,
  value, best move) and, below the table move, moves by square weight. A pass costs no depth.
* **Evaluation** (the textbook one: square weights, mobility, corners): the Kukreja/"disc
  squares" table, a mobility ratio ``100 * (mine - theirs) / (mine + theirs)``, corners held and
  the squares next to empty corners.
* **Endgame**: from `exact_empties` (default 18) empty squares, an exact solve of the final disc
  margin (alpha-beta, fastest-first: the move leaving the opponent the fewest replies first).

Not a product level: it has no clock, so it thinks as long as its depth takes. `nodes` counts
the positions it visited, for the harness to report.
"""

from __future__ import annotations

from typing import Final

from circles.rules import FULL, flip_mask, move_mask

# fmt: off
SQUARE_WEIGHTS: Final[tuple[int, ...]] = (
    20, -3, 11,  8,  8, 11, -3, 20,
    -3, -7, -4,  1,  1, -4, -7, -3,
    11, -4,  2,  2,  2,  2, -4, 11,
     8,  1,  2, -3, -3,  2,  1,  8,
     8,  1,  2, -3, -3,  2,  1,  8,
    11, -4,  2,  2,  2,  2, -4, 11,
    -3, -7, -4,  1,  1, -4, -7, -3,
    20, -3, 11,  8,  8, 11, -3, 20,
)
# fmt: on
_GROUPS: Final = tuple(
    (weight, sum(1 << square for square in range(64) if SQUARE_WEIGHTS[square] == weight))
    for weight in sorted(set(SQUARE_WEIGHTS), reverse=True)
)
_CORNERS: Final = (0, 7, 56, 63)
_CORNER_MASK: Final = sum(1 << corner for corner in _CORNERS)
_NEXT_TO_CORNER: Final = {
    0: (1 << 1) | (1 << 8) | (1 << 9),
    7: (1 << 6) | (1 << 15) | (1 << 14),
    56: (1 << 57) | (1 << 48) | (1 << 49),
    63: (1 << 62) | (1 << 55) | (1 << 54),
}
_INFINITY: Final = 1 << 30
_WIN: Final = 1 << 20
EXACT, LOWER, UPPER = 0, 1, 2


def evaluate(own: int, opp: int) -> int:
    """Square weights, mobility and corners for the side owning `own` (textbook weights)."""
    squares = 0
    for weight, mask in _GROUPS:
        squares += weight * ((own & mask).bit_count() - (opp & mask).bit_count())
    mine = move_mask(own, opp).bit_count()
    theirs = move_mask(opp, own).bit_count()
    mobility = 100 * (mine - theirs) // (mine + theirs) if mine + theirs else 0
    corners = 25 * ((own & _CORNER_MASK).bit_count() - (opp & _CORNER_MASK).bit_count())
    close = 0
    empty = ~(own | opp)
    for corner in _CORNERS:
        if empty >> corner & 1:
            near = _NEXT_TO_CORNER[corner]
            close += (opp & near).bit_count() - (own & near).bit_count()
    return 10 * squares + 79 * mobility + 801 * corners + 382 * close // 4


def squares_low_first(bits: int) -> list[int]:
    """The squares of `bits`, lowest first (the order the searches and self-play draw from)."""
    squares = []
    while bits:
        low = bits & -bits
        squares.append(low.bit_length() - 1)
        bits ^= low
    return squares


class ClassicEngine:
    """Negascout to `depth` plies, exact from `exact_empties` empties (see the module)."""

    def __init__(self, *, depth: int = 10, exact_empties: int = 18) -> None:
        self.depth = depth
        self.exact_empties = exact_empties
        self.nodes = 0
        self.tt: dict[tuple[int, int], tuple[int, int, int, int]] = {}

    def choose(self, own: int, opp: int) -> int:
        """The square to play for the side owning `own` (it must have a move)."""
        moves = move_mask(own, opp)
        if not moves:
            raise ValueError("no legal move")
        self.tt = {}
        if moves & (moves - 1) == 0:
            return moves.bit_length() - 1
        empties = (~(own | opp) & FULL).bit_count()
        if empties <= self.exact_empties:
            return self._root(own, opp, lambda o, p, a, b: -self.solve(o, p, -b, -a), None)
        best = -1
        for depth in range(1, self.depth + 1):
            best = self._root(
                own, opp, lambda o, p, a, b, d=depth: -self.search(o, p, d - 1, -b, -a), best
            )
        return best

    def _root(self, own: int, opp: int, child_value, first: int | None) -> int:
        squares = sorted(squares_low_first(move_mask(own, opp)), key=lambda s: -SQUARE_WEIGHTS[s])
        if first is not None and first in squares:
            squares.remove(first)
            squares.insert(0, first)
        alpha, best = -_INFINITY, squares[0]
        for index, square in enumerate(squares):
            flips = flip_mask(square, own, opp)
            child_own, child_opp = opp ^ flips, own | flips | (1 << square)
            if index == 0:
                value = child_value(child_own, child_opp, alpha, _INFINITY)
            else:
                value = child_value(child_own, child_opp, alpha, alpha + 1)
                if value > alpha:
                    value = child_value(child_own, child_opp, alpha, _INFINITY)
            if value > alpha:
                alpha, best = value, square
        return best

    def search(self, own: int, opp: int, depth: int, alpha: int, beta: int) -> int:
        """Negascout value of the position for the side owning `own`, `depth` plies deep."""
        self.nodes += 1
        moves = move_mask(own, opp)
        if not moves:
            if not move_mask(opp, own):
                return _WIN * (own.bit_count() - opp.bit_count())
            return -self.search(opp, own, depth, -beta, -alpha)
        if depth <= 0:
            return evaluate(own, opp)
        key = (own, opp)
        entry = self.tt.get(key)
        tt_move = -1
        if entry is not None:
            entry_depth, bound, value, tt_move = entry
            if entry_depth >= depth and (
                bound == EXACT
                or (bound == LOWER and value >= beta)
                or (bound == UPPER and value <= alpha)
            ):
                return value
        squares = sorted(squares_low_first(moves), key=lambda s: -SQUARE_WEIGHTS[s])
        if tt_move in squares:
            squares.remove(tt_move)
            squares.insert(0, tt_move)
        original_alpha, best_value, best = alpha, -_INFINITY, squares[0]
        for index, square in enumerate(squares):
            flips = flip_mask(square, own, opp)
            child_own, child_opp = opp ^ flips, own | flips | (1 << square)
            if index == 0:
                value = -self.search(child_own, child_opp, depth - 1, -beta, -alpha)
            else:
                value = -self.search(child_own, child_opp, depth - 1, -alpha - 1, -alpha)
                if alpha < value < beta:
                    value = -self.search(child_own, child_opp, depth - 1, -beta, -value)
            if value > best_value:
                best_value, best = value, square
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        bound = LOWER if best_value >= beta else UPPER if best_value <= original_alpha else EXACT
        self.tt[key] = (depth, bound, best_value, best)
        return best_value

    def solve(self, own: int, opp: int, alpha: int, beta: int) -> int:
        """The exact final disc margin for the side owning `own` (fail-soft alpha-beta)."""
        self.nodes += 1
        moves = move_mask(own, opp)
        if not moves:
            if not move_mask(opp, own):
                return own.bit_count() - opp.bit_count()
            return -self.solve(opp, own, -beta, -alpha)
        empties = (~(own | opp) & FULL).bit_count()
        key = (own, opp)
        if empties > 6:
            entry = self.tt.get(key)
            if entry is not None:
                _depth, bound, value, _move = entry
                if (
                    bound == EXACT
                    or (bound == LOWER and value >= beta)
                    or (bound == UPPER and value <= alpha)
                ):
                    return value
        children = []
        for square in squares_low_first(moves):
            flips = flip_mask(square, own, opp)
            child_own, child_opp = opp ^ flips, own | flips | (1 << square)
            replies = move_mask(child_own, child_opp).bit_count() if empties > 5 else 0
            children.append((replies, -SQUARE_WEIGHTS[square], child_own, child_opp))
        children.sort()
        original_alpha, best_value = alpha, -_INFINITY
        for _replies, _weight, child_own, child_opp in children:
            value = -self.solve(child_own, child_opp, -beta, -alpha)
            if value > best_value:
                best_value = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        if empties > 6:
            bound = (
                LOWER if best_value >= beta else UPPER if best_value <= original_alpha else EXACT
            )
            self.tt[key] = (empties, bound, best_value, -1)
        return best_value
