"""Strict validation of API responses against the OpenAPI schema the app serves.

OpenAPI 3.0 schemas are JSON Schema draft 4 plus `nullable`; this turns `nullable` into
`anyOf [..., null]` and validates each JSON response body with jsonschema, so a response that a
strict generated client would refuse (a `oneOf` matched twice, a pattern, a missing required
field) fails the test that received it. `ComponentValidator` checks JSON that no operation sends
(the sockets' frames) against a component by its name.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema


def _json_schema(node: Any) -> Any:
    """`node` with every `nullable: true` spelled as JSON Schema spells it."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable"):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


class ComponentValidator:
    """Validates JSON against a named component of the schema (e.g. a socket frame)."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.components = _json_schema(schema["components"])
        self.checked = 0

    def validate_component(self, name: str, body: Any) -> None:
        assert name in self.components["schemas"], f"the schema has no component {name}"
        self._validate({"$ref": f"#/components/schemas/{name}"}, body)

    def _validate(self, schema: dict[str, Any], body: Any) -> None:
        jsonschema.Draft4Validator({**schema, "components": self.components}).validate(body)
        self.checked += 1


class ResponseValidator(ComponentValidator):
    """Validates a response to `method path` against what the schema says it answers."""

    def __init__(self, schema: dict[str, Any]) -> None:
        super().__init__(schema)
        self.operations = [
            (re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$"), methods)
            for path, methods in schema["paths"].items()
        ]

    def validate(self, *, method: str, path: str, status: int, body: Any) -> None:
        operation = self._operation(method, path)
        responses = operation["responses"]
        response = responses.get(str(status))
        assert response is not None, f"{method} {path} answered {status}, not in the schema"
        content = response.get("content", {}).get("application/json")
        assert content is not None, f"{method} {path} {status} documents no JSON body"
        self._validate(_json_schema(content["schema"]), body)

    def _operation(self, method: str, path: str) -> dict[str, Any]:
        for pattern, methods in self.operations:
            if pattern.match(path) and method.lower() in methods:
                return methods[method.lower()]
        raise AssertionError(f"{method} {path} is not in the schema")
