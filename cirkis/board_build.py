"""Derive the CirKis board data from the construction in :mod:`cirkis.geometry` (pure Python).

:func:`build_board_data` numbers the fields, finds the shapes, the Center Star and Center Ring,
edge and point adjacency, and every placement of every piece of ``pieces.json`` on the empty
board. :func:`dump_board_data` gives the exact text of the committed ``board_data.json``, which
:mod:`cirkis.board` loads at import so that start-up does no geometry. ``manage.py cirkis_board
--write`` regenerates that file and ``--check`` verifies it.

Field numbering ("ring by ring, clockwise from twelve o'clock"): fields are grouped into rings
by the distance of their area centroid from the centre (centroids closer than 1e-3 in distance
share a ring; the rings hold 5 or 10 fields), rings are numbered outward, and within a ring
fields go clockwise by the angle of their centroid from the +y axis. Fields 0-4 are the Center
Star, 5-14 the Center Ring, and the Sliver spaces come last (ids 155-164).

Placement matching: a placement is an edge-connected set of 1-3 fields whose kinds are the
piece's kinds and whose union outline is congruent to the piece's outline under rotation and
reflection. Outlines are compared by a canonical signature: the cyclic sequence of (corner angle,
edge length) pairs with straight-through corners removed, minimised over every starting corner
in both directions of travel.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cirkis.geometry import (
    EPS,
    PHI,
    Point,
    Polygon,
    RawField,
    area_centroid,
    build_fields,
    cross,
    decagon,
    distance,
    edges,
    on_segment,
    union_outline,
)

PACKAGE_DIR = Path(__file__).resolve().parent
PIECES_PATH = PACKAGE_DIR / "pieces.json"
BOARD_DATA_PATH = PACKAGE_DIR / "board_data.json"
FORMAT_VERSION = 1
DECIMALS = 5

Signature = tuple[tuple[int, float], ...]


def _round(p: Point) -> list[float]:
    return [round(p[0], DECIMALS) + 0.0, round(p[1], DECIMALS) + 0.0]


def _clockwise_angle(p: Point) -> float:
    """Degrees clockwise from the +y axis, in [0, 360)."""
    return round(math.degrees(math.atan2(p[0], p[1])), 4) % 360.0


RING_GAP = 1e-3  # centroids whose distances from the centre differ by less share a ring


def number_fields(fields: Iterable[RawField]) -> list[RawField]:
    """Sort fields ring by ring (centroid distance), then clockwise from the +y axis."""
    by_radius = sorted(fields, key=lambda f: math.hypot(*area_centroid(f.polygon)))
    rings: list[list[RawField]] = []
    last_radius = -1.0
    for field in by_radius:
        radius = math.hypot(*area_centroid(field.polygon))
        if radius - last_radius > RING_GAP:
            rings.append([])
        rings[-1].append(field)
        last_radius = radius
    return [
        field
        for ring in rings
        for field in sorted(ring, key=lambda f: _clockwise_angle(area_centroid(f.polygon)))
    ]


# --- adjacency -----------------------------------------------------------------------------


def _bbox(polygon: Polygon) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in polygon], [p[1] for p in polygon]
    return min(xs), min(ys), max(xs), max(ys)


def _share_edge(a: Polygon, b: Polygon) -> bool:
    """Whether the boundaries of ``a`` and ``b`` overlap along a stretch of positive length."""
    for p, q in edges(a):
        length = distance(p, q)
        for r, s in edges(b):
            if abs(cross(p, q, r)) > EPS * length or abs(cross(p, q, s)) > EPS * length:
                continue
            ux, uy = (q[0] - p[0]) / length, (q[1] - p[1]) / length
            t_r = (r[0] - p[0]) * ux + (r[1] - p[1]) * uy
            t_s = (s[0] - p[0]) * ux + (s[1] - p[1]) * uy
            if min(length, max(t_r, t_s)) - max(0.0, min(t_r, t_s)) > EPS:
                return True
    return False


def _touch(a: Polygon, b: Polygon) -> bool:
    """Whether the boundaries of ``a`` and ``b`` meet (a corner of one lies on the other)."""
    return any(on_segment(p, r, s) for p in a for r, s in edges(b)) or any(
        on_segment(p, r, s) for p in b for r, s in edges(a)
    )


def adjacency(polygons: Sequence[Polygon]) -> tuple[list[list[int]], list[list[int]]]:
    """Per field: the fields sharing an edge with it, and those sharing only a corner."""
    n = len(polygons)
    boxes = [_bbox(p) for p in polygons]
    edge: list[list[int]] = [[] for _ in range(n)]
    point: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            a, b = boxes[i], boxes[j]
            if a[0] > b[2] + EPS or b[0] > a[2] + EPS or a[1] > b[3] + EPS or b[1] > a[3] + EPS:
                continue
            if _share_edge(polygons[i], polygons[j]):
                edge[i].append(j)
                edge[j].append(i)
            elif _touch(polygons[i], polygons[j]):
                point[i].append(j)
                point[j].append(i)
    return edge, point


# --- shapes --------------------------------------------------------------------------------


def shapes(fields: Sequence[RawField], kind: str) -> list[tuple[Point, list[int]]]:
    """Heads shared by exactly five fields of ``kind`` (kites: Circles, darts: Stars)."""
    by_head: dict[Point, list[int]] = {}
    for i, field in enumerate(fields):
        if field.kind == kind:
            by_head.setdefault(field.polygon[0], []).append(i)
    found = [(head, sorted(ids)) for head, ids in by_head.items() if len(ids) == 5]
    found.sort(key=lambda item: (round(math.hypot(*item[0]), 4), _clockwise_angle(item[0])))
    return found


# --- pieces and placements -----------------------------------------------------------------


def parse_length(text: str) -> float:
    """An outline length: "1", "phi" or "phi^k" (k an integer)."""
    if text == "1":
        return 1.0
    if text == "phi":
        return PHI
    if text.startswith("phi^"):
        return PHI ** int(text[4:])
    raise ValueError(f"unknown outline length {text!r}")


def outline_polygon(outline: Sequence[Sequence[Any]]) -> Polygon:
    """Walk a piece outline ([corner angle in degrees, edge length] pairs, anticlockwise).

    Starts at the origin heading along +x; raises ValueError if the walk does not close.
    """
    x = y = heading = 0.0
    points: list[Point] = []
    for index, (angle, length) in enumerate(outline):
        if index:
            heading += 180 - angle
        points.append((x, y))
        x += parse_length(length) * math.cos(math.radians(heading))
        y += parse_length(length) * math.sin(math.radians(heading))
    heading += 180 - outline[0][0]
    if math.hypot(x, y) > 1e-9 or abs(heading - 360) > 1e-9:
        raise ValueError(f"outline does not close: {outline}")
    return tuple(points)


def signature(polygon: Sequence[Point]) -> Signature:
    """The outline's congruence class: its (corner angle, edge length) cycle in canonical form.

    ``polygon`` is simple, anticlockwise and has no straight-through corners. Reflections count
    as congruent (pieces may be turned over).
    """
    n = len(polygon)
    corners: list[tuple[int, float]] = []
    for i in range(n):
        prev, here, nxt = polygon[i - 1], polygon[i], polygon[(i + 1) % n]
        turn = math.degrees(
            math.atan2(cross(prev, here, nxt), _dot(prev, here, nxt))
        )  # exterior turn, left positive
        corners.append((round(180 - turn), round(distance(here, nxt), 4)))
    forward = [corners[i:] + corners[:i] for i in range(n)]
    # Travelling the other way round, corner i is followed by the edge that led into it.
    mirrored = [(corners[i][0], corners[i - 1][1]) for i in range(n - 1, -1, -1)]
    backward = [mirrored[i:] + mirrored[:i] for i in range(n)]
    return tuple(min(forward + backward))


def _dot(prev: Point, here: Point, nxt: Point) -> float:
    return (here[0] - prev[0]) * (nxt[0] - here[0]) + (here[1] - prev[1]) * (nxt[1] - here[1])


def load_pieces(path: Path = PIECES_PATH) -> list[dict[str, Any]]:
    """The piece types from ``pieces.json``, in their listed order."""
    return json.loads(path.read_text(encoding="utf-8"))["pieces"]


def connected_sets(edge: Sequence[Sequence[int]], max_size: int = 3) -> set[tuple[int, ...]]:
    """Every edge-connected set of 1..``max_size`` fields, as sorted id tuples."""
    found: set[tuple[int, ...]] = {(i,) for i in range(len(edge))}
    frontier = set(found)
    for _ in range(max_size - 1):
        grown = {
            tuple(sorted((*group, n)))
            for group in frontier
            for member in group
            for n in edge[member]
            if n not in group
        }
        found |= grown
        frontier = grown
    return found


def placements(
    fields: Sequence[RawField], edge: Sequence[Sequence[int]], pieces: Sequence[Mapping[str, Any]]
) -> dict[str, list[list[int]]]:
    """For each piece key, every placement on the empty board (sorted lists of field ids)."""
    wanted = {
        piece["key"]: (Counter(piece["fields"]), signature(outline_polygon(piece["outline"])))
        for piece in pieces
    }
    result: dict[str, list[list[int]]] = {key: [] for key in wanted}
    for group in sorted(connected_sets(edge)):
        kinds = Counter(fields[i].kind for i in group)
        matching = [key for key, (k, _) in wanted.items() if k == kinds]
        if not matching:
            continue
        outline = union_outline([fields[i].polygon for i in group])
        if outline is None:
            continue
        sig = signature(outline)
        for key in matching:
            if wanted[key][1] == sig:
                result[key].append(list(group))
    return result


# --- the data file -------------------------------------------------------------------------


def build_board_data(pieces: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The complete board data (what ``board_data.json`` holds)."""
    if pieces is None:
        pieces = load_pieces()
    fields = number_fields(build_fields())
    polygons = [f.polygon for f in fields]
    edge, point = adjacency(polygons)
    circles = shapes(fields, "kite")
    stars = shapes(fields, "dart")
    center = next(i for i, (head, _) in enumerate(stars) if head == (0.0, 0.0))
    segment_of: dict[int, dict[str, Any]] = {}
    for shape_kind, found in (("circle", circles), ("star", stars)):
        for index, (_, ids) in enumerate(found):
            for i in ids:
                if i in segment_of:
                    raise ValueError(f"field {i} belongs to two shapes")
                segment_of[i] = {"shape": shape_kind, "index": index}
    center_star = set(stars[center][1])
    ring = sorted(
        i for i in range(len(fields)) if fields[i].kind == "kite" and center_star & set(edge[i])
    )
    return {
        "format": FORMAT_VERSION,
        "units": "short edge 1, long edge phi; origin at the Center Star's head; +y up",
        "rim": [_round(p) for p in decagon()],
        "fields": [
            {
                "id": i,
                "kind": field.kind,
                "polygon": [_round(p) for p in field.polygon],
                "centroid": _round(area_centroid(field.polygon)),
                "segment_of": segment_of.get(i),
                "center_ring": i in ring,
                "edge": sorted(edge[i]),
                "point": sorted(point[i]),
            }
            for i, field in enumerate(fields)
        ],
        "circles": [{"head": _round(h), "fields": ids} for h, ids in circles],
        "stars": [
            {"head": _round(h), "fields": ids, "central": k == center}
            for k, (h, ids) in enumerate(stars)
        ],
        "center_star": center,
        "center_ring": ring,
        "placements": placements(fields, edge, pieces),
    }


def dump_board_data(data: Mapping[str, Any]) -> str:
    """The committed file's text: compact JSON, one field / shape / placement list per line."""

    def compact(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    def block(items: Iterable[str], indent: str = "  ") -> str:
        return "[\n" + ",\n".join(indent + item for item in items) + "\n" + indent[:-2] + "]"

    lines = [f"  {compact(key)}: {compact(data[key])}" for key in ("format", "units", "rim")]
    for key in ("fields", "circles", "stars"):
        lines.append(f"  {compact(key)}: " + block((compact(item) for item in data[key]), "    "))
    lines += [f"  {compact(key)}: {compact(data[key])}" for key in ("center_star", "center_ring")]
    placement_lines = [
        f"    {compact(key)}: {compact(value)}" for key, value in data["placements"].items()
    ]
    lines.append('  "placements": {\n' + ",\n".join(placement_lines) + "\n  }")
    return "{\n" + ",\n".join(lines) + "\n}\n"
