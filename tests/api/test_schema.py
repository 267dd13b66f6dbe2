"""The OpenAPI schema builds, validates without warnings and documents how apps authenticate."""

import re

import pytest
import yaml
from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.management import call_command

from greycircle.converters import ROW_ID_SCHEMA


@pytest.mark.django_db
def test_the_schema_validates_and_declares_the_session_token(tmp_path):
    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    schema = yaml.safe_load(target.read_text())
    assert schema["components"]["securitySchemes"]["sessionToken"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Session-Token",
        "description": schema["components"]["securitySchemes"]["sessionToken"]["description"],
    }
    assert "/api/v1/games/{id}/moves/" in schema["paths"]
    assert "/api/v1/me/" in schema["paths"]


@pytest.mark.django_db
def test_the_docs_page_and_schema_are_served(client):
    assert client.get("/api/schema/").status_code == 200
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()


@pytest.mark.django_db
def test_the_docs_page_loads_everything_from_our_own_static_files(client):
    """Swagger UI comes from drf-spectacular-sidecar: the page works offline and asks no CDN."""
    page = client.get("/api/docs/").content.decode()
    assert not re.search(r"https?://|cdn|jsdelivr|unpkg", page, re.IGNORECASE)
    assert '"validatorUrl": null' in page  # no badge fetched from swagger.io either
    urls = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert urls, page
    static = [url for url in urls if url.startswith(settings.STATIC_URL)]
    assert sorted(static) == sorted(urls)  # every asset is a local static file...
    assert any(url.endswith("swagger-ui-bundle.js") for url in static)
    for url in static:  # ...that the staticfiles finders find
        assert finders.find(url.removeprefix(settings.STATIC_URL)), url


