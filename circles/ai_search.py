"""Circles computer players: the ``hard`` player's search and the exact endgame solver.

Everything works on raw ints (``own``/``opp`` bitboards of the side to move and the other side,
see `circles.rules`); nothing is allocated per node but small tuples for move ordering.

`Search` holds one search's state: node count, limits and two transposition tables, one for the
midgame search and one for the solver (dicts keyed by ``(own, opp)``, which says as much as
``(white, black, side to move)`` since Othello does not care which colour is which, holding
``(depth, bound, value, best move)``). A new `Search` starts with empty tables; they stop
growing at `TT_LIMIT` entries.

* `Search.think` — iterative-deepening principal-variation search (negamax alpha-beta, null
  windows after the first move) over `circles.ai_eval.evaluate` (``hard``) or another
  evaluation of the same signature given as `evaluate` (``expert``'s fitted one). Moves are
  ordered table move first, then by the opponent's mobility after the move (fewest first) and
  square priority; the opponent's moves computed for ordering are handed down so no node
  generates them twice. The last ply evaluates its children inline. A pass costs no depth.
* `Search.solve` — the exact disc difference (``own - opp`` at the end of perfect play) by the
  same kind of search, fastest-first ordering (fewest opponent replies) and the table while
  many squares are empty; from `SHALLOW_EMPTIES` down it loops over the empty squares
  themselves (no move generator), odd-parity quadrants first, and it plays out the last two
  squares without recursion.

Limits: `max_nodes` and a `deadline` (a value of `clock`, by default `time.perf_counter`;
the benchmarks may give a CPU clock) are checked every
`CHECK_EVERY` nodes; past either, `OutOfTime` is raised and the caller keeps the result of the
last finished iteration.
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter
from typing import Final

from circles.ai_eval import WIN, evaluate_with, final_score
from circles.rules import FULL, flip_mask, move_mask

INFINITY: Final = 1 << 30
CHECK_EVERY: Final = 256
TT_LIMIT: Final = 2_000_000
SHALLOW_EMPTIES: Final = 6
"""The solver loops over empty squares (no move generator, no table) at this many empties."""
SOLVER_TT_EMPTIES: Final = 7
"""The solver uses the transposition table from this many empties up."""

EXACT: Final = 0
LOWER: Final = 1
UPPER: Final = 2

# fmt: off
PRIORITY: Final[tuple[int, ...]] = (
    9, 1, 6, 5, 5, 6, 1, 9,
    1, 0, 3, 3, 3, 3, 0, 1,
    6, 3, 4, 4, 4, 4, 3, 6,
    5, 3, 4, 0, 0, 4, 3, 5,
    5, 3, 4, 0, 0, 4, 3, 5,
    6, 3, 4, 4, 4, 4, 3, 6,
    1, 0, 3, 3, 3, 3, 0, 1,
    9, 1, 6, 5, 5, 6, 1, 9,
)
# fmt: on
"""Square priority for move ordering: corners first, X- and C-squares last."""

PRIORITY_GROUPS: Final[tuple[int, ...]] = tuple(
    sum(1 << square for square in range(64) if PRIORITY[square] == level)
    for level in sorted(set(PRIORITY), reverse=True)
)
"""Masks of the squares of each priority, best first."""

QUADRANTS: Final[tuple[int, ...]] = (
    0x000000000F0F0F0F,
    0x00000000F0F0F0F0,
    0x0F0F0F0F00000000,
    0xF0F0F0F000000000,
)


class OutOfTime(Exception):
    """The search passed its deadline or node limit."""


class Search:
    """One search: limits, node count and transposition table (see module doc)."""

    __slots__ = (
        "clock",
        "deadline",
        "evaluate",
        "limit",
        "max_nodes",
        "nodes",
        "root_best",
        "solver_tt",
        "tt",
    )

    def __init__(
        self,
        *,
        deadline: float | None = None,
        max_nodes: int | None = None,
        clock: Callable[[], float] = perf_counter,
        evaluate: Callable[[int, int, int, int], int] = evaluate_with,
    ) -> None:
        self.clock = clock
        self.evaluate = evaluate
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.nodes = 0
        self.tt: dict[tuple[int, int], tuple[int, int, int, int]] = {}
        self.solver_tt: dict[tuple[int, int], tuple[int, int, int, int]] = {}
        self.root_best = -1
        self.limit = 0
        self._check()

    def _check(self) -> None:
        """Called when `nodes` reaches `limit`: raise past a limit, else set the next check."""
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            raise OutOfTime
        if self.deadline is not None and self.nodes and self.clock() >= self.deadline:
            raise OutOfTime
        limit = self.nodes + CHECK_EVERY
        if self.max_nodes is not None and self.max_nodes < limit:
            limit = self.max_nodes
        self.limit = limit

    def _store(
        self,
        tt: dict[tuple[int, int], tuple[int, int, int, int]],
        key: tuple[int, int],
        entry: tuple[int, int, int, int],
    ) -> None:
        if len(tt) < TT_LIMIT or key in tt:
            tt[key] = entry

    # --- midgame search ----------------------------------------------------------------------

    def root(
        self, own: int, opp: int, squares: list[int], depth: int, alpha: int, beta: int
    ) -> tuple[int, int, list[int]]:
        """One iteration at the root over `squares` in order: (value, best square, new order).

        The value is exact when it lies strictly inside (alpha, beta). The new order puts the
        best square first and keeps the others in their order.
        """
        best_value = -INFINITY
        best = squares[0]
        self.root_best = -1
        pvs = self._pvs
        for square in squares:
            flips = flip_mask(square, own, opp)
            child_own = opp ^ flips
            child_opp = own | flips | (1 << square)
            child_moves = move_mask(child_own, child_opp)
            low = alpha if alpha > best_value else best_value
            if best_value == -INFINITY:
                value = -pvs(child_own, child_opp, child_moves, depth - 1, -beta, -low)
            else:
                value = -pvs(child_own, child_opp, child_moves, depth - 1, -low - 1, -low)
                if low < value < beta:
                    value = -pvs(child_own, child_opp, child_moves, depth - 1, -beta, -value)
            if value > best_value:
                best_value, best = value, square
                self.root_best = square
                if value >= beta:
                    break
        return best_value, best, [best, *(square for square in squares if square != best)]

    def think(
        self,
        own: int,
        opp: int,
        squares: list[int],
        *,
        max_depth: int,
        progress: list[tuple[int, int, int]] | None = None,
    ) -> tuple[int, int, int]:
        """Iterative deepening from depth 1 up to `max_depth` (or until the game's end is seen).

        Returns (best square, its value, depth) of the deepest finished iteration; each finished
        iteration is also appended to `progress`. Depth 1 always finishes (limits are not
        checked); a later iteration cut off by a limit is dropped, unless its first move — the
        previous best — was searched and another move proved better, which is then played.
        """
        empties = (~(own | opp) & FULL).bit_count()
        best, value, done = squares[0], 0, 0
        for depth in range(1, max_depth + 1):
            saved_limit = self.limit
            if depth == 1:
                self.limit = INFINITY
            try:
                value, best, squares = self.root(own, opp, squares, depth, -INFINITY, INFINITY)
            except OutOfTime:
                if self.root_best not in (-1, squares[0]):
                    best = self.root_best  # proved better than the last iteration's best
                break
            finally:
                if depth == 1:
                    self.limit = saved_limit
            done = depth
            if progress is not None:
                progress.append((depth, best, value))
            if depth >= empties or abs(value) >= WIN:
                break  # everything to the end of the game is seen, or a forced result is known
        return best, value, done

    def _pvs(self, own: int, opp: int, moves: int, depth: int, alpha: int, beta: int) -> int:
        """Negamax value (fail-soft) of the side to move; `moves` is its move bitboard."""
        self.nodes += 1
        if self.nodes >= self.limit:
            self._check()
        if not moves:
            opp_moves = move_mask(opp, own)
            if not opp_moves:
                return final_score(own, opp)
            return -self._pvs(opp, own, opp_moves, depth, -beta, -alpha)
        if depth <= 0:
            return self.evaluate(own, opp, moves, move_mask(opp, own))
        if depth == 1:
            return self._last_ply(own, opp, moves, alpha, beta)

        key = (own, opp)
        entry = self.tt.get(key)
        tt_move = -1
        if entry is not None:
            entry_depth, bound, entry_value, tt_move = entry
            if entry_depth == depth:
                if bound == EXACT:
                    return entry_value
                if bound == LOWER:
                    if entry_value >= beta:
                        return entry_value
                elif entry_value <= alpha:
                    return entry_value

        children = _ordered_children(own, opp, moves, tt_move)

        pvs = self._pvs
        best_value = -INFINITY
        best = -1
        original_alpha = alpha
        for _order, square, child_own, child_opp, child_moves in children:
            if best_value == -INFINITY:
                value = -pvs(child_own, child_opp, child_moves, depth - 1, -beta, -alpha)
            else:
                value = -pvs(child_own, child_opp, child_moves, depth - 1, -alpha - 1, -alpha)
                if alpha < value < beta:
                    value = -pvs(child_own, child_opp, child_moves, depth - 1, -beta, -value)
            if value > best_value:
                best_value, best = value, square
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        break
        if best_value >= beta:
            bound = LOWER
        elif best_value <= original_alpha:
            bound = UPPER
        else:
            bound = EXACT
        self._store(self.tt, key, (depth, bound, best_value, best))
        return best_value

    def _last_ply(self, own: int, opp: int, moves: int, alpha: int, beta: int) -> int:
        """Depth 1: each child is evaluated in place (with the same pass rule as `_pvs`)."""
        best_value = -INFINITY
        evaluate = self.evaluate
        count = 1  # this node and each child evaluated
        for mask in PRIORITY_GROUPS:
            group = moves & mask
            while group:
                bit = group & -group
                group ^= bit
                flips = flip_mask(bit.bit_length() - 1, own, opp)
                child_own = opp ^ flips
                child_opp = own | flips | bit
                child_moves = move_mask(child_own, child_opp)
                reply_moves = move_mask(child_opp, child_own)
                if child_moves:
                    value = -evaluate(child_own, child_opp, child_moves, reply_moves)
                elif reply_moves:  # the opponent passes back to us
                    value = evaluate(child_opp, child_own, reply_moves, 0)
                else:
                    value = final_score(child_opp, child_own)
                if value > best_value:
                    best_value = value
                    if value >= beta:
                        self.nodes += count
                        return value
                count += 1
        self.nodes += count
        return best_value

    # --- exact endgame solver ----------------------------------------------------------------

    def solve_root(
        self, own: int, opp: int, squares: list[int], alpha: int, beta: int
    ) -> tuple[int, int]:
        """(value, best square) of the exact solve at the root over `squares` in order.

        The value is the exact disc difference when strictly inside (alpha, beta), otherwise
        a bound on it (and the square one that reaches the bound).
        """
        empties = (~(own | opp) & FULL).bit_count()
        solve = self._solve
        best_value = -INFINITY
        best = squares[0]
        for square in squares:
            flips = flip_mask(square, own, opp)
            child_own = opp ^ flips
            child_opp = own | flips | (1 << square)
            child_moves = move_mask(child_own, child_opp)
            low = alpha if alpha > best_value else best_value
            if best_value == -INFINITY:
                value = -solve(child_own, child_opp, child_moves, -beta, -low, empties - 1)
            else:
                value = -solve(child_own, child_opp, child_moves, -low - 1, -low, empties - 1)
                if low < value < beta:
                    value = -solve(child_own, child_opp, child_moves, -beta, -value, empties - 1)
            if value > best_value:
                best_value, best = value, square
                if value >= beta:
                    break
        return best_value, best

    def solve(self, own: int, opp: int, alpha: int = -65, beta: int = 65) -> int:
        """The exact final disc difference (``own - opp``) with perfect play, fail-soft in
        (alpha, beta): exact when strictly inside, a bound otherwise."""
        empties = (~(own | opp) & FULL).bit_count()
        return self._solve(own, opp, move_mask(own, opp), alpha, beta, empties)

    def _solve(self, own: int, opp: int, moves: int, alpha: int, beta: int, empties: int) -> int:
        if empties <= SHALLOW_EMPTIES:
            return self._solve_shallow(own, opp, alpha, beta, ~(own | opp) & FULL, empties, False)
        self.nodes += 1
        if self.nodes >= self.limit:
            self._check()
        if not moves:
            opp_moves = move_mask(opp, own)
            if not opp_moves:
                return own.bit_count() - opp.bit_count()
            return -self._solve(opp, own, opp_moves, -beta, -alpha, empties)

        use_tt = empties >= SOLVER_TT_EMPTIES
        tt_move = -1
        if use_tt:
            key = (own, opp)
            entry = self.solver_tt.get(key)
            if entry is not None:
                _depth, bound, entry_value, tt_move = entry
                if bound == EXACT:
                    return entry_value
                if bound == LOWER:
                    if entry_value >= beta:
                        return entry_value
                elif entry_value <= alpha:
                    return entry_value

        children = _ordered_children(own, opp, moves, tt_move)

        solve = self._solve
        best_value = -INFINITY
        best = -1
        original_alpha = alpha
        empties -= 1
        for _order, square, child_own, child_opp, child_moves in children:
            if best_value == -INFINITY:
                value = -solve(child_own, child_opp, child_moves, -beta, -alpha, empties)
            else:
                value = -solve(child_own, child_opp, child_moves, -alpha - 1, -alpha, empties)
                if alpha < value < beta:
                    value = -solve(child_own, child_opp, child_moves, -beta, -value, empties)
            if value > best_value:
                best_value, best = value, square
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        break
        if use_tt:
            if best_value >= beta:
                bound = LOWER
            elif best_value <= original_alpha:
                bound = UPPER
            else:
                bound = EXACT
            self._store(self.solver_tt, key, (empties + 1, bound, best_value, best))
        return best_value

    def _solve_shallow(
        self, own: int, opp: int, alpha: int, beta: int, empty: int, empties: int, passed: bool
    ) -> int:
        """The solver's last plies: loop over the empty squares, odd quadrants first."""
        self.nodes += 1
        if self.nodes >= self.limit:
            self._check()
        if empties <= 2:
            if empties == 2:
                return _two_left(own, opp, empty, alpha, beta)
            return _last_square(own, opp, empty.bit_length() - 1)
        if empties > 3:
            odd = 0
            for quadrant in QUADRANTS:
                region = empty & quadrant
                if region.bit_count() & 1:
                    odd |= region
            groups: tuple[int, ...] = (odd, empty ^ odd)
        else:
            groups = (empty,)
        best_value = -INFINITY
        solve = self._solve_shallow
        for group in groups:
            while group:
                bit = group & -group
                group ^= bit
                flips = flip_mask(bit.bit_length() - 1, own, opp)
                if not flips:
                    continue
                value = -solve(
                    opp ^ flips, own | flips | bit, -beta, -alpha, empty ^ bit, empties - 1, False
                )
                if value > best_value:
                    best_value = value
                    if value > alpha:
                        alpha = value
                        if value >= beta:
                            return value
        if best_value == -INFINITY:
            if passed:  # neither side can move: the game is over
                return own.bit_count() - opp.bit_count()
            return -solve(opp, own, -beta, -alpha, empty, empties, True)
        return best_value


def _ordered_children(
    own: int, opp: int, moves: int, tt_move: int
) -> list[tuple[int, int, int, int, int]]:
    """(order, square, child own, child opp, child moves) for each move, best-first.

    The table's move comes first, then the moves that leave the opponent the fewest replies,
    then by square priority.
    """
    children = []
    append = children.append
    remaining = moves
    while remaining:
        bit = remaining & -remaining
        remaining ^= bit
        square = bit.bit_length() - 1
        flips = flip_mask(square, own, opp)
        child_own = opp ^ flips
        child_opp = own | flips | bit
        child_moves = move_mask(child_own, child_opp)
        order = -1000 if square == tt_move else child_moves.bit_count() * 16 - PRIORITY[square]
        append((order, square, child_own, child_opp, child_moves))
    children.sort()
    return children


def _last_square(own: int, opp: int, square: int) -> int:
    """The final disc difference for the side to move with one empty `square` left."""
    flips = flip_mask(square, own, opp)
    if flips:
        return 2 * (own.bit_count() + flips.bit_count()) - 62
    flips = flip_mask(square, opp, own)
    if flips:
        return 62 - 2 * (opp.bit_count() + flips.bit_count())
    return own.bit_count() - opp.bit_count()


def _two_left(own: int, opp: int, empty: int, alpha: int, beta: int) -> int:
    """The final disc difference (fail-soft) for the side to move with two empty squares."""
    first = empty & -empty
    second = empty ^ first
    a = first.bit_length() - 1
    b = second.bit_length() - 1
    best_value = -INFINITY
    flips = flip_mask(a, own, opp)
    if flips:
        best_value = -_last_square(opp ^ flips, own | flips | first, b)
        if best_value >= beta:
            return best_value
    flips = flip_mask(b, own, opp)
    if flips:
        value = -_last_square(opp ^ flips, own | flips | second, a)
        if value > best_value:
            best_value = value
    if best_value != -INFINITY:
        return best_value
    # we must pass: the opponent chooses between the two squares (or nobody can move)
    flips = flip_mask(a, opp, own)
    if flips:
        best_value = _last_square(own ^ flips, opp | flips | first, b)
    flips = flip_mask(b, opp, own)
    if flips:
        value = _last_square(own ^ flips, opp | flips | second, a)
        if best_value == -INFINITY or value < best_value:
            best_value = value
    if best_value == -INFINITY:
        return own.bit_count() - opp.bit_count()
    return best_value
