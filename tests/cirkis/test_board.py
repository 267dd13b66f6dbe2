"""The CirKis board: the figures of the construction, checked against the committed data file.

The expected numbers are the board's own (rules/cirkis.md and the board geometry notes): 165
fields, 10 Circles and 6 Stars, 305 edge-sharing and 350 corner-only pairs, the placement counts.
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import pytest

from cirkis import board
from cirkis.board import CENTER_RING, CENTER_STAR, CIRCLES, FIELDS, RIM, STARS
from cirkis.geometry import PHI, on_segment, point_in_polygon, signed_area

R = 2 * PHI**3  # the rim's circumradius
TOL = 1e-4


def close(a: tuple[float, float], b: tuple[float, float], tol: float = TOL) -> bool:
    return abs(a[0] - b[0]) <= tol and abs(a[1] - b[1]) <= tol


def common_points(i: int, j: int) -> list[tuple[float, float]]:
    """Corners of either field lying on the other's boundary (merged within TOL)."""
    a, b = FIELDS[i].polygon, FIELDS[j].polygon
    found: list[tuple[float, float]] = []
    for p, other in [(p, b) for p in a] + [(p, a) for p in b]:
        sides = zip(other, [*other[1:], other[0]], strict=True)
        if any(on_segment(p, r, s, 1e-4) for r, s in sides) and not any(close(p, q) for q in found):
            found.append(p)
    return found


def pairs(relation: str) -> set[tuple[int, int]]:
    attribute = "edge_neighbours" if relation == "edge" else "point_neighbours"
    return {
        (min(f.id, n), max(f.id, n)) for f in FIELDS for n in getattr(f, attribute) if n != f.id
    }


# --- fields ----------------------------------------------------------------------------------


def test_165_fields_90_kites_65_darts_10_slivers():
    assert len(FIELDS) == board.FIELD_COUNT == 165
    assert [f.id for f in FIELDS] == list(range(165))
    assert Counter(f.kind for f in FIELDS) == {"kite": 90, "dart": 65, "sliver": 10}


def test_field_shapes_have_the_right_sides_and_wind_anticlockwise():
    expected = {"kite": [1, 1, PHI, PHI], "dart": [1, 1, PHI, PHI], "sliver": [1, 1, 1, PHI**2]}
    for field in FIELDS:
        polygon = field.polygon
        sides = sorted(
            math.dist(p, q) for p, q in zip(polygon, [*polygon[1:], polygon[0]], strict=True)
        )
        assert sides == pytest.approx(expected[field.kind], abs=TOL), field.id
        assert signed_area(polygon) > 0, field.id
        assert point_in_polygon(field.centroid, polygon), field.id


def test_kites_and_darts_start_at_their_head():
    for field in FIELDS:
        if field.kind == "sliver":
            continue
        head, side, apex, other = field.polygon
        assert math.dist(head, side) == pytest.approx(PHI, abs=TOL)
        assert math.dist(head, other) == pytest.approx(PHI, abs=TOL)
        axis = PHI if field.kind == "kite" else 1.0  # head to tail / head to notch
        assert math.dist(head, apex) == pytest.approx(axis, abs=TOL)


def test_areas_sum_to_the_decagon():
    decagon_area = 5 * R**2 * math.sin(math.radians(36))
    assert decagon_area == pytest.approx(210.95, abs=0.005)
    assert sum(signed_area(f.polygon) for f in FIELDS) == pytest.approx(decagon_area, abs=1e-3)
    assert signed_area(RIM) == pytest.approx(decagon_area, abs=1e-3)


def test_rim_is_the_decagon_with_a_corner_at_the_top():
    assert len(RIM) == 10
    for k, corner in enumerate(RIM):
        angle = math.radians(90 + 36 * k)
        assert close(corner, (R * math.cos(angle), R * math.sin(angle)))


def test_numbering_runs_ring_by_ring_from_the_centre_clockwise_from_twelve():
    rings: list[list[int]] = []
    last = -1.0
    for field in FIELDS:
        radius = math.hypot(*field.centroid)
        assert radius > last - TOL  # rings go outward
        if radius - last > 1e-3:
            rings.append([])
        rings[-1].append(field.id)
        last = radius
    assert [len(ring) for ring in rings] == [5, 10, 10, 5, 5, 10, 10, 10, 10, 5, 10, 5, *[10] * 7]
    for ring in rings:
        angles = [math.degrees(math.atan2(*FIELDS[i].centroid)) % 360 for i in ring]
        assert angles == sorted(angles)  # clockwise from +y
    assert [f.id for f in FIELDS if f.kind == "sliver"] == list(range(155, 165))
    assert CENTER_STAR.fields == (0, 1, 2, 3, 4)
    assert tuple(range(5, 15)) == CENTER_RING


# --- shapes ----------------------------------------------------------------------------------


def test_ten_circles_and_six_stars_of_five_segments():
    assert len(CIRCLES) == 10
    assert len(STARS) == 6
    for shape in (*CIRCLES, *STARS):
        kind = "kite" if shape.kind == "circle" else "dart"
        assert len(shape.fields) == 5
        assert shape.mask == board.mask_of(shape.fields)
        for i in shape.fields:
            assert FIELDS[i].kind == kind
            assert close(FIELDS[i].polygon[0], shape.head)  # the five share their head
            assert FIELDS[i].shape == shape.index


