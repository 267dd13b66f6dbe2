"""Circles computer players: the ``expert`` player's fitted evaluation.

The weights are data, ``circles/data/fitted.txt``, fitted by least squares on self-play games by
``bench/circles_fit.py`` (see that script and the file's header). They are read once, at import,
from the package (`importlib.resources`); the engine stays pure Python and this is its only I/O.

The model predicts the final disc margin for the side to move, in `SCALE` units per disc, from
the same kind of features as ``hard``'s hand-set `circles.ai_eval.evaluate`, with weights per
game phase (`phase_of`: by the number of empty squares):

* `SCALARS`: disc difference, mobility difference, corner moves difference, frontier difference,
  X-squares next to an empty corner (difference), and a term to the side to move — its
  ``bias`` plus ``parity`` (+1 with an odd number of empty squares, -1 with an even one);
* an **edge pattern table**: the value of each of the 3^8 configurations of an edge, shared by
  the four edges (each read from a corner, so a pattern and its reverse are the same class) and
  antisymmetric in the colours (a pattern with the colours swapped is worth minus as much: the
  side-to-move advantage is the bias and parity's alone). So the evaluation is the same under
  the board's eight symmetries, and ``e(own, opp) + e(opp, own)`` is twice the side-to-move
  term.

`fitted_evaluate_with` has `circles.ai_eval.evaluate_with`'s signature, so
`circles.ai_search.Search` takes it as its evaluation; finished games score
`circles.ai_eval.final_score` (`WIN` a disc), and an unfinished position's value is clamped
inside ``(-WIN, WIN)``, so the search's bounds and its "forced result" test stay as they are.
`features` is the model written out plainly (the fit script builds its rows from it; a test
checks that the fast evaluation agrees).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Final

from circles.ai_eval import CORNERS, WIN, final_score
from circles.rules import FULL, move_mask

__all__ = [
    "DATA_FILE",
    "PHASES",
    "SCALARS",
    "SCALE",
    "FittedModel",
    "edge_class",
    "edge_patterns",
    "features",
    "fitted_evaluate",
    "fitted_evaluate_with",
    "load_model",
    "parse_model",
    "phase_of",
]

DATA_FILE: Final = "data/fitted.txt"
SCALE: Final = 100
"""Evaluation units per disc of predicted margin."""
PHASES: Final = 10
PHASE_PLIES: Final = 6
SCALARS: Final = ("discs", "mobility", "corner_moves", "frontier", "x_squares")
"""The scalar features, in the data file's column order (after ``bias`` and ``parity``)."""

_NOT_A: Final = 0xFEFEFEFEFEFEFEFE
_NOT_H: Final = 0x7F7F7F7F7F7F7F7F
_FILE_A: Final = 0x0101010101010101
_FILE_TO_BYTE: Final = 0x0102040810204080
_LIMIT: Final = WIN - 1


