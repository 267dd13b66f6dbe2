"""Circles computer players: the static evaluations and their precomputed tables.

Pure Python on raw bitboards (see `circles.rules` for the square numbering: ``a1 = 0`` top left,
``h1 = 7``, ``a8 = 56``, ``h8 = 63``). Every function here takes ``own`` and ``opp``, the discs of
the side to move and of the other side, and scores the position for the side to move.

* `evaluate_simple` — the ``medium`` player's evaluation: a square-weight table plus mobility.
* `evaluate` — the ``hard`` player's evaluation, built from

  - **mobility**: legal moves of each side, and moves onto corners counted again;
  - **potential mobility**: frontier discs (discs next to an empty square) are a liability;
  - **edges and stability**: each of the four edges is looked up in a table indexed by its 16
    bits (8 squares, 2 colours). The table holds, for every edge configuration, the discs that
    no sequence of moves along that edge can ever flip (corner-anchored runs, full edges, …;
    an edge disc can only be flipped along its edge, so this is exact stability for edge discs),
    corners, and C-squares (``b1``, ``a2``, …) next to an empty corner;
  - **X-squares** (``b2``, ``g2``, ``b7``, ``g7``) next to an empty corner;
  - **parity**: with an odd number of empty squares the side to move expects the last move.

  Finished games are scored ``WIN`` per disc of margin, more than any heuristic value.
"""

from __future__ import annotations

from typing import Final

from circles.rules import move_mask

FULL: Final = (1 << 64) - 1
WIN: Final = 10_000
"""Value of each disc of margin in a finished game: more than any evaluation can reach."""

CORNERS: Final = (1 << 0) | (1 << 7) | (1 << 56) | (1 << 63)
_NOT_A: Final = 0xFEFEFEFEFEFEFEFE
"""Every column but a (for shifts towards higher columns)."""
_NOT_H: Final = 0x7F7F7F7F7F7F7F7F
"""Every column but h (for shifts towards lower columns)."""
_FILE_A: Final = 0x0101010101010101
_FILE_TO_BYTE: Final = 0x0102040810204080
"""``(x & _FILE_A) * _FILE_TO_BYTE >> 56 & 0xFF`` packs column a (a1 = bit 0 … a8 = bit 7)."""

# --- the medium player's evaluation ----------------------------------------------------------

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
"""`evaluate_simple`: value of each legal move the side has more than its opponent."""

WEIGHT_GROUPS: Final[tuple[tuple[int, int], ...]] = tuple(
    (weight, sum(1 << square for square in range(64) if WEIGHTS[square] == weight))
    for weight in sorted(set(WEIGHTS), reverse=True)
)
"""(weight, mask of the squares with that weight), best squares first: a cheap move order."""


def final_score(own: int, opp: int) -> int:
    """A finished game: `WIN` per disc of margin (empty squares belong to nobody)."""
    return (own.bit_count() - opp.bit_count()) * WIN


def evaluate_simple(own: int, opp: int) -> int:
    """The medium player's static value of a position for the side to move (owning `own`)."""
    own_moves = move_mask(own, opp)
    opp_moves = move_mask(opp, own)
    if not own_moves and not opp_moves:
        return final_score(own, opp)
    score = 0
    for weight, mask in WEIGHT_GROUPS:
        score += weight * ((own & mask).bit_count() - (opp & mask).bit_count())
    return score + MOBILITY * (own_moves.bit_count() - opp_moves.bit_count())


# --- the hard player's evaluation ------------------------------------------------------------

W_MOBILITY: Final = 24
"""Per legal move more than the opponent."""
W_CORNER_MOVE: Final = 40
"""Per move onto a corner more than the opponent (on top of its mobility)."""
W_FRONTIER: Final = 12
"""Per frontier disc fewer than the opponent."""
W_STABLE: Final = 45
"""Per stable edge disc (corners count on both their edges)."""
W_CORNER: Final = 110
"""Per corner (counted on both its edges, so twice)."""
W_C_SQUARE: Final = 55
"""Per C-square disc whose corner is empty (a penalty)."""
W_EDGE: Final = 4
"""Per edge disc that is not stable."""
W_X_SQUARE: Final = 150
"""Per X-square disc whose corner is empty (a penalty)."""
W_PARITY: Final = 20
"""To the side to move when the number of empty squares is odd."""