@pytest.fixture(scope="module")
def operations():
    """(method, path, operation) for every operation of the generated schema."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [
        (method, path, operation)
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    ]


def test_request_bodies_are_json_only(operations):
    bodies = {
        (method, path): sorted(operation["requestBody"]["content"])
        for method, path, operation in operations
        if "requestBody" in operation
    }
    assert ("post", "/api/v1/games/") in bodies
    assert all(types == ["application/json"] for types in bodies.values()), bodies


def test_every_operation_declares_401_and_429_in_the_error_shape(operations):
    for method, path, operation in operations:
        for status, code in [("401", "not_authenticated"), ("429", "throttled")]:
            response = operation["responses"].get(status)
            assert response, f"{method} {path} has no {status}"
            assert response["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/Error"
            }
            assert f"`{code}`" in response["description"]


def test_every_error_response_lists_its_codes(operations):
    for method, path, operation in operations:
        for status, response in operation["responses"].items():
            if int(status) >= 400:
                assert "Error codes: `" in response["description"], (method, path, status)
    moves = {(m, p): o for m, p, o in operations}[("post", "/api/v1/games/{id}/moves/")]
    for status, code in [
        ("400", "illegal_move"),
        ("403", "not_your_turn"),
        ("409", "stale_version"),
    ]:
        assert f"`{code}`" in moves["responses"][status]["description"]


def test_the_move_log_is_documented_as_the_plain_list_it_is(operations):
    log = {(m, p): o for m, p, o in operations}[("get", "/api/v1/games/{id}/moves/")]
    schema = log["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema == {"type": "array", "items": {"$ref": "#/components/schemas/MoveLogEntry"}}
    assert "page" not in {parameter["name"] for parameter in log.get("parameters", [])}


# --- the typed game shapes (issue 9) -------------------------------------------------------------


@pytest.fixture(scope="module")
def schema():
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


@pytest.fixture(scope="module")
def kinds():
    from greycircle.games import registry

    return registry.all_kinds()


def free_form_places(node, path="#"):
    """Every place under `node` that allows any JSON object (`additionalProperties: {}`, or an
    object with neither properties nor a closed or typed `additionalProperties`)."""
    found = []
    if isinstance(node, dict):
        if node.get("additionalProperties") in ({}, True) or (
            node.get("type") == "object"
            and "properties" not in node
            and "additionalProperties" not in node
        ):
            found.append(path)
        for key, value in node.items():
            found += free_form_places(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += free_form_places(value, f"{path}/{index}")
    return found


def ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


def test_no_shape_is_left_free_form(schema):
    # The error's `fields` too is typed: field name -> messages, or the same again (FieldErrors).
    places = free_form_places(schema)
    assert places == [], places


def test_each_kind_has_its_envelope_and_envelopes_are_one_of_them_by_kind(schema, kinds):
    components = schema["components"]["schemas"]
    names = {kind.kind: kind.schema_name for kind in kinds}
    assert set(names.values()) >= {"Circles", "KingsCorner", "CirKis"}
    for union, suffix in [("GameEnvelope", "Game"), ("GameSummary", "GameSummary")]:
        assert components[union]["oneOf"] == [ref(f"{names[k]}{suffix}") for k in sorted(names)]
        assert components[union]["discriminator"] == {
            "propertyName": "kind",
            "mapping": {k: ref(f"{name}{suffix}")["$ref"] for k, name in names.items()},
        }
    for kind in kinds:
        game = components[f"{kind.schema_name}Game"]["properties"]
        assert game["kind"]["allOf"] == [ref(f"{kind.schema_name}KindEnum")]
        assert components[f"{kind.schema_name}KindEnum"]["enum"] == [kind.kind]
        assert game["options"]["allOf"] == [ref(f"{kind.schema_name}Options")]
        assert game["state"]["allOf"] == [ref(f"{kind.schema_name}State")]
        assert game["state"]["nullable"] is True
        assert game["legal_moves"]["items"] == ref(f"{kind.schema_name}Move")
        assert game["seats"]["items"] == ref(f"{kind.schema_name}Seat")
        seat = components[f"{kind.schema_name}Seat"]["properties"]
        assert seat["ai_level"]["oneOf"] == [
            ref(f"{kind.schema_name}AiLevelEnum"),
            ref("NullEnum"),
        ]
        assert components[f"{kind.schema_name}AiLevelEnum"]["enum"] == list(kind.ai_levels)


def test_every_operation_answering_a_game_answers_the_union(operations):
    by_key = {(m, p): o for m, p, o in operations}
    for key, status in [
        (("post", "/api/v1/games/"), "201"),
        (("get", "/api/v1/games/{id}/"), "200"),
        (("post", "/api/v1/games/{id}/join/"), "200"),
        (("post", "/api/v1/games/{id}/resign/"), "200"),
        (("post", "/api/v1/games/{id}/rematch/"), "201"),
        (("post", "/api/v1/games/{id}/moves/"), "200"),
    ]:
        content = by_key[key]["responses"][status]["content"]["application/json"]
        assert content["schema"] == ref("GameEnvelope"), key


def test_requests_are_typed_per_kind(schema, kinds):
    components = schema["components"]["schemas"]
    move = components["MoveRequestRequest"]["properties"]["move"]
    assert move["oneOf"] == [ref(f"{kind.schema_name}MoveRequest") for kind in kinds]
    # A move sent on a game's socket is typed by the kinds' moves too.
    frame_move = components["MoveFrame"]["properties"]["move"]
    assert frame_move["oneOf"] == [ref(f"{kind.schema_name}Move") for kind in kinds]
    create = components["GameCreateRequest"]
    assert create["discriminator"]["propertyName"] == "kind"
    for kind in kinds:
        assert (
            create["discriminator"]["mapping"][kind.kind]
            == (ref(f"{kind.schema_name}GameCreateRequest")["$ref"])
        )
        request = components[f"{kind.schema_name}GameCreateRequest"]["properties"]
        assert request["options"]["allOf"] == [ref(f"{kind.schema_name}OptionsRequest")]
        assert request["seats"]["items"] == ref(f"{kind.schema_name}NewSeatRequest")
        # Requests are closed: the engines refuse keys they do not know.
        assert components[f"{kind.schema_name}OptionsRequest"]["additionalProperties"] is False
    kings_corner = components["KingsCornerMoveRequest"]
    assert kings_corner["discriminator"]["propertyName"] == "action"
    assert set(kings_corner["discriminator"]["mapping"]) == {"play", "move_pile", "end_turn"}
    assert "from" in components["KingsCornerMovePileRequest"]["properties"]


def test_the_move_log_is_one_of_the_kinds_entries(schema, kinds):
    components = schema["components"]["schemas"]
    assert components["MoveLogEntry"]["oneOf"] == [
        ref(f"{kind.schema_name}MoveLogEntry") for kind in kinds
    ]
    circles = components["CirclesMoveLogEntry"]
    assert {"number", "seat", "at", "imported", "square", "flipped", "passed"} <= set(
        circles["required"]
    )
    end_turn = components["KingsCornerEndTurnLogEntry"]
    assert "card" in end_turn["properties"]
    assert "card" not in end_turn["required"]  # only the drawer sees it


def test_options_in_responses_always_carry_every_option(schema):
    options = schema["components"]["schemas"]["CirKisOptions"]
    assert options["required"] == ["center_ring", "long_game"]


def test_game_ids_in_paths_are_integers_as_in_responses(schema):
    path_ids = [
        parameter["schema"]
        for methods in schema["paths"].values()
        for operation in methods.values()
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "path" and parameter["name"] == "id"
    ]
    assert path_ids
    assert all(id_schema == ROW_ID_SCHEMA for id_schema in path_ids)