def phase_of(empties: int) -> int:
    """The phase (0 = opening) of a position with `empties` empty squares."""
    return min(PHASES - 1, max(0, (60 - empties) // PHASE_PLIES))


def _pattern(a: int, b: int) -> str:
    return "".join("x" if a >> i & 1 else "o" if b >> i & 1 else "." for i in range(8))


@cache
def edge_class(a: int, b: int) -> tuple[str, int]:
    """(class, sign) of an edge: `a` the side to move's discs on it, `b` the other's (8 bits).

    The class is the smallest of the pattern, its reverse and their colour swaps (``x`` the side
    to move, ``o`` the other, ``.`` empty, the corner square first); the sign is -1 when only
    a colour swap reaches it, 0 when the pattern is its own colour swap (worth nothing).
    """
    pattern = _pattern(a, b)
    swapped = pattern.translate(str.maketrans("xo", "ox"))
    same = {pattern, pattern[::-1]}
    other = {swapped, swapped[::-1]}
    canon = min(same | other)
    if canon in same and canon in other:
        return canon, 0
    return canon, 1 if canon in same else -1


def edge_patterns(own: int, opp: int) -> tuple[tuple[int, int], ...]:
    """The four edges' (own bits, opp bits), each read from a corner (row 1, row 8, a, h)."""
    return (
        (own & 0xFF, opp & 0xFF),
        (own >> 56, opp >> 56),
        (
            (own & _FILE_A) * _FILE_TO_BYTE >> 56 & 0xFF,
            (opp & _FILE_A) * _FILE_TO_BYTE >> 56 & 0xFF,
        ),
        (
            (own >> 7 & _FILE_A) * _FILE_TO_BYTE >> 56 & 0xFF,
            (opp >> 7 & _FILE_A) * _FILE_TO_BYTE >> 56 & 0xFF,
        ),
    )


def _near_empty(empty: int) -> int:
    return (
        ((empty << 1 | empty << 9 | empty >> 7) & _NOT_A)
        | ((empty >> 1 | empty >> 9 | empty << 7) & _NOT_H)
        | empty << 8
        | empty >> 8
    ) & FULL


def _x_squares(empty: int) -> int:
    """The X-squares (b2, g2, b7, g7) whose corner is empty."""
    corners = empty & CORNERS
    return (
        (corners & 1) << 9
        | (corners & 0x80) << 7
        | (corners >> 7 & 0x0002000000000000)
        | (corners >> 9 & 0x0040000000000000)
    )


def features(own: int, opp: int) -> tuple[int, int, tuple[int, ...], list[tuple[str, int]]]:
    """The model's inputs: (empties, parity, scalars in `SCALARS` order, edges' (class, sign))."""
    own_moves = move_mask(own, opp)
    opp_moves = move_mask(opp, own)
    empty = ~(own | opp) & FULL
    empties = empty.bit_count()
    near = _near_empty(empty)
    x_squares = _x_squares(empty)
    scalars = (
        own.bit_count() - opp.bit_count(),
        own_moves.bit_count() - opp_moves.bit_count(),
        (own_moves & CORNERS).bit_count() - (opp_moves & CORNERS).bit_count(),
        (own & near).bit_count() - (opp & near).bit_count(),
        (own & x_squares).bit_count() - (opp & x_squares).bit_count(),
    )
    edges = [edge_class(a, b) for a, b in edge_patterns(own, opp)]
    return empties, 1 if empties & 1 else -1, scalars, edges


@dataclass(frozen=True)
class FittedModel:
    """The data file's contents: per phase the side-to-move terms, scalar weights, edge values."""

    header: tuple[str, ...]
    bias: tuple[int, ...]
    parity: tuple[int, ...]
    scalars: tuple[tuple[int, ...], ...]
    """Per phase, one weight per `SCALARS` entry."""
    edges: dict[str, tuple[int, ...]]
    """Edge class -> its value in each phase."""


def parse_model(text: str) -> FittedModel:
    """Read the data file's text (format: see `bench/circles_fit.py` and the file's header)."""
    header: list[str] = []
    phases: dict[int, tuple[int, int, tuple[int, ...]]] = {}
    edges: dict[str, tuple[int, ...]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            header.append(line)
            continue
        kind, *fields = line.split()
        if kind == "phase":
            index, bias, parity, *weights = (int(field) for field in fields)
            if len(weights) != len(SCALARS):
                raise ValueError(f"A phase line needs {len(SCALARS)} scalar weights: {line!r}")
            phases[index] = (bias, parity, tuple(weights))
        elif kind == "edge":
            pattern, *values = fields
            if len(pattern) != 8 or len(values) != PHASES or set(pattern) - set("xo."):
                raise ValueError(f"Bad edge line: {line!r}")
            a = sum(1 << i for i, c in enumerate(pattern) if c == "x")
            b = sum(1 << i for i, c in enumerate(pattern) if c == "o")
            if edge_class(a, b) != (pattern, 1):
                raise ValueError(f"An edge line must name its class's pattern: {line!r}")
            edges[pattern] = tuple(int(value) for value in values)
        else:
            raise ValueError(f"Unknown line in the fitted evaluation: {line!r}")
    if sorted(phases) != list(range(PHASES)):
        raise ValueError(f"The fitted evaluation needs phases 0-{PHASES - 1}, has {sorted(phases)}")
    return FittedModel(
        header=tuple(header),
        bias=tuple(phases[p][0] for p in range(PHASES)),
        parity=tuple(phases[p][1] for p in range(PHASES)),
        scalars=tuple(phases[p][2] for p in range(PHASES)),
        edges=edges,
    )


def load_model() -> FittedModel:
    """The packaged fitted evaluation."""
    return parse_model(files("circles").joinpath(DATA_FILE).read_text(encoding="utf-8"))


def _edge_tables(model: FittedModel) -> list[list[int]]:
    """Per phase: the edge value at index ``a | b << 8`` (0 where a and b overlap)."""
    tables = [[0] * 65536 for _ in range(PHASES)]
    interned: dict[int, int] = {}
    for a in range(256):
        rest = 255 & ~a
        b = rest
        while True:  # every b within rest, 0 included
            canon, sign = edge_class(a, b)
            values = model.edges.get(canon)
            if sign and values is not None:
                for phase in range(PHASES):
                    value = sign * values[phase]
                    tables[phase][a | b << 8] = interned.setdefault(value, value)
            if not b:
                break
            b = (b - 1) & rest
    return tables


MODEL: Final = load_model()
EDGE_TABLES: Final = _edge_tables(MODEL)
_BY_EMPTIES: Final = tuple(
    (
        EDGE_TABLES[phase_of(empties)],
        MODEL.bias[phase_of(empties)]
        + (MODEL.parity[phase_of(empties)] if empties & 1 else -MODEL.parity[phase_of(empties)]),
        *MODEL.scalars[phase_of(empties)],
    )
    for empties in range(65)
)
"""Per number of empty squares: (edge table, side-to-move term, the scalar weights)."""


def fitted_evaluate(own: int, opp: int) -> int:
    """The expert's static value of a position for the side to move (owning `own`)."""
    own_moves = move_mask(own, opp)
    opp_moves = move_mask(opp, own)
    if not own_moves and not opp_moves:
        return final_score(own, opp)
    return fitted_evaluate_with(own, opp, own_moves, opp_moves)


def fitted_evaluate_with(own: int, opp: int, own_moves: int, opp_moves: int) -> int:
    """`fitted_evaluate` for an unfinished game, given both sides' legal moves.

    The search calls it at every leaf: the frontier, the edges' indexes and the X-squares are
    written out here (as in `circles.ai_eval.evaluate_with`) rather than through `_near_empty`,
    `edge_patterns` and `_x_squares`, whose calls would cost a large share of an evaluation;
    `features` (what the fit reads) uses those, and a test holds the two to the same values."""
    empty = ~(own | opp) & FULL
    table, score, w_discs, w_mobility, w_corner, w_frontier, w_x = _BY_EMPTIES[empty.bit_count()]
    score += w_discs * (own.bit_count() - opp.bit_count())
    score += w_mobility * (own_moves.bit_count() - opp_moves.bit_count())
    score += w_corner * ((own_moves & CORNERS).bit_count() - (opp_moves & CORNERS).bit_count())
    near = (
        ((empty << 1 | empty << 9 | empty >> 7) & _NOT_A)
        | ((empty >> 1 | empty >> 9 | empty << 7) & _NOT_H)
        | empty << 8
        | empty >> 8
    )
    score += w_frontier * ((own & near).bit_count() - (opp & near).bit_count())
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
    corners = empty & CORNERS
    if corners:
        x_squares = (
            (corners & 1) << 9
            | (corners & 0x80) << 7
            | (corners >> 7 & 0x0002000000000000)
            | (corners >> 9 & 0x0040000000000000)
        )
        score += w_x * ((own & x_squares).bit_count() - (opp & x_squares).bit_count())
    if score >= WIN:
        return _LIMIT
    if score <= -WIN:
        return -_LIMIT
    return score
