"""CirKis shape scoring on its own: labels, majorities, completions and their JSON."""

from __future__ import annotations

import pytest

from cirkis.board import CENTER_RING_MASK, CENTER_STAR_MASK, mask_of, placement
from cirkis.scoring import (
    SHAPE_LABELS,
    Completion,
    completions,
    label_mask,
    majority,
    shapes_hit,
)


def test_shapes_are_labelled_circles_then_stars_with_the_center_star_s0():
    expected = tuple(f"C{n}" for n in range(10)) + tuple(f"S{n}" for n in range(6))
    assert expected == SHAPE_LABELS
    assert label_mask("S0") == CENTER_STAR_MASK
    assert label_mask("C0") == mask_of([25, 35, 36, 55, 56])
    assert label_mask("R") == CENTER_RING_MASK
    with pytest.raises(KeyError):
        label_mask("C10")


def test_shapes_hit_by_a_placement():
    triangle = placement("triangle", [55, 56, 90])
    assert triangle is not None
    assert [SHAPE_LABELS[i] for i in shapes_hit(triangle.mask)] == ["C0", "S1"]
    assert shapes_hit(mask_of([5])) == ()  # a Center Ring kite is in no Circle or Star
    assert shapes_hit(mask_of([0, 25])) == (0, 10)  # C0 and the Center Star, in SHAPES order


def test_majority_is_strict():
    circle = label_mask("C0")
    assert majority([mask_of([25, 35, 36]), mask_of([55, 56])], circle) == 0
    assert majority([mask_of([25, 35]), mask_of([36, 55]), mask_of([56])], circle) is None
    assert majority([mask_of([25]), mask_of([35]), mask_of([36]), mask_of([55, 56])], circle) == 3
    assert majority([0, 0], circle) is None


def test_completions_only_for_shapes_the_placement_finished():
    covered = [mask_of([25, 35, 36, 55, 56]), mask_of([0, 1, 2, 3])]
    # The Circle is full but the placement (seat 1's dart 4) did not touch it.
    (star,) = completions(
        [covered[0], covered[1] | mask_of([4])], mask_of([4]), 1, center_ring=False
    )
    assert star == Completion(shape="S0", by=1, majority=1, awards=((1, 10),))
    assert completions(covered, mask_of([0, 1]), 1, center_ring=False) == ()


def test_completion_json_round_trips_with_sorted_awards():
    completion = Completion(shape="C3", by=2, majority=0, awards=((0, 10), (2, 5)))
    data = completion.to_json()
    assert data == {"shape": "C3", "by": 2, "majority": 0, "scores": {"0": 10, "2": 5}}
    assert Completion.from_json(data) == completion
    shuffled = {**data, "scores": {"2": 5, "0": 10}}  # JSONB may reorder object keys
    assert Completion.from_json(shuffled) == completion
    assert completion.points_for(2) == 5
    assert completion.points_for(1) == 0
    with pytest.raises(KeyError):
        Completion.from_json({**data, "shape": "X9"})
