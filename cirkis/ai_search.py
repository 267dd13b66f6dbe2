"""The ``hard`` CirKis player's search: a lean copy of the rules for speed, an evaluation, a search.

Pure Python, no Django, no I/O; the clock is read only through the `Budget` the caller passes.

The rules (`Node`, `Search.advance`)
------------------------------------
`cirkis.rules` builds a `GameState` with its events and completions for every placement, which is
most of the cost of a search. `Node` keeps only what the search needs (masks, piece counts, the
points, the seat to move, the Leader's mask, the free-turn and first-Sliver flags) and
`Search.advance` plays a placement on it by the same rules, with the placements touching each
Leader precomputed (`NEAR`): a move is a ``(piece index, mask)`` pair. A round's end is the end of
the search's horizon (`Node.ended`): a finished game is valued as won or lost, a long game's round
that hands over to the next by its points only. tests/cirkis/test_ai_search.py plays random games
on both and checks they agree.

The evaluation (`Search.evaluate`, from one seat's side; the others count as one opponent)
-------------------------------------------------------------------------------------------
* the points: the seat's minus the best other seat's;
* the strike: what the seat to move nets by completing a shape now (`Search.strike`), for it if
  it is the seat valued, against it otherwise. This covers shapes one segment (or two, three)
  short that the Leader's neighbourhood lets the next seat complete, and a free turn's follow-up;
* the majorities in shapes still open: a lead that the empty segments left cannot overturn is
  worth a fifth of the 10 (`SECURE_VALUE`), a smaller lead less (`MAJORITY_VALUE`). Kept small
  on purpose: open shapes are often never completed (most games end blocked), and weights of a
  third to a half of the points made the player hoard majorities and lose to ``normal``;
* in the endgame (a seat down to `ENDGAME_PIECES`), the pieces left (`END_PIECE_VALUE` each):
  fewer is a step towards going out (+10, and the game ends) and wins a tie on points; a free
  turn won or a turn the rival lost shows up here;
* a finished game scores `WIN` above (or below) everything.

The search (`Search.value`)
---------------------------
Paranoid alpha-beta: the root seat maximises, every other seat minimises; free turns are extra
plies of the same seat. At every node each legal move is played and valued from the mover's side
(the move ordering); the best `BEAM` (`ROOT_BEAM` at the root) are searched deeper; one ply from
the horizon every move's value is taken, with a cut-off as soon as it refutes the line. The
root deepens iteratively and plays the best move of the deepest search completed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from cirkis.board import (
    CENTER_RING_MASK,
    CENTER_STAR_MASK,
    FIELD_COUNT,
    PIECES,
    PLACEMENTS,
    TOUCH_MASKS,
)
from cirkis.rules import (
    PIECE_INDEX,
    PIECE_KEYS,
    PLACEMENT_TOUCH,
    GameState,
    Placement,
)
from cirkis.scoring import COMPLETION_BONUS, MAJORITY_POINTS, RING_POINTS, SHAPE_MASKS, shapes_hit
from cirkis.state import GO_OUT_BONUS, LONG_TARGET, SCORELESS_ROUNDS, TARGET

__all__ = [
    "BEAM",
    "ROOT_BEAM",
    "Budget",
    "Node",
    "OutOfBudget",
    "Search",
    "node_of",
    "placement_of",
]

WIN: Final = 1000.0
EXTRA_TURN: Final = 3.0
STRIKE_WEIGHT: Final = 0.8
SECURE_VALUE: Final = 0.2
"""Share of an open shape's points that a majority no empty segments can overturn is worth."""
MAJORITY_VALUE: Final = 0.1
"""Share of an open shape's points a lead of one per empty segment (plus one) is worth."""
END_PIECE_VALUE: Final = 1.5
"""What a piece fewer than the rival is worth once a seat is down to `ENDGAME_PIECES`."""
ENDGAME_PIECES: Final = 4
ROOT_BEAM: Final = 12
BEAM: Final = 6
MAX_DEPTH: Final = 12

SLIVER: Final = PIECE_INDEX["sliver"]
START_MASK: Final = CENTER_STAR_MASK | CENTER_RING_MASK
PIECE_COUNT: Final = len(PIECE_KEYS)

