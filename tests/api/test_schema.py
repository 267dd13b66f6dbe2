"""The OpenAPI schema builds, validates without warnings and documents how apps authenticate."""

import pytest
import yaml
from django.core.management import call_command


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
