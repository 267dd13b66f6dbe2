import json

import pytest

from greycircle.api.jsonlimits import MAX_DEPTH, JsonRejected, json_depth, json_loads_limited


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ('"[[[["', 0),
        ("[]", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('["]\\"[[", [[]]]', 3),
        ("[[]][[[]]]", 3),
    ],
)
def test_depth_counts_brackets_outside_strings(text, depth):
    assert json_depth(text.encode()) == depth


def test_a_thousand_nested_arrays_are_refused_before_parsing():
    deep = "[" * 1000 + "]" * 1000
    with pytest.raises(JsonRejected) as refused:
        json_loads_limited(deep, max_bytes=10_000)
    assert refused.value.code == "too_deep"


def test_json_at_the_depth_limit_parses():
    nested = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert json_loads_limited(nested, max_bytes=10_000) == json.loads(nested)


def test_oversized_json_is_refused_by_its_length():
    with pytest.raises(JsonRejected) as refused:
        json_loads_limited(b'"' + b"x" * 2000 + b'"', max_bytes=1000)
    assert refused.value.code == "too_large"


def test_malformed_json_is_refused_without_echoing_it():
    with pytest.raises(JsonRejected) as refused:
        json_loads_limited("{secret: 1", max_bytes=1000)
    assert refused.value.code == "malformed"
    assert "secret" not in refused.value.detail