ALL_MOVES: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(p.mask for p in PLACEMENTS[key]) for key in PIECE_KEYS
)
"""Every placement's mask, by piece index."""
_BY_MOVE: Final[dict[tuple[int, int], Placement]] = {
    (PIECE_INDEX[key], p.mask): p for key in PIECE_KEYS for p in PLACEMENTS[key]
}
_CONTAINING: Final[tuple[tuple[tuple[int, int], ...], ...]] = tuple(
    tuple((index, mask) for index, masks in enumerate(ALL_MOVES) for mask in masks if mask >> f & 1)
    for f in range(FIELD_COUNT)
)
"""For each field: (piece index, mask) of every placement covering it."""
NEAR: Final[dict[int, tuple[tuple[int, ...], ...]]] = {
    mask: tuple(tuple(m for m in masks if m & touch) for masks in ALL_MOVES)
    for masks_ in ALL_MOVES
    for mask in masks_
    for touch in (PLACEMENT_TOUCH[mask],)
}
"""Placement mask -> by piece index, the masks of the placements touching it (the Leader's)."""
SHAPES_OF: Final[dict[int, tuple[int, ...]]] = {
    mask: tuple(SHAPE_MASKS[i] for i in shapes_hit(mask)) for masks in ALL_MOVES for mask in masks
}
"""Placement mask -> the masks of the Circles and Stars it covers a segment of."""
PIECE_EASE: Final[tuple[float, ...]] = tuple(
    0.5 * len(PIECES[key].field_kinds) + 5.0 / len(PLACEMENTS[key]) for key in PIECE_KEYS
)
"""A small preference for playing pieces that are hard to place later: big ones, rare fits."""


def _touch_of(mask: int) -> int:
    result = 0
    while mask:
        low = mask & -mask
        result |= TOUCH_MASKS[low.bit_length() - 1]
        mask ^= low
    return result


class OutOfBudget(Exception):
    """The search ran out of positions or passed its deadline."""


class Budget:
    """Positions left to play and a deadline on `clock`, read every `every` positions."""

    __slots__ = ("clock", "deadline", "every", "nodes", "until_check")

    def __init__(
        self, *, nodes: int, deadline: float, clock: Callable[[], float], every: int
    ) -> None:
        self.nodes = nodes
        self.deadline = deadline
        self.clock = clock
        self.every = every
        self.until_check = every

    def spend(self) -> None:
        """Count one position; raise `OutOfBudget` past the count or the deadline."""
        if self.nodes <= 0:
            raise OutOfBudget
        self.nodes -= 1
        self.until_check -= 1
        if not self.until_check:
            self.until_check = self.every
            if self.clock() >= self.deadline:
                raise OutOfBudget


class Node:
    """A position as the search sees it (see the module docstring). Never mutated."""

    __slots__ = (
        "covered",
        "ended",
        "free",
        "leader",
        "near_all",
        "occupied",
        "pieces",
        "round_scores",
        "scores",
        "sliver",
        "turn",
    )

    def __init__(
        self,
        covered: tuple[int, ...],
        occupied: int,
        near_all: int,
        pieces: tuple[tuple[int, ...], ...],
        scores: tuple[int, ...],
        round_scores: tuple[int, ...],
        turn: int,
        leader: int,
        free: bool,
        sliver: bool,
        ended: bool,
    ) -> None:
        self.covered = covered
        self.occupied = occupied
        self.near_all = near_all  # every field touching a covered one (covered ones included)
        self.pieces = pieces
        self.scores = scores
        self.round_scores = round_scores
        self.turn = turn
        self.leader = leader  # the Leader's mask; 0 before the round's first piece
        self.free = free
        self.sliver = sliver  # the round's first Sliver has been played
        self.ended = ended  # the round (and with it the search's horizon) is over


def node_of(state: GameState) -> Node:
    """The search's view of `state`."""
    occupied = state.occupied
    return Node(
        covered=state.covered,
        occupied=occupied,
        near_all=_touch_of(occupied),
        pieces=state.pieces_left,
        scores=state.scores,
        round_scores=state.round_scores,
        turn=state.turn,
        leader=0 if state.leader is None else state.leader.mask,
        free=state.free_turn,
        sliver=state.first_sliver_played,
        ended=state.finished is not None,
    )


def placement_of(move: tuple[int, int]) -> Placement:
    """The `Placement` of a ``(piece index, mask)`` move."""
    return _BY_MOVE[move]