def _edge_flips(square: int, mover: int, other: int) -> int:
    """Along an 8-square line: the `other` discs a `mover` disc placed on `square` flips."""
    flips = 0
    for step in (1, -1):
        run = 0
        at = square + step
        while 0 <= at < 8 and other >> at & 1:
            run |= 1 << at
            at += step
        if run and 0 <= at < 8 and mover >> at & 1:
            flips |= run
    return flips


def _edge_stable_masks() -> dict[tuple[int, int], int]:
    """For every edge configuration (a, b) of two colours: the discs that can never change colour.

    An edge disc can only be flipped along its edge, and any empty edge square may one day be
    taken by either colour; so a disc is stable when, after every such move, it is unflipped
    and stable again. Solved from the fullest configurations down.
    """
    configs = [(a, b) for a in range(256) for b in range(256) if not a & b]
    configs.sort(key=lambda config: -(config[0] | config[1]).bit_count())
    stable: dict[tuple[int, int], int] = {}
    for a, b in configs:
        occupied = a | b
        mask = occupied
        for square in range(8):
            if occupied >> square & 1:
                continue
            bit = 1 << square
            flips = _edge_flips(square, a, b)
            mask &= stable[(a | flips | bit, b ^ flips)] & ~flips
            flips = _edge_flips(square, b, a)
            mask &= stable[(a ^ flips, b | flips | bit)] & ~flips
            if not mask:
                break
        stable[(a, b)] = mask & occupied
    return stable


def _edge_table() -> list[int]:
    """Value of an edge for the side owning `a`, at index ``a | b << 8`` (see module doc)."""
    table = [0] * 65536
    for (a, b), stable in _edge_stable_masks().items():
        value = W_STABLE * ((a & stable).bit_count() - (b & stable).bit_count())
        value += W_EDGE * ((a & ~stable).bit_count() - (b & ~stable).bit_count())
        value += W_CORNER * ((a & 0x81).bit_count() - (b & 0x81).bit_count())
        occupied = a | b
        for corner, c_square in ((0, 1), (7, 6)):
            if not occupied >> corner & 1:
                value -= W_C_SQUARE * ((a >> c_square & 1) - (b >> c_square & 1))
        table[a | b << 8] = value
    return table


EDGE_TABLE: Final[list[int]] = _edge_table()


def evaluate(own: int, opp: int) -> int:
    """The hard player's static value of a position for the side to move (owning `own`)."""
    own_moves = move_mask(own, opp)
    opp_moves = move_mask(opp, own)
    if not own_moves and not opp_moves:
        return final_score(own, opp)
    return evaluate_with(own, opp, own_moves, opp_moves)


def evaluate_with(own: int, opp: int, own_moves: int, opp_moves: int) -> int:
    """`evaluate` for an unfinished game, given both sides' legal moves."""
    empty = ~(own | opp) & FULL
    score = W_PARITY if empty.bit_count() & 1 else -W_PARITY
    score += W_MOBILITY * (own_moves.bit_count() - opp_moves.bit_count())
    score += W_CORNER_MOVE * ((own_moves & CORNERS).bit_count() - (opp_moves & CORNERS).bit_count())
    # frontier: discs next to an empty square
    near = (
        ((empty << 1 | empty << 9 | empty >> 7) & _NOT_A)
        | ((empty >> 1 | empty >> 9 | empty << 7) & _NOT_H)
        | empty << 8
        | empty >> 8
    )
    score += W_FRONTIER * ((opp & near).bit_count() - (own & near).bit_count())
    # edges
    table = EDGE_TABLE
    score += (
        table[(own & 0xFF) | (opp & 0xFF) << 8]
        + table[own >> 56 | (opp >> 56) << 8]
        + table[
            ((own & _FILE_A) * _FILE_TO_BYTE >> 56 & 0xFF)
            | ((opp & _FILE_A) * _FILE_TO_BYTE >> 48 & 0xFF00)
        ]
        + table[
            ((own >> 7 & _FILE_A) * _FILE_TO_BYTE >> 56 & 0xFF)
            | ((opp >> 7 & _FILE_A) * _FILE_TO_BYTE >> 48 & 0xFF00)
        ]
    )
    # X-squares next to an empty corner: b2 (a1), g2 (h1), b7 (a8), g7 (h8)
    corners = empty & CORNERS
    if corners:
        x_squares = (
            (corners & 1) << 9
            | (corners & 0x80) << 7
            | (corners >> 7 & 0x0002000000000000)
            | (corners >> 9 & 0x0040000000000000)
        )
        score += W_X_SQUARE * ((opp & x_squares).bit_count() - (own & x_squares).bit_count())
    return score
