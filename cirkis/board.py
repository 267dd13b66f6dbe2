"""The CirKis board and piece set, loaded from the committed data files (pure Python, no geometry).

``board_data.json`` is generated from the construction in :mod:`cirkis.geometry` by
:mod:`cirkis.board_build` (``manage.py cirkis_board --write``; ``--check`` verifies it) and
``pieces.json`` describes the piece set. Importing this module only reads the two files.

Fields are numbered ring by ring from the centre, clockwise from twelve o'clock: 0-4 are the
Center Star, 5-14 the Center Ring, 155-164 the Sliver spaces. Sets of fields are also given as
bitmasks: Python ints with bit ``i`` set for field ``i``.

Field polygons are anticlockwise (+y up; flip y to draw in SVG). A kite's or dart's polygon starts
at its head (head, side, tail|notch, other side); a Sliver space's starts at the rim corner at the
tip of its outer star.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

FieldKind = Literal["kite", "dart", "sliver"]
ShapeKind = Literal["circle", "star"]
Point = tuple[float, float]

PACKAGE_DIR = Path(__file__).resolve().parent
BOARD_DATA_PATH = PACKAGE_DIR / "board_data.json"
PIECES_PATH = PACKAGE_DIR / "pieces.json"


@dataclass(frozen=True, slots=True)
class Field:
    """One space of the board."""

    id: int
    kind: FieldKind
    polygon: tuple[Point, ...]
    centroid: Point
    shape: int | None  # index into SHAPES of the Circle or Star this field is a segment of
    center_ring: bool
    edge_neighbours: tuple[int, ...]  # fields sharing an edge with this one
    point_neighbours: tuple[int, ...]  # fields sharing only a corner with this one
    edge_mask: int
    point_mask: int
    touch_mask: int  # edge_mask | point_mask: every field this one touches

    @property
    def mask(self) -> int:
        return 1 << self.id


@dataclass(frozen=True, slots=True)
class Shape:
    """A Circle (five kites around a common head) or a Star (five darts around a common head)."""

    index: int  # position in SHAPES: the circles first, then the stars
    kind: ShapeKind
    number: int  # position among the shapes of its kind
    head: Point
    fields: tuple[int, ...]
    mask: int
    central: bool  # True only for the Center Star


@dataclass(frozen=True, slots=True)
class PieceType:
    """A kind of piece in a player's set (see ``pieces.json``)."""

    key: str
    name: str
    per_set: int
    field_kinds: tuple[FieldKind, ...]
    connection: str  # how the fields connect, in words
    outline: tuple[tuple[int, str], ...]  # (corner angle, edge length) anticlockwise


@dataclass(frozen=True, slots=True)
class Placement:
    """One way to lay a piece on the board: the fields it covers (sorted) and their bitmask."""

    piece: str
    fields: tuple[int, ...]
    mask: int


def mask_of(field_ids: Iterable[int]) -> int:
    """The bitmask of a set of field ids."""
    mask = 0
    for i in field_ids:
        mask |= 1 << i
    return mask


def fields_of(mask: int) -> tuple[int, ...]:
    """The field ids set in a bitmask, ascending."""
    ids: list[int] = []
    while mask:
        low = mask & -mask
        ids.append(low.bit_length() - 1)
        mask ^= low
    return tuple(ids)


def _point(value: list[float]) -> Point:
    return (float(value[0]), float(value[1]))


def _load_fields(data: Mapping[str, Any], shape_of: Mapping[int, int]) -> tuple[Field, ...]:
    fields = []
    for raw in data["fields"]:
        edge, point = tuple(raw["edge"]), tuple(raw["point"])
        fields.append(
            Field(
                id=raw["id"],
                kind=raw["kind"],
                polygon=tuple(_point(p) for p in raw["polygon"]),
                centroid=_point(raw["centroid"]),
                shape=shape_of.get(raw["id"]),
                center_ring=raw["center_ring"],
                edge_neighbours=edge,
                point_neighbours=point,
                edge_mask=mask_of(edge),
                point_mask=mask_of(point),
                touch_mask=mask_of(edge) | mask_of(point),
            )
        )
    if [f.id for f in fields] != list(range(len(fields))):
        raise ValueError("board_data.json: field ids must be 0..n-1 in order")
    return tuple(fields)


