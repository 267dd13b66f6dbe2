"""The board construction's building blocks (cirkis.geometry, cirkis.board_build)."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from cirkis.board_build import connected_sets, signature
from cirkis.geometry import (
    DEFLATIONS,
    PHI,
    HalfTile,
    build_fields,
    clip_to_convex,
    decagon,
    deflate,
    direction,
    infinite_star_tiles,
    pair_halves,
    phi_power,
    signed_area,
    simplify,
    star_vertex,
    union_outline,
)


def test_directions_and_powers_agree_with_the_library_functions():
    for degrees in range(-360, 721, 18):
        x, y = direction(degrees)
        assert x == pytest.approx(math.cos(math.radians(degrees)), abs=1e-15)
        assert y == pytest.approx(math.sin(math.radians(degrees)), abs=1e-15)
    with pytest.raises(ValueError, match="multiple of 18"):
        direction(45)
    assert [phi_power(n) for n in range(7)] == pytest.approx([PHI**n for n in range(7)])


def half_area(half: HalfTile) -> float:
    return abs(signed_area((half.head, half.side, half.apex)))


def test_star_vertex_is_five_darts_around_the_origin():
    halves = star_vertex()
    assert len(halves) == 10
    assert {h.kind for h in halves} == {"dart"}
    assert all(h.head == (0.0, 0.0) for h in halves)
    for h in halves:
        assert math.dist(h.head, h.side) == pytest.approx(PHI)
        assert math.dist(h.head, h.apex) == pytest.approx(1)
        assert math.dist(h.side, h.apex) == pytest.approx(1)


def test_deflation_keeps_the_area_and_shrinks_edges_by_phi():
    halves = star_vertex()
    area = sum(half_area(h) for h in halves)
    for step in range(1, 4):
        halves = deflate(halves)
        assert sum(half_area(h) for h in halves) == pytest.approx(area)
        for h in halves:
            assert math.dist(h.head, h.side) == pytest.approx(PHI / PHI**step)


def test_deflation_splits_half_kites_in_three_and_half_darts_in_two():
    kite = HalfTile("kite", (0.0, 0.0), (PHI, 0.0), (PHI * 0.809017, PHI * 0.587785))
    assert Counter(h.kind for h in deflate([kite])) == {"kite": 2, "dart": 1}
    dart = star_vertex()[0]
    assert Counter(h.kind for h in deflate([dart])) == {"kite": 1, "dart": 1}


def test_two_deflations_turn_the_central_star_by_36_degrees():
    def notch_angles(tiles):
        return sorted(
            round(math.degrees(math.atan2(t.polygon[2][1], t.polygon[2][0]))) % 360
            for t in tiles
            if t.head == (0.0, 0.0)
        )

    assert notch_angles(pair_halves(star_vertex())) == [18, 90, 162, 234, 306]
    assert notch_angles(infinite_star_tiles(2)) == [54, 126, 198, 270, 342]
    # after the six deflations of the board, a tip (not a notch) points to +y
    assert notch_angles(infinite_star_tiles(DEFLATIONS)) == [54, 126, 198, 270, 342]


def test_pairing_makes_whole_anticlockwise_tiles():
    tiles = infinite_star_tiles(3)
    assert tiles
    for tile in tiles:
        assert len(tile.polygon) == 4
        assert signed_area(tile.polygon) > 0


def test_build_fields_clips_twenty_kites_into_ten_slivers():
    fields = build_fields()
    assert Counter(f.kind for f in fields) == {"kite": 90, "dart": 65, "sliver": 10}
    rim = set(decagon())
    for sliver in (f for f in fields if f.kind == "sliver"):
        assert sliver.polygon[0] in rim
        tip, after, _, before = sliver.polygon
        sides = sorted([math.dist(tip, after), math.dist(tip, before)])
        assert sides == pytest.approx([1.0, PHI**2], abs=1e-5)  # a leg and the long side


def test_clip_to_convex():
    square = ((0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0))
    shifted = ((1.0, 1.0), (3.0, 1.0), (3.0, 3.0), (1.0, 3.0))
    clipped = clip_to_convex(shifted, square)
    assert signed_area(clipped) == pytest.approx(1.0)
    assert clip_to_convex(((5.0, 5.0), (6.0, 5.0), (6.0, 6.0)), square) == ()


def test_simplify_drops_repeats_and_straight_corners():
    polygon = ((0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (2.0, 0.0), (2.0, 1.0), (0.0, 1.0))
    assert simplify(polygon) == ((0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (0.0, 1.0))


def test_union_outline_glues_along_edges_and_rejects_pinches():
    a = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))
    b = ((1.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0))
    c = ((2.0, 1.0), (3.0, 1.0), (3.0, 2.0), (2.0, 2.0))  # touches b only at a corner
    tall = ((1.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, 2.0))  # shares half of a's right edge
    assert union_outline([a, b]) == ((0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (0.0, 1.0))
    assert union_outline([b, c]) is None
    assert union_outline([a, c]) is None
    assert signed_area(union_outline([a, tall]) or ()) == pytest.approx(3.0)


def test_signature_is_invariant_under_rotation_reflection_and_start_corner():
    kite = ((0.0, 0.0), (1.3090, -0.9511), (PHI, 0.0), (1.3090, 0.9511))
    c, s = math.cos(1.0), math.sin(1.0)
    rotated = tuple((c * x - s * y + 5, s * x + c * y - 2) for x, y in kite)
    mirrored = tuple((-x, y) for x, y in reversed(kite))
    assert signature(kite) == signature(rotated) == signature(mirrored)
    assert signature(kite) == signature(kite[2:] + kite[:2])
    assert signature(kite) != signature(((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)))


def test_connected_sets_grow_along_edges():
    path = [[1], [0, 2], [1, 3], [2]]  # fields 0-1-2-3 in a row
    assert connected_sets(path) == {
        (0,),
        (1,),
        (2,),
        (3,),
        (0, 1),
        (1, 2),
        (2, 3),
        (0, 1, 2),
        (1, 2, 3),
    }
