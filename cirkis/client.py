"""The fixed data the CirKis page draws from (`GameKind.client_data`), embedded in every game page.

Everything is in SVG coordinates: x to the right, **y down** (the board data's y flipped), one
unit = a kite's short edge, the origin at the centre of the Center Star; numbers are rounded to
3 decimals. Nothing here depends on a game: the page gets each game's state from the server::

    {"rim": [[x, y], ...],                                   # the decagon, corner at the top
     "fields": [{"kind": "kite" | "dart" | "sliver", "points": [[x, y], ...],
                 "shape": "C3" | "S0" | null, "ring": bool}, ...],   # index = field id
     "shapes": [{"label": "C3", "kind": "circle", "name": "Circle C3", "head": [x, y],
                 "fields": [...], "outline": [[x, y], ...]}, ...],
     "center_ring": {"fields": [...], "outline": [[x, y], ...]},  # outline around ring + star
     "pieces": [{"key": "big_slice", "name": "Big Slice", "per_set": 3,
                 "icon": [[[x, y], ...], ...]}, ...]}                  # one polygon per field

Shape labels are the ones scoring uses (`cirkis.scoring.SHAPE_LABELS`). A piece's icon is one of
its placements on the board, moved to the origin and turned (in steps of 18°) to sit compactly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from cirkis.board import CENTER_RING, CENTER_STAR, FIELDS, PIECES, PLACEMENTS, RIM, SHAPES
from cirkis.geometry import union_outline
from cirkis.scoring import SHAPE_LABELS

__all__ = ["client_data"]

DIGITS = 3
Point = tuple[float, float]


def _xy(point: Point) -> list[float]:
    return [round(point[0], DIGITS) + 0.0, round(-point[1], DIGITS) + 0.0]


def _points(polygon: Iterable[Point]) -> list[list[float]]:
    return [_xy(p) for p in polygon]


def _outline(field_ids: Sequence[int]) -> list[list[float]]:
    outline = union_outline([FIELDS[i].polygon for i in field_ids])
    if outline is None:  # pragma: no cover - the board data tests rule this out
        raise ValueError(f"fields {list(field_ids)} do not form one simple polygon")
    return _points(outline)


def _shape_name(index: int) -> str:
    shape = SHAPES[index]
    if shape.central:
        return "Center Star"
    return f"{shape.kind.capitalize()} {SHAPE_LABELS[index]}"


def _turned(polygons: Sequence[Sequence[Point]], degrees: int) -> list[list[Point]]:
    angle = math.radians(degrees)
    cos, sin = math.cos(angle), math.sin(angle)
    return [[(x * cos - y * sin, x * sin + y * cos) for x, y in polygon] for polygon in polygons]


def _extent(polygons: Sequence[Sequence[Point]]) -> tuple[float, float, float, float]:
    xs = [x for polygon in polygons for x, _ in polygon]
    ys = [y for polygon in polygons for _, y in polygon]
    return min(xs), min(ys), max(xs), max(ys)


def _icon(piece: str) -> list[list[list[float]]]:
    """The piece's first placement, turned to the most compact (then widest, lowest) position."""
    polygons = [FIELDS[i].polygon for i in PLACEMENTS[piece][0].fields]

    def badness(degrees: int) -> tuple[float, float, float]:
        x0, y0, x1, y1 = _extent(_turned(polygons, degrees))
        return (round(max(x1 - x0, y1 - y0), 6), round(y1 - y0, 6), degrees)

    best = min(range(0, 360, 18), key=badness)
    turned = _turned(polygons, best)
    x0, y0, x1, y1 = _extent(turned)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return [_points((x - cx, y - cy) for x, y in polygon) for polygon in turned]


@cache
def client_data() -> dict[str, Any]:
    """The board, its shapes and the piece set, for drawing (see the module docstring)."""
    return {
        "rim": _points(RIM),
        "fields": [
            {
                "kind": field.kind,
                "points": _points(field.polygon),
                "shape": None if field.shape is None else SHAPE_LABELS[field.shape],
                "ring": field.center_ring,
            }
            for field in FIELDS
        ],
        "shapes": [
            {
                "label": SHAPE_LABELS[shape.index],
                "kind": shape.kind,
                "name": _shape_name(shape.index),
                "head": _xy(shape.head),
                "fields": list(shape.fields),
                "outline": _outline(shape.fields),
            }
            for shape in SHAPES
        ],
        "center_ring": {
            "fields": list(CENTER_RING),
            "outline": _outline([*CENTER_RING, *CENTER_STAR.fields]),
        },
        "pieces": [
            {"key": p.key, "name": p.name, "per_set": p.per_set, "icon": _icon(p.key)}
            for p in PIECES.values()
        ],
    }
