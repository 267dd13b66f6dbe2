"""The CirKis board construction: a clipped Penrose kite-and-dart tiling (pure Python).

Units: a kite's or dart's short edge is 1, its long edge is φ = (1 + √5) / 2. The origin is the
centre of the Center Star, whose topmost point lies on the +y axis.

The construction, step by step:

1. Start from the Penrose "star" vertex: five darts with their heads at the origin. Each tile is
   kept as two mirror-image Robinson halves. Two deflations turn the star at the origin by 36°,
   so the seed star is set with a notch at +y and the finished Center Star has a tip (a dart's
   side corner) pointing to +y.
2. Deflate six times with the Robinson rules (:func:`deflate`) and scale by φ⁶, which grows the
   five-fold symmetric "infinite star" tiling outward from the centre at full size again.
3. Pair the halves back into whole kites and darts (:func:`pair_halves`).
4. Clip with the regular decagon of circumradius 2φ³ whose corners lie at 90° + 36°·k and keep
   the tiles inside it. Exactly 20 kites cross the rim, all beside the five outer stars; on each
   side of an outer star's tip the two clipped kites merge into one "Sliver space", an isosceles
   trapezoid with parallel sides 1 and φ² (:func:`build_fields`).

Coordinates are floats built from +, -, *, / and square roots only, so the build is the same
bit for bit on every IEEE-754 platform. Every corner is snapped to a 1e-6 grid (:func:`snap`) so
that the corners tiles share compare equal; geometric tests (on a segment, inside the rim, a
straight corner) allow :data:`EPS`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

SQRT5 = math.sqrt(5)
PHI = (1 + SQRT5) / 2
DEFLATIONS = 6


def phi_power(n: int) -> float:
    """φ**n (n >= 0) by repeated multiplication, which IEEE-754 rounds the same everywhere."""
    result = 1.0
    for _ in range(n):
        result *= PHI
    return result


RIM_RADIUS = 2 * phi_power(3)
# Every two deflations turn the central star by 36°, so six turn it by 108° ≡ 36° (mod 72°): the
# seed star has a notch at +y (its dart axes at 90° + 72°·k) so that the finished Center Star has
# a tip at +y (dart axes at 126° + 72°·k).
SEED_AXIS_DEGREES = 90
SNAP_DIGITS = 6
# Tolerance for comparisons of snapped coordinates (snapping moves a point by at most ~7e-7).
EPS = 1e-5

Point = tuple[float, float]
Polygon = tuple[Point, ...]
TileKind = Literal["kite", "dart"]
FieldKind = Literal["kite", "dart", "sliver"]


def snap(x: float, y: float) -> Point:
    """Round a point to the snapping grid (and turn -0.0 into 0.0)."""
    return (round(x, SNAP_DIGITS) + 0.0, round(y, SNAP_DIGITS) + 0.0)


# cos 0°, 18°, 36°, 54°, 72°, 90° from square roots alone: IEEE-754 rounds +, -, *, / and sqrt
# exactly, so the whole construction (which uses nothing else) is bit-for-bit the same on every
# platform, unlike math.cos/math.sin whose last bit depends on the C library.
_COS_18 = (
    1.0,
    math.sqrt(10 + 2 * SQRT5) / 4,
    PHI / 2,
    math.sqrt(10 - 2 * SQRT5) / 4,
    (SQRT5 - 1) / 4,
    0.0,
)


def _cos18(k: int) -> float:
    """cos(18°·k)."""
    k %= 20
    if k <= 5:
        return _COS_18[k]
    if k <= 10:
        return -_COS_18[10 - k]
    if k <= 15:
        return -_COS_18[k - 10]
    return _COS_18[20 - k]


def direction(degrees: int) -> Point:
    """The unit vector at ``degrees`` (a multiple of 18) anticlockwise from +x."""
    if degrees % 18:
        raise ValueError(f"{degrees}° is not a multiple of 18°")
    k = degrees // 18
    return (_cos18(k), _cos18(k - 5))  # sin θ = cos(θ - 90°)


def _along(a: Point, b: Point, t: float) -> Point:
    """The point a + (b - a)·t."""
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


# --- Robinson halves and deflation ---------------------------------------------------------


class HalfTile(NamedTuple):
    """Half a kite or dart, cut along its axis.

    kite: ``head`` (72° corner between the long edges), ``side`` (a 72° side corner), ``apex`` the
    tail (144° corner between the short edges). dart: ``head`` (72° corner between the long edges),
    ``side`` (a 36° wing), ``apex`` the notch (the 216° corner between the short edges).
    """

    kind: TileKind
    head: Point
    side: Point
    apex: Point


def star_vertex() -> list[HalfTile]:
    """The seed: five darts (ten halves) with their heads at the origin, a notch at +y.

    After :data:`DEFLATIONS` deflations the star at the origin has a tip at +y (see
    :data:`SEED_AXIS_DEGREES`).
    """
    halves: list[HalfTile] = []
    for k in range(5):
        axis = SEED_AXIS_DEGREES + 72 * k  # from the head to the notch
        notch = direction(axis)
        for wing_angle in (axis - 36, axis + 36):
            x, y = direction(wing_angle)
            halves.append(HalfTile("dart", (0.0, 0.0), (PHI * x, PHI * y), notch))
    return halves


def deflate(halves: Iterable[HalfTile]) -> list[HalfTile]:
    """One Robinson deflation (every half splits into halves smaller by φ).

    half-kite (H, V, T): D = H + (T-H)/φ, E = V + (H-V)/φ → half-kites (V,T,D), (V,E,D) and
    half-dart (H,D,E). half-dart (H, V, R): P = H + (V-H)/φ → half-kite (H,P,R), half-dart (V,R,P).
    """
    out: list[HalfTile] = []
    for half in halves:
        h, v, a = half.head, half.side, half.apex
        if half.kind == "kite":
            d = _along(h, a, 1 / PHI)
            e = _along(v, h, 1 / PHI)
            out += [HalfTile("kite", v, a, d), HalfTile("kite", v, e, d), HalfTile("dart", h, d, e)]
        else:
            p = _along(h, v, 1 / PHI)
            out += [HalfTile("kite", h, p, a), HalfTile("dart", v, a, p)]
    return out


def scaled(halves: Iterable[HalfTile], factor: float) -> list[HalfTile]:
    """Scale every half about the origin."""

    def s(p: Point) -> Point:
        return (p[0] * factor, p[1] * factor)

    return [HalfTile(h.kind, s(h.head), s(h.side), s(h.apex)) for h in halves]


@dataclass(frozen=True, slots=True)
class Tile:
    """A whole kite or dart: ``polygon`` is (head, side, tail|notch, other side), anticlockwise."""

    kind: TileKind
    polygon: Polygon

    @property
    def head(self) -> Point:
        return self.polygon[0]


def pair_halves(halves: Iterable[HalfTile]) -> list[Tile]:
    """Join the two halves that share kind, head and tail/notch into whole tiles.

    Halves without a partner (only at the outer edge of the deflated patch) are dropped.
    """
    pending: dict[tuple[str, Point, Point], HalfTile] = {}
    tiles: list[Tile] = []
    for half in halves:
        key = (half.kind, snap(*half.head), snap(*half.apex))
        other = pending.pop(key, None)
        if other is None:
            pending[key] = half
            continue
        polygon = (key[1], snap(*half.side), key[2], snap(*other.side))
        if signed_area(polygon) < 0:
            polygon = (polygon[0], polygon[3], polygon[2], polygon[1])
        tiles.append(Tile(half.kind, polygon))
    return tiles


def infinite_star_tiles(deflations: int = DEFLATIONS) -> list[Tile]:
    """The star vertex deflated ``deflations`` times and scaled back to unit short edges."""
    halves = star_vertex()
    for _ in range(deflations):
        halves = deflate(halves)
    return pair_halves(scaled(halves, phi_power(deflations)))


# --- polygon helpers -----------------------------------------------------------------------


def signed_area(polygon: Sequence[Point]) -> float:
    """Shoelace area: positive for anticlockwise polygons."""
    total = 0.0
    for (x1, y1), (x2, y2) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        total += x1 * y2 - x2 * y1
    return total / 2


def area_centroid(polygon: Sequence[Point]) -> Point:
    """The centre of mass of a simple polygon."""
    a = signed_area(polygon)
    cx = cy = 0.0
    for (x1, y1), (x2, y2) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        cross = x1 * y2 - x2 * y1
        cx += (x1 + x2) * cross
        cy += (y1 + y2) * cross
    return (cx / (6 * a), cy / (6 * a))


def cross(o: Point, a: Point, b: Point) -> float:
    """z of (a - o) x (b - o): positive when o → a → b turns left."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def distance(a: Point, b: Point) -> float:
    return math.hypot(b[0] - a[0], b[1] - a[1])


