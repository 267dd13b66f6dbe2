"""The CirKis piece set and its placements on the empty board."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from cirkis import board
from cirkis.board import CIRCLES, FIELDS, PIECES, PLACEMENTS, SHAPES, STARS
from cirkis.board_build import outline_polygon, parse_length, signature
from cirkis.geometry import PHI, signed_area, union_outline

EXPECTED_PLACEMENTS = {
    "big_slice": 50,
    "small_slice": 70,
    "kite": 90,
    "arrow": 65,
    "wedge": 40,
    "triangle": 55,
    "hook": 110,
    "cube": 25,
    "sliver": 10,
}
KITE_AREA = PHI * math.sin(math.radians(72))  # two triangles with sides 1 and φ at 72°
DART_AREA = PHI * math.sin(math.radians(36))
SLIVER_AREA = (1 + PHI**2) / 2 * math.sin(math.radians(36))  # trapezoid, legs 1 at 36°
AREAS = {"kite": KITE_AREA, "dart": DART_AREA, "sliver": SLIVER_AREA}


def test_the_set_has_twenty_pieces_as_in_the_rules():
    assert {key: p.per_set for key, p in PIECES.items()} == {
        "big_slice": 3,
        "small_slice": 3,
        "kite": 3,
        "arrow": 2,
        "wedge": 2,
        "triangle": 3,
        "hook": 2,
        "cube": 1,
        "sliver": 1,
    }
    assert sum(p.per_set for p in PIECES.values()) == 20
    assert PIECES["big_slice"].name == "Big Slice"
    assert PIECES["triangle"].field_kinds == ("dart", "kite", "kite")


@pytest.mark.parametrize("key", list(PIECES))
def test_piece_outline_closes_and_has_the_area_of_its_fields(key):
    piece = PIECES[key]
    polygon = outline_polygon(piece.outline)
    assert signed_area(polygon) == pytest.approx(sum(AREAS[k] for k in piece.field_kinds))
    assert sum(angle for angle, _ in piece.outline) == (len(piece.outline) - 2) * 180


def test_field_areas_agree_with_the_piece_areas():
    for field in FIELDS:
        assert signed_area(field.polygon) == pytest.approx(AREAS[field.kind], abs=1e-4)


@pytest.mark.parametrize(("key", "count"), EXPECTED_PLACEMENTS.items())
def test_placement_counts_on_the_empty_board(key, count):
    assert len(PLACEMENTS[key]) == count


@pytest.mark.parametrize("key", list(PIECES))
def test_every_placement_is_a_congruent_connected_set_of_the_right_fields(key):
    piece = PIECES[key]
    wanted = signature(outline_polygon(piece.outline))
    seen = set()
    for p in PLACEMENTS[key]:
        assert p.piece == key
        assert p.fields == tuple(sorted(set(p.fields)))
        assert p.mask == board.mask_of(p.fields)
        assert Counter(FIELDS[i].kind for i in p.fields) == Counter(piece.field_kinds)
        outline = union_outline([FIELDS[i].polygon for i in p.fields])
        assert outline is not None
        assert signature(outline) == wanted
        seen.add(p.fields)
    assert len(seen) == len(PLACEMENTS[key])


def test_the_big_slice_fits_only_inside_circles_five_ways_each():
    per_circle = Counter()
    for p in PLACEMENTS["big_slice"]:
        (circle,) = [c for c in CIRCLES if p.mask & c.mask == p.mask]
        per_circle[circle.index] += 1
    assert per_circle == {c.index: 5 for c in CIRCLES}


def test_small_slice_and_wedge_also_fit_outside_shapes():
    inside_circles = [
        p for p in PLACEMENTS["small_slice"] if any(p.mask & c.mask == p.mask for c in CIRCLES)
    ]
    inside_stars = [p for p in PLACEMENTS["wedge"] if any(p.mask & s.mask == p.mask for s in STARS)]
    assert len(inside_circles) == 50  # 5 per circle
    assert len(inside_stars) == 30  # 5 per star
    assert len(PLACEMENTS["small_slice"]) - len(inside_circles) == 20
    assert len(PLACEMENTS["wedge"]) - len(inside_stars) == 10


def test_no_piece_covers_three_segments_of_a_star_and_only_big_slices_three_of_a_circle():
    for key, group in PLACEMENTS.items():
        for p in group:
            for shape in SHAPES:
                covered = (p.mask & shape.mask).bit_count()
                if shape.kind == "star":
                    assert covered <= 2, (key, p.fields)
                elif covered == 3:
                    assert key == "big_slice", (key, p.fields)


def test_hook_comes_in_both_hands():
    """A hook's mirror image is a different placement: the dart's notch is on the other side."""
    hands = Counter()
    for p in PLACEMENTS["hook"]:
        dart = next(i for i in p.fields if FIELDS[i].kind == "dart")
        kite = next(i for i in p.fields if FIELDS[i].kind == "kite")
        head, _, notch, _ = FIELDS[dart].polygon
        kite_x, kite_y = FIELDS[kite].centroid
        left_of_axis = (notch[0] - head[0]) * (kite_y - head[1]) - (notch[1] - head[1]) * (
            kite_x - head[0]
        ) > 0
        hands[left_of_axis] += 1
    assert hands == {True: 55, False: 55}  # the board is mirror-symmetric


def test_sliver_pieces_cover_the_ten_sliver_spaces():
    assert {p.fields for p in PLACEMENTS["sliver"]} == {(i,) for i in range(155, 165)}


def test_placement_lookup():
    first = PLACEMENTS["triangle"][0]
    assert board.placement("triangle", reversed(first.fields)) is first
    assert board.placement("hook", first.fields) is None
    assert board.placement("kite", [5]) == board.Placement("kite", (5,), 1 << 5)
    assert board.placement("kite", [0]) is None  # field 0 is a dart


def test_masks_round_trip():
    assert board.fields_of(board.mask_of([164, 3, 0, 77])) == (0, 3, 77, 164)
    assert board.fields_of(0) == ()
    assert board.mask_of(range(165)) == board.ALL_FIELDS_MASK
    assert board.touching(board.CENTER_STAR_MASK) == board.CENTER_RING_MASK | board.mask_of(
        n for i in range(5) for n in FIELDS[i].point_neighbours if n >= 5
    )
    assert board.touching(board.CENTER_STAR_MASK) & board.CENTER_STAR_MASK == 0


def test_outline_lengths_and_closure_errors():
    assert parse_length("1") == 1.0
    assert parse_length("phi") == pytest.approx(PHI)
    assert parse_length("phi^2") == pytest.approx(PHI + 1)
    with pytest.raises(ValueError, match="unknown outline length"):
        parse_length("2")
    with pytest.raises(ValueError, match="does not close"):
        outline_polygon([[72, "phi"], [72, "1"], [144, "1"], [72, "1"]])
