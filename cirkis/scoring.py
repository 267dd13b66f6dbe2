"""Scoring completed shapes in CirKis (pure Python; used by `cirkis.rules` and `cirkis.ai`).

A Circle or Star is *completed* by the placement that covers its fifth segment. Then:

* the seat with strictly the most segments in the shape scores `MAJORITY_POINTS` (10); a tie for
  the most (2-2-1, ...) gives nobody the 10;
* the completer scores `COMPLETION_BONUS` (5) unless it is the seat that just took the shape's 10
  (never 15 for one shape).

With the Center Ring option, covering the last of the ten Center Ring kites scores the ring the
same way with `RING_POINTS` (15) for the majority and the same 5-point bonus for a different
completer. One placement can complete several shapes; each is scored on its own, in `SHAPES`
order (Circles ``C0``-``C9``, then Stars ``S0``-``S5``, ``S0`` being the Center Star), the ring
last.

Shapes are named by a label: ``"C<n>"`` for Circle n, ``"S<n>"`` for Star n, ``"R"`` for the Center
Ring.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from cirkis.board import CENTER_RING_MASK, FIELDS, PLACEMENTS, SHAPES

__all__ = [
    "COMPLETION_BONUS",
    "MAJORITY_POINTS",
    "RING_LABEL",
    "RING_POINTS",
    "SHAPE_LABELS",
    "SHAPE_MASKS",
    "Completion",
    "completions",
    "label_mask",
    "majority",
    "shapes_hit",
]

MAJORITY_POINTS: Final = 10
RING_POINTS: Final = 15
COMPLETION_BONUS: Final = 5

SHAPE_LABELS: Final[tuple[str, ...]] = tuple(
    f"{'C' if shape.kind == 'circle' else 'S'}{shape.number}" for shape in SHAPES
)
SHAPE_MASKS: Final[tuple[int, ...]] = tuple(shape.mask for shape in SHAPES)
RING_LABEL: Final = "R"
_LABEL_MASKS: Final[dict[str, int]] = {
    **dict(zip(SHAPE_LABELS, SHAPE_MASKS, strict=True)),
    RING_LABEL: CENTER_RING_MASK,
}


def _shapes_of(mask: int) -> tuple[int, ...]:
    found = {FIELDS[i].shape for i in range(len(FIELDS)) if mask >> i & 1}
    return tuple(sorted(index for index in found if index is not None))


_SHAPES_HIT: Final[dict[int, tuple[int, ...]]] = {
    p.mask: _shapes_of(p.mask) for group in PLACEMENTS.values() for p in group
}


def shapes_hit(mask: int) -> tuple[int, ...]:
    """Indices into `SHAPES` of the Circles and Stars that share a field with `mask`."""
    hit = _SHAPES_HIT.get(mask)
    return _shapes_of(mask) if hit is None else hit


def label_mask(label: str) -> int:
    """The fields of the shape called `label` (``"C3"``, ``"S0"``, ``"R"``); KeyError if none."""
    return _LABEL_MASKS[label]


def majority(covered: Sequence[int], mask: int) -> int | None:
    """The seat with strictly the most fields of `mask` covered, or None on a tie for the most."""
    counts = [(seat_mask & mask).bit_count() for seat_mask in covered]
    best = max(counts)
    if best == 0 or counts.count(best) > 1:
        return None
    return counts.index(best)


@dataclass(frozen=True, slots=True)
class Completion:
    """One shape completed by one placement: who completed it, who held the majority, the points.

    `awards` is ``((seat, points), ...)`` sorted by seat; seats that scored nothing are left out.
    """

    shape: str
    by: int
    majority: int | None
    awards: tuple[tuple[int, int], ...]

    def points_for(self, seat: int) -> int:
        return sum(points for who, points in self.awards if who == seat)

    def to_json(self) -> dict[str, Any]:
        """``{"shape": "C3", "by": 0, "majority": 1, "scores": {"0": 5, "1": 10}}``.

        The keys of ``scores`` are seat numbers as strings (JSON object keys are strings).
        """
        return {
            "shape": self.shape,
            "by": self.by,
            "majority": self.majority,
            "scores": {str(seat): points for seat, points in self.awards},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Completion:
        shape = str(data["shape"])
        label_mask(shape)  # raises KeyError on an unknown shape
        held = data.get("majority")
        awards = tuple(sorted((int(seat), int(points)) for seat, points in data["scores"].items()))
        return cls(
            shape=shape,
            by=int(data["by"]),
            majority=None if held is None else int(held),
            awards=awards,
        )


def _score(covered: Sequence[int], mask: int, seat: int, label: str, points: int) -> Completion:
    holder = majority(covered, mask)
    awards: dict[int, int] = {}
    if holder is not None:
        awards[holder] = points
    if seat != holder:
        awards[seat] = awards.get(seat, 0) + COMPLETION_BONUS
    return Completion(shape=label, by=seat, majority=holder, awards=tuple(sorted(awards.items())))


def completions(
    covered: Sequence[int], placed: int, seat: int, *, center_ring: bool
) -> tuple[Completion, ...]:
    """The shapes that `seat` completed by placing `placed`, scored.

    `covered` is every seat's covered-fields mask *after* the placement. A shape counts when the
    placement covers at least one of its fields and all of its fields are now covered: the shape
    was not full before (the placement's fields were empty), so this placement completed it.
    """
    occupied = 0
    for seat_mask in covered:
        occupied |= seat_mask
    found: list[Completion] = []
    for index in shapes_hit(placed):
        mask = SHAPE_MASKS[index]
        if occupied & mask == mask:
            found.append(_score(covered, mask, seat, SHAPE_LABELS[index], MAJORITY_POINTS))
    if (
        center_ring
        and placed & CENTER_RING_MASK
        and occupied & CENTER_RING_MASK == CENTER_RING_MASK
    ):
        found.append(_score(covered, CENTER_RING_MASK, seat, RING_LABEL, RING_POINTS))
    return tuple(found)
