"""The CirKis drawing data embedded in every CirKis page (`cirkis.client.client_data`)."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from django.utils.html import json_script

from cirkis.board import CENTER_RING, CENTER_STAR, CIRCLES, FIELDS, PIECES, RIM, SHAPES, STARS
from cirkis.client import client_data
from cirkis.scoring import SHAPE_LABELS
from greycircle.games import registry
from greycircle.games.services import SeatSpec, game_create

KIND_DATA = re.compile(r'<script id="kind-data" type="application/json">(.*?)</script>', re.S)
MAX_EMBEDDED_BYTES = 60_000


@pytest.fixture(scope="module")
def data() -> dict:
    return client_data()


def flipped(point: tuple[float, float]) -> list[float]:
    return [round(point[0], 3), round(-point[1], 3)]


def flat(points) -> list[float]:
    return [c for point in points for c in point]


def test_every_field_is_drawn_with_its_kind_shape_and_flipped_polygon(data):
    assert len(data["fields"]) == len(FIELDS) == 165
    assert Counter(f["kind"] for f in data["fields"]) == {"kite": 90, "dart": 65, "sliver": 10}
    for drawn, field in zip(data["fields"], FIELDS, strict=True):
        assert drawn["kind"] == field.kind
        assert flat(drawn["points"]) == pytest.approx(flat(flipped(p) for p in field.polygon))
        assert drawn["ring"] == field.center_ring
        expected = None if field.shape is None else SHAPE_LABELS[field.shape]
        assert drawn["shape"] == expected


def test_circles_and_stars_have_five_fields_and_a_ten_cornered_outline(data):
    shapes = data["shapes"]
    assert [s["label"] for s in shapes] == list(SHAPE_LABELS)
    assert Counter(s["kind"] for s in shapes) == {"circle": len(CIRCLES), "star": len(STARS)}
    assert (len(CIRCLES), len(STARS)) == (10, 6)
    for drawn, shape in zip(shapes, SHAPES, strict=True):
        assert drawn["fields"] == list(shape.fields)
        assert len(drawn["fields"]) == 5
        assert len(drawn["outline"]) == 10  # a decagon around a circle, a 5-pointed star
        assert drawn["head"] == pytest.approx(flipped(shape.head))
        for i in drawn["fields"]:
            assert data["fields"][i]["shape"] == drawn["label"]
    names = {s["label"]: s["name"] for s in shapes}
    assert CENTER_STAR.number == 0
    assert names["S0"] == "Center Star"
    assert names["C3"] == "Circle C3"
    assert names["S2"] == "Star S2"


def test_the_center_ring_and_the_rim(data):
    ring = data["center_ring"]
    assert ring["fields"] == list(CENTER_RING)
    assert len(ring["fields"]) == 10
    assert all(data["fields"][i]["ring"] for i in ring["fields"])
    assert len(ring["outline"]) == 10
    # The ring's outline (around the ring and the star) lies inside the rim.
    rim_radius = max(x * x + y * y for x, y in data["rim"]) ** 0.5
    assert all((x * x + y * y) ** 0.5 < rim_radius / 2 for x, y in ring["outline"])
    assert flat(data["rim"]) == pytest.approx(flat(flipped(p) for p in RIM))
    top = min(data["rim"], key=lambda p: p[1])
    # A corner at the top of the picture (y grows downwards).
    assert top[0] == 0
    assert top[1] < 0


def test_the_piece_set_with_an_icon_of_each_piece(data):
    pieces = data["pieces"]
    assert [p["key"] for p in pieces] == list(PIECES)
    assert sum(p["per_set"] for p in pieces) == 20
    for drawn in pieces:
        piece = PIECES[drawn["key"]]
        assert (drawn["name"], drawn["per_set"]) == (piece.name, piece.per_set)
        assert len(drawn["icon"]) == len(piece.field_kinds)
        corners = [c for polygon in drawn["icon"] for c in polygon]
        xs, ys = [x for x, _ in corners], [y for _, y in corners]
        # Centred on the origin and no bigger than a Big Slice or a Triangle.
        assert max(xs) + min(xs) == pytest.approx(0, abs=2e-3)
        assert max(ys) + min(ys) == pytest.approx(0, abs=2e-3)
        assert max(max(xs) - min(xs), max(ys) - min(ys)) < 4.5


def test_the_data_is_small_enough_to_embed_in_every_page(data):
    embedded = json_script(data, "kind-data")
    assert len(embedded.encode()) < MAX_EMBEDDED_BYTES
    assert json.loads(json.dumps(data)) == data


def test_the_cirkis_kind_registers_its_client_data():
    assert registry.get("cirkis").client_data is client_data


@pytest.mark.django_db
def test_the_game_page_embeds_the_board_and_links_its_styles(client, alice, data):
    game = game_create(
        creator=alice,
        kind="cirkis",
        opponents=[SeatSpec(ai_level="easy"), SeatSpec(ai_level="easy")],
    )
    client.force_login(alice)
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    match = KIND_DATA.search(html)
    assert match is not None
    assert json.loads(match.group(1)) == json.loads(json.dumps(data))
    assert "cirkis/page.css" in html