def _has_near(pieces: Sequence[int], occupied: int, near: Sequence[Sequence[int]]) -> bool:
    for index, masks in enumerate(near):
        if pieces[index]:
            for mask in masks:
                if not mask & occupied:
                    return True
    return False


def _has_any(pieces: Sequence[int], occupied: int, required: int) -> bool:
    for index, masks in enumerate(ALL_MOVES):
        if pieces[index]:
            for mask in masks:
                if not mask & occupied and mask & required:
                    return True
    return False


class Search:
    """One computer move's search from `state`, for the seat to move there."""

    def __init__(self, state: GameState, budget: Budget, rng: random.Random) -> None:
        self.root = state.turn
        self.seats = state.seats
        self.center_ring = state.center_ring
        self.long_game = state.long_game
        self.scoreless_rounds = state.scoreless_rounds
        self.targets: tuple[int, ...] = (
            (*SHAPE_MASKS, CENTER_RING_MASK) if state.center_ring else SHAPE_MASKS
        )
        self.budget = budget
        self.rng = rng
        self._strike_moves: dict[int, tuple[tuple[int, int], ...]] = {}

    # --- the rules ------------------------------------------------------------------------------

    def moves(self, node: Node) -> list[tuple[int, int]]:
        """Every legal ``(piece index, mask)`` of the seat to move, in `RULES.legal_moves` order."""
        pieces = node.pieces[node.turn]
        occupied = node.occupied
        moves: list[tuple[int, int]] = []
        if node.leader and not node.free:
            for index, masks in enumerate(NEAR[node.leader]):
                if pieces[index]:
                    moves.extend((index, m) for m in masks if not m & occupied)
            return moves
        required = START_MASK if not node.leader else node.near_all
        for index, masks in enumerate(ALL_MOVES):
            if pieces[index]:
                moves.extend((index, m) for m in masks if not m & occupied and m & required)
        return moves

    def _award(
        self, covered: Sequence[int], shape: int, seat: int, points: int, scores: list[int]
    ) -> None:
        counts = [(mask & shape).bit_count() for mask in covered]
        best = max(counts)
        holder = counts.index(best) if counts.count(best) == 1 else None
        if holder is not None:
            scores[holder] += points
        if holder != seat:
            scores[seat] += COMPLETION_BONUS

    def advance(self, node: Node, piece: int, mask: int) -> Node:
        """`node` after the seat to move places `mask` with piece `piece` (a legal move)."""
        seat = node.turn
        covered = list(node.covered)
        covered[seat] |= mask
        occupied = node.occupied | mask
        near_all = node.near_all | PLACEMENT_TOUCH[mask]
        pieces = list(node.pieces)
        mine = list(pieces[seat])
        mine[piece] -= 1
        pieces[seat] = mine_t = tuple(mine)
        gained = [0] * self.seats
        scored = False
        for shape in SHAPES_OF[mask]:
            if occupied & shape == shape:
                self._award(covered, shape, seat, MAJORITY_POINTS, gained)
                scored = True
        if (
            self.center_ring
            and mask & CENTER_RING_MASK
            and occupied & CENTER_RING_MASK == CENTER_RING_MASK
        ):
            self._award(covered, CENTER_RING_MASK, seat, RING_POINTS, gained)
            scored = True
        went_out = not any(mine_t)
        if went_out:
            gained[seat] += GO_OUT_BONUS
            scored = True
        if scored:
            scores = tuple(s + g for s, g in zip(node.scores, gained, strict=True))
            round_scores = tuple(s + g for s, g in zip(node.round_scores, gained, strict=True))
        else:
            scores, round_scores = node.scores, node.round_scores
        sliver = node.sliver or piece == SLIVER
        if went_out or max(round_scores) >= TARGET:
            return Node(
                tuple(covered), occupied, near_all, tuple(pieces), scores, round_scores,
                seat, mask, False, sliver, True,
            )  # fmt: skip
        touch = PLACEMENT_TOUCH[mask]
        if (
            not touch & ~occupied
            or (mask & CENTER_STAR_MASK and occupied & CENTER_STAR_MASK == CENTER_STAR_MASK)
            or (piece == SLIVER and not node.sliver)
        ) and _has_any(mine_t, occupied, near_all):
            return Node(
                tuple(covered), occupied, near_all, tuple(pieces), scores, round_scores,
                seat, mask, True, sliver, False,
            )  # fmt: skip
        near = NEAR[mask]
        seats = self.seats
        for step in range(1, seats + 1):
            nxt = (seat + step) % seats
            if _has_near(pieces[nxt], occupied, near):
                return Node(
                    tuple(covered), occupied, near_all, tuple(pieces), scores, round_scores,
                    nxt, mask, False, sliver, False,
                )  # fmt: skip
        return Node(
            tuple(covered), occupied, near_all, tuple(pieces), scores, round_scores,
            seat, mask, False, sliver, True,
        )  # fmt: skip

    def game_over(self, node: Node) -> bool:
        """Whether the round that `node` ended ends the game (`cirkis.rounds.end_round`)."""
        if not self.long_game or max(node.scores) >= LONG_TARGET:
            return True
        return max(node.round_scores) == 0 and self.scoreless_rounds + 1 >= SCORELESS_ROUNDS

    # --- the evaluation -------------------------------------------------------------------------

    def _final(self, node: Node, seat: int) -> float:
        scores = node.scores
        diff = scores[seat] - max(s for who, s in enumerate(scores) if who != seat)
        if not self.game_over(node):
            return diff  # a long game's round: the next one starts level on the board
        best = max(scores)
        tied = [who for who, s in enumerate(scores) if s == best]
        if len(tied) > 1:
            left = {who: sum(node.pieces[who]) for who in tied}
            most = max(left.values())
            tied = [who for who in tied if left[who] == most]
        if seat in tied:
            return diff + (WIN if len(tied) == 1 else WIN / 2)
        return diff - WIN

    def strike_moves(self, missing: int) -> tuple[tuple[int, int], ...]:
        """The placements covering every field of `missing` (the open part of a shape)."""
        found = self._strike_moves.get(missing)
        if found is None:
            lowest = (missing & -missing).bit_length() - 1
            found = tuple(
                (piece, mask) for piece, mask in _CONTAINING[lowest] if mask & missing == missing
            )
            self._strike_moves[missing] = found
        return found

    def strike(self, node: Node, open_parts: Sequence[int] | None = None) -> float:
        """The most the seat to move nets (its points minus the most another seat gets) with one
        placement completing a shape now; 0 when nothing worth it can be completed.

        `open_parts`: the empty fields of each shape three or fewer segments short, if known."""
        if open_parts is None:
            occupied = node.occupied
            open_parts = [
                missing
                for shape in self.targets
                if (missing := shape & ~occupied) and missing != shape and missing.bit_count() <= 3
            ]
        if not open_parts:
            return 0.0
        seat = node.turn
        occupied = node.occupied
        pieces = node.pieces[seat]
        if node.free:
            required = node.near_all
        elif node.leader:
            required = PLACEMENT_TOUCH[node.leader]
        else:
            required = START_MASK
        best = 0.0
        for missing in open_parts:
            for piece, mask in self.strike_moves(missing):
                if not pieces[piece] or mask & occupied or not mask & required:
                    continue
                covered = list(node.covered)
                covered[seat] |= mask
                now = occupied | mask
                gained = [0] * self.seats
                for hit in SHAPES_OF[mask]:
                    if now & hit == hit:
                        self._award(covered, hit, seat, MAJORITY_POINTS, gained)
                if (
                    self.center_ring
                    and mask & CENTER_RING_MASK
                    and now & CENTER_RING_MASK == CENTER_RING_MASK
                ):
                    self._award(covered, CENTER_RING_MASK, seat, RING_POINTS, gained)
                value = gained[seat] - max(g for who, g in enumerate(gained) if who != seat)
                if value > best:
                    best = value
        return best

    def evaluate(self, node: Node, seat: int) -> float:
        """The value of `node` for `seat` (see the module docstring)."""
        if node.ended:
            return self._final(node, seat)
        scores = node.scores
        covered = node.covered
        occupied = node.occupied
        mine_mask = covered[seat]
        two = self.seats == 2
        rival_mask = covered[1 - seat] if two else 0
        value = 0.0
        open_parts = []
        for shape in self.targets:
            part = occupied & shape
            if not part or part == shape:
                continue
            missing = shape ^ part
            left = missing.bit_count()
            if left <= 3:
                open_parts.append(missing)
            mine = (mine_mask & shape).bit_count()
            if two:
                other = (rival_mask & shape).bit_count()
            else:
                other = max((m & shape).bit_count() for who, m in enumerate(covered) if who != seat)
            lead = mine - other
            if lead:
                points = MAJORITY_POINTS if shape is not CENTER_RING_MASK else RING_POINTS
                margin = lead if lead > 0 else -lead
                share = SECURE_VALUE if margin > left else MAJORITY_VALUE * margin / (left + 1)
                value += points * share if lead > 0 else -points * share
        strike = STRIKE_WEIGHT * self.strike(node, open_parts)
        value += strike if node.turn == seat else -strike
        pieces = node.pieces
        mine_left = sum(pieces[seat])
        if two:
            value += scores[seat] - scores[1 - seat]
            other_left = sum(pieces[1 - seat])
        else:
            value += scores[seat] - max(s for who, s in enumerate(scores) if who != seat)
            other_left = min(sum(p) for who, p in enumerate(pieces) if who != seat)
        if min(mine_left, other_left) <= ENDGAME_PIECES:
            value += END_PIECE_VALUE * (other_left - mine_left)
        return value

    def order_value(self, before: Node, piece: int, mask: int, after: Node) -> float:
        """How good the move is for the seat making it: its side's value of the position after,
        a free turn's bonus, and a preference for pieces hard to place later."""
        seat = before.turn
        value = self.evaluate(after, seat)
        if after.ended:
            return value
        if after.turn == seat:
            value += EXTRA_TURN
        return value + PIECE_EASE[piece]

    # --- the search -----------------------------------------------------------------------------

    def children(self, node: Node) -> list[tuple[float, int, int, Node]]:
        """Every move of the seat to move, played and valued (`order_value`), best first."""
        scored = []
        spend = self.budget.spend
        for piece, mask in self.moves(node):
            spend()
            after = self.advance(node, piece, mask)
            scored.append((self.order_value(node, piece, mask, after), piece, mask, after))
        scored.sort(key=lambda item: item[0], reverse=True)
        return scored

    def value(self, node: Node, depth: int, alpha: float, beta: float) -> float:
        """The paranoid alpha-beta value of `node` for the root seat, `depth` plies ahead."""
        if depth == 0 or node.ended:
            return self.evaluate(node, self.root)
        maximising = node.turn == self.root
        best = -float("inf") if maximising else float("inf")
        if depth == 1:
            spend = self.budget.spend
            for piece, mask in self.moves(node):
                spend()
                value = self.evaluate(self.advance(node, piece, mask), self.root)
                if maximising:
                    if value > best:
                        best = value
                        if value >= beta:
                            break
                elif value < best:
                    best = value
                    if value <= alpha:
                        break
            return best
        for _, _, _, after in self.children(node)[:BEAM]:
            value = self.value(after, depth - 1, alpha, beta)
            if maximising:
                if value > best:
                    best = value
                    alpha = max(alpha, value)
            elif value < best:
                best = value
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best

    def best_move(self, state: GameState) -> Placement:
        """The move of the deepest search completed within the budget (see the module)."""
        node = node_of(state)
        moves = self.moves(node)
        ranked: list[tuple[float, float, int, int, Node]] = []
        try:
            for piece, mask in moves:
                self.budget.spend()
                after = self.advance(node, piece, mask)
                value = self.order_value(node, piece, mask, after)
                ranked.append((value, self.rng.random(), piece, mask, after))
        except OutOfBudget:
            if not ranked:
                return placement_of(moves[0])
        ranked.sort(key=lambda item: (item[0], item[1]), reverse=True)
        best = placement_of(ranked[0][2:4])
        if len(ranked) < len(moves):
            return best  # cut short while ordering the root: the best valued so far
        root = ranked[:ROOT_BEAM]
        for depth in range(1, MAX_DEPTH):
            try:
                alpha = -float("inf")
                chosen = root[0]
                values = []
                for item in root:
                    value = self.value(item[4], depth, alpha, float("inf"))
                    values.append((value, item))
                    if value > alpha:
                        alpha, chosen = value, item
            except OutOfBudget:
                break
            best = placement_of(chosen[2:4])
            # Search the best first next time: better cut-offs, the same answer.
            values.sort(key=lambda pair: pair[0], reverse=True)
            root = [item for _, item in values]
            if all(item[4].ended for item in root):
                break
        return best