def _load_shapes(data: Mapping[str, Any]) -> tuple[Shape, ...]:
    shapes: list[Shape] = []
    kinds: tuple[tuple[ShapeKind, str], ...] = (("circle", "circles"), ("star", "stars"))
    for kind, key in kinds:
        for number, raw in enumerate(data[key]):
            shapes.append(
                Shape(
                    index=len(shapes),
                    kind=kind,
                    number=number,
                    head=_point(raw["head"]),
                    fields=tuple(raw["fields"]),
                    mask=mask_of(raw["fields"]),
                    central=bool(raw.get("central", False)),
                )
            )
    return tuple(shapes)


def _load_pieces(data: Mapping[str, Any]) -> dict[str, PieceType]:
    return {
        raw["key"]: PieceType(
            key=raw["key"],
            name=raw["name"],
            per_set=raw["per_set"],
            field_kinds=tuple(raw["fields"]),
            connection=raw["connection"],
            outline=tuple((int(angle), str(length)) for angle, length in raw["outline"]),
        )
        for raw in data["pieces"]
    }


_DATA: dict[str, Any] = json.loads(BOARD_DATA_PATH.read_text(encoding="utf-8"))

RIM: tuple[Point, ...] = tuple(_point(p) for p in _DATA["rim"])
SHAPES: tuple[Shape, ...] = _load_shapes(_DATA)
CIRCLES: tuple[Shape, ...] = tuple(s for s in SHAPES if s.kind == "circle")
STARS: tuple[Shape, ...] = tuple(s for s in SHAPES if s.kind == "star")
FIELDS: tuple[Field, ...] = _load_fields(
    _DATA, {i: shape.index for shape in SHAPES for i in shape.fields}
)
FIELD_COUNT = len(FIELDS)
ALL_FIELDS_MASK = (1 << FIELD_COUNT) - 1

EDGE_MASKS: tuple[int, ...] = tuple(f.edge_mask for f in FIELDS)
POINT_MASKS: tuple[int, ...] = tuple(f.point_mask for f in FIELDS)
TOUCH_MASKS: tuple[int, ...] = tuple(f.touch_mask for f in FIELDS)

CENTER_STAR: Shape = next(s for s in STARS if s.central)
CENTER_STAR_MASK = CENTER_STAR.mask
CENTER_RING: tuple[int, ...] = tuple(_DATA["center_ring"])
CENTER_RING_MASK = mask_of(CENTER_RING)

PIECES: dict[str, PieceType] = _load_pieces(json.loads(PIECES_PATH.read_text(encoding="utf-8")))
if set(PIECES) != set(_DATA["placements"]):
    raise RuntimeError(
        "cirkis/board_data.json does not match cirkis/pieces.json: "
        "run `python manage.py cirkis_board --write`"
    )
PLACEMENTS: dict[str, tuple[Placement, ...]] = {
    key: tuple(Placement(key, tuple(ids), mask_of(ids)) for ids in _DATA["placements"][key])
    for key in PIECES
}
_PLACEMENT_INDEX: dict[tuple[str, tuple[int, ...]], Placement] = {
    (p.piece, p.fields): p for group in PLACEMENTS.values() for p in group
}

del _DATA


def placement(piece: str, field_ids: Iterable[int]) -> Placement | None:
    """The placement of ``piece`` covering exactly ``field_ids`` (any order), or None."""
    return _PLACEMENT_INDEX.get((piece, tuple(sorted(field_ids))))


def touching(mask: int) -> int:
    """Every field touching (by edge or corner) some field of ``mask``, excluding ``mask``."""
    result = 0
    for i in fields_of(mask):
        result |= TOUCH_MASKS[i]
    return result & ~mask