def test_circle_suns_and_outer_stars_lie_at_phi_powers():
    circle_radii = sorted(round(math.hypot(*c.head), 4) for c in CIRCLES)
    assert circle_radii == [round(PHI**3, 4)] * 5 + [round(PHI**4, 4)] * 5
    star_radii = sorted(round(math.hypot(*s.head), 4) for s in STARS)
    assert star_radii == [0.0] + [round(PHI**4, 4)] * 5
    assert CENTER_STAR.central
    assert CENTER_STAR.head == (0.0, 0.0)
    assert [s.central for s in STARS].count(True) == 1


def test_segments_50_kites_in_circles_30_darts_in_stars_each_in_at_most_one_shape():
    segments = [f for f in FIELDS if f.shape is not None]
    assert Counter(f.kind for f in segments) == {"kite": 50, "dart": 30}
    all_shape_fields = [i for s in board.SHAPES for i in s.fields]
    assert len(all_shape_fields) == len(set(all_shape_fields)) == 80
    for a, b in combinations(board.SHAPES, 2):
        assert a.mask & b.mask == 0


def test_center_ring_is_the_ten_kites_around_the_center_star():
    assert len(CENTER_RING) == 10
    assert board.mask_of(CENTER_RING) == board.CENTER_RING_MASK
    assert board.mask_of(range(5)) == board.CENTER_STAR_MASK
    assert {i for i in range(165) if FIELDS[i].center_ring} == set(CENTER_RING)
    # Every kite sharing an edge with the Center Star is in the ring and every ring kite does.
    star_neighbours = {
        n for i in CENTER_STAR.fields for n in FIELDS[i].edge_neighbours if n not in range(5)
    }
    assert star_neighbours == set(CENTER_RING)
    for i in CENTER_RING:
        assert FIELDS[i].kind == "kite"
        assert FIELDS[i].shape is None
        # two ring neighbours on either side: the ring closes around the star
        assert len(set(FIELDS[i].edge_neighbours) & set(CENTER_RING)) == 2


# --- adjacency -------------------------------------------------------------------------------


def test_305_edge_pairs_and_350_corner_only_pairs():
    edge, point = pairs("edge"), pairs("point")
    assert len(edge) == 305
    assert len(point) == 350
    assert not edge & point
    assert max(len(f.edge_neighbours) for f in FIELDS) == 4


def test_adjacency_is_symmetric_and_matches_the_masks():
    for field in FIELDS:
        assert field.id not in field.edge_neighbours + field.point_neighbours
        for n in field.edge_neighbours:
            assert field.id in FIELDS[n].edge_neighbours
        for n in field.point_neighbours:
            assert field.id in FIELDS[n].point_neighbours
        assert field.edge_mask == board.mask_of(field.edge_neighbours) == board.EDGE_MASKS[field.id]
        assert field.point_mask == board.mask_of(field.point_neighbours)
        assert field.touch_mask == field.edge_mask | field.point_mask == board.TOUCH_MASKS[field.id]


def test_adjacency_agrees_with_the_polygons():
    """Recount from the stored polygons: an edge gives 2+ common points, a corner exactly 1."""
    edge, point = pairs("edge"), pairs("point")
    for i, j in combinations(range(165), 2):
        common = common_points(i, j)
        if (i, j) in edge:
            assert len(common) >= 2, (i, j)
        elif (i, j) in point:
            assert len(common) == 1, (i, j)
        else:
            assert not common, (i, j)


def test_the_two_slivers_beside_each_outer_star_meet_only_at_its_tip():
    slivers = [f for f in FIELDS if f.kind == "sliver"]
    for star in STARS:
        if star.central:
            continue
        beside = [s for s in slivers if s.touch_mask & star.mask]
        assert len(beside) == 2
        a, b = beside
        assert b.id in a.point_neighbours
        assert b.id not in a.edge_neighbours
        (tip,) = common_points(a.id, b.id)
        assert math.hypot(*tip) == pytest.approx(R, abs=TOL)  # a rim corner...
        star_corners = [p for i in star.fields for p in FIELDS[i].polygon]
        assert any(close(tip, p) for p in star_corners)  # ...which is the star's tip
        assert close(a.polygon[0], tip)
        assert close(b.polygon[0], tip)


# --- symmetry --------------------------------------------------------------------------------


def _mapped_field_set_equal(transform) -> bool:
    """Whether mapping every field by ``transform`` gives the same set of fields."""
    remaining = list(FIELDS)
    for field in FIELDS:
        image = [transform(p) for p in field.polygon]
        centre = transform(field.centroid)
        match = next(
            (
                f
                for f in remaining
                if f.kind == field.kind
                and close(f.centroid, centre)
                and all(any(close(p, q) for q in f.polygon) for p in image)
            ),
            None,
        )
        if match is None:
            return False
        remaining.remove(match)
    return not remaining


def test_symmetric_under_rotation_by_72_degrees():
    c, s = math.cos(math.radians(72)), math.sin(math.radians(72))
    assert _mapped_field_set_equal(lambda p: (c * p[0] - s * p[1], s * p[0] + c * p[1]))


def test_symmetric_under_the_mirror_x_to_minus_x():
    assert _mapped_field_set_equal(lambda p: (-p[0], p[1]))


def test_not_symmetric_under_rotation_by_36_degrees():
    c, s = math.cos(math.radians(36)), math.sin(math.radians(36))
    assert not _mapped_field_set_equal(lambda p: (c * p[0] - s * p[1], s * p[0] + c * p[1]))