def on_segment(p: Point, a: Point, b: Point, eps: float = EPS) -> bool:
    """Whether p lies on the closed segment a-b (within ``eps``)."""
    length = distance(a, b)
    if abs(cross(a, b, p)) > eps * length:
        return False
    dot = (p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1])
    return -eps * length <= dot <= length * length + eps * length


def point_in_polygon(p: Point, polygon: Sequence[Point]) -> bool:
    """Even-odd test for a point strictly inside a simple polygon (boundary: undefined)."""
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        if (y1 > p[1]) != (y2 > p[1]) and p[0] < x1 + (p[1] - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def edges(polygon: Sequence[Point]) -> list[tuple[Point, Point]]:
    """The polygon's edges as (start, end) pairs, in order."""
    return list(zip(polygon, [*polygon[1:], polygon[0]], strict=True))


def simplify(polygon: Sequence[Point]) -> Polygon:
    """Drop repeated points and vertices where the boundary runs straight on."""
    points = [p for i, p in enumerate(polygon) if p != polygon[i - 1]]
    changed = True
    while changed and len(points) > 3:
        changed = False
        for i in range(len(points)):
            prev, here, nxt = points[i - 1], points[i], points[(i + 1) % len(points)]
            if abs(cross(prev, here, nxt)) < EPS * distance(prev, nxt) and (
                (here[0] - prev[0]) * (nxt[0] - here[0]) + (here[1] - prev[1]) * (nxt[1] - here[1])
                > 0
            ):
                del points[i]
                changed = True
                break
    return tuple(points)


def decagon(radius: float = RIM_RADIUS) -> Polygon:
    """The board's rim: a regular decagon with corners at 90° + 36°·k, anticlockwise."""
    corners = (direction(90 + 36 * k) for k in range(10))
    return tuple(snap(radius * x, radius * y) for x, y in corners)


def clip_to_convex(polygon: Sequence[Point], clip: Sequence[Point]) -> Polygon:
    """Sutherland-Hodgman: the part of ``polygon`` inside the anticlockwise convex ``clip``."""
    output = list(polygon)
    for a, b in edges(clip):
        if not output:
            break
        source, output = output, []
        for p, q in edges(source):
            p_in, q_in = cross(a, b, p) >= -EPS, cross(a, b, q) >= -EPS
            if p_in:
                output.append(p)
            if p_in != q_in:
                dp, dq = cross(a, b, p), cross(a, b, q)
                output.append(_along(p, q, dp / (dp - dq)))
    return simplify([snap(*p) for p in output]) if len(output) >= 3 else ()


def split_edges(polygon: Sequence[Point], points: Iterable[Point]) -> Polygon:
    """Insert into ``polygon``'s edges every point of ``points`` lying strictly inside an edge."""
    candidates = set(points) - set(polygon)
    out: list[Point] = []
    for a, b in edges(polygon):
        out.append(a)
        inner = [p for p in candidates if on_segment(p, a, b)]
        inner.sort(key=lambda p: distance(a, p))
        out += inner
    return tuple(out)


def union_outline(polygons: Sequence[Sequence[Point]]) -> Polygon | None:
    """The outline of the union of non-overlapping anticlockwise polygons glued along edges.

    Edges the polygons share (after splitting edges at each other's corners) cancel; the rest is
    chained into one anticlockwise outline with straight-through vertices removed. Returns None
    when the union is not a single simple polygon (disconnected, pinched at a corner, or holed).
    """
    all_points = {p for polygon in polygons for p in polygon}
    directed: set[tuple[Point, Point]] = set()
    for polygon in polygons:
        for edge in edges(split_edges(polygon, all_points)):
            reverse = (edge[1], edge[0])
            if reverse in directed:
                directed.remove(reverse)
            else:
                directed.add(edge)
    following: dict[Point, Point] = {}
    for a, b in directed:
        if a in following:
            return None  # two boundary edges leave one corner: pinched
        following[a] = b
    start = min(following)
    outline = [start]
    here = following[start]
    while here != start:
        outline.append(here)
        here = following[here]
    if len(outline) != len(following):
        return None  # more than one boundary loop
    return simplify(outline)


# --- the board -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RawField:
    """A board field before numbering.

    ``polygon`` is anticlockwise. Kites and darts start at their head (head, side, tail|notch,
    side); a Sliver space starts at the rim corner it reaches (the outer star's tip).
    """

    kind: FieldKind
    polygon: Polygon


def _is_inside(polygon: Sequence[Point], rim: Sequence[Point]) -> bool:
    """Whether every corner lies inside the convex rim or on it (within the snapping error)."""
    return all(cross(a, b, p) >= -EPS * distance(a, b) for p in polygon for a, b in edges(rim))


class _Snapper:
    """Replaces points by an earlier point within ``tolerance`` (so recomputed corners agree)."""

    def __init__(self, points: Iterable[Point], tolerance: float = 1e-5) -> None:
        self.points: list[Point] = list(dict.fromkeys(points))
        self.tolerance = tolerance

    def __call__(self, p: Point) -> Point:
        for q in self.points:
            if abs(p[0] - q[0]) <= self.tolerance and abs(p[1] - q[1]) <= self.tolerance:
                return q
        self.points.append(p)
        return p


def build_fields() -> list[RawField]:
    """The 165 fields of the board: kites and darts inside the rim plus the ten Sliver spaces."""
    rim = decagon()
    tiles = infinite_star_tiles()
    snapper = _Snapper([*rim, *(p for tile in tiles for p in tile.polygon)])
    fields: list[RawField] = []
    crossing: list[Polygon] = []
    for tile in tiles:
        if _is_inside(tile.polygon, rim):
            fields.append(RawField(tile.kind, tile.polygon))
            continue
        clipped = simplify([snapper(p) for p in clip_to_convex(tile.polygon, rim)])
        if len(clipped) >= 3 and abs(signed_area(clipped)) > EPS:
            if tile.kind != "kite":
                raise ValueError(f"a dart crosses the rim: {tile.polygon}")
            crossing.append(clipped)
    fields += [RawField("sliver", polygon) for polygon in _merge_slivers(crossing, rim)]
    return fields


def _merge_slivers(pieces: list[Polygon], rim: Sequence[Point]) -> list[Polygon]:
    """Merge the clipped kites in pairs that share an edge into Sliver spaces."""
    if len(pieces) != 20:
        raise ValueError(f"expected 20 kites across the rim, found {len(pieces)}")
    rim_corners = set(rim)
    slivers: list[Polygon] = []
    used: set[int] = set()
    for i, first in enumerate(pieces):
        if i in used:
            continue
        partners = [
            j
            for j in range(i + 1, len(pieces))
            if j not in used and union_outline([first, pieces[j]]) is not None
        ]
        if len(partners) != 1:
            raise ValueError(f"clipped kite {first} has {len(partners)} partners")
        used |= {i, partners[0]}
        outline = union_outline([first, pieces[partners[0]]])
        assert outline is not None
        if len(outline) != 4:
            raise ValueError(f"a Sliver space should have 4 corners: {outline}")
        corner = next(k for k, p in enumerate(outline) if p in rim_corners)
        slivers.append(outline[corner:] + outline[:corner])
    return slivers
