"""The OpenAPI schema as app developers need it: every error response names its error codes.

Views declare the errors their own logic can give with `error_response`. The errors every
operation can give (not signed in, throttled; for a body: not JSON, not valid; for a write from a
browser: CSRF) come from the framework rather than from any one view, so `declare_common_errors`,
a drf-spectacular postprocessing hook, adds them to every operation and makes sure each error
response lists its codes in one recognisable sentence: "Error codes: `a`, `b`."

Shapes that no operation sends (the sockets' frames, greycircle.games.frames) are published with
`components_publish` and added as components by the hook `add_published_components`.

Library seam (UPGRADING.md, "drf-spectacular"): drf-spectacular==0.30.0. Uses
`drf_spectacular.plumbing.build_mocked_view` (outside the documented API) to resolve the published
components' serializers as an operation's would be; no public hook adds components that no
operation uses.
"""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.plumbing import build_mocked_view
from drf_spectacular.settings import spectacular_settings
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from greycircle.api.errors import DEFAULT_CODES
from greycircle.api.serializers import FIELD_ERRORS, FIELD_ERRORS_SCHEMA, ErrorSerializer

ERROR_SCHEMA = "Error"
_CODES_SENTENCE = re.compile(r"\s*Error codes: (`[a-z_]+`(?:, `[a-z_]+`)*)\.$")

# status -> (description, codes) that every operation can answer.
_EVERY_OPERATION = {
    401: (
        "Not signed in, or the session token is no longer valid.",
        ["not_authenticated", "authentication_failed"],
    ),
    429: ("Too many requests; wait the seconds in `Retry-After`.", ["throttled"]),
}
# ... every operation that takes a body (it must be valid JSON of the right shape).
_WITH_BODY = {
    400: ("Invalid request.", ["invalid", "parse_error", "too_deep"]),
    413: ("The body is larger than `API_MAX_BODY_BYTES`.", ["too_large"]),
    415: ("The body is not JSON (`Content-Type: application/json`).", ["unsupported_media_type"]),
}
# ... every write: a browser's session needs the CSRF token.
_WRITES = {403: ("Not allowed (a browser must send its CSRF token).", ["permission_denied"])}
_WRITE_METHODS = {"post", "put", "patch", "delete"}
# The component ErrorSerializer becomes, in case no view happened to reference it.
_ERROR_COMPONENT = {
    "type": "object",
    "properties": {"code": {"type": "string"}, "detail": {"type": "string"}},
    "required": ["code", "detail"],
}


def describe(description: str, codes: list[str]) -> str:
    """`description` followed by the sentence that lists `codes`."""
    listed = ", ".join(f"`{code}`" for code in codes)
    return f"{description} Error codes: {listed}.".strip()


def error_response(description: str, *codes: str) -> OpenApiResponse:
    """An error response (the API's error shape) that can carry these `codes`."""
    return OpenApiResponse(ErrorSerializer, description=describe(description, list(codes)))


def _with_codes(response: dict[str, Any], description: str, codes: list[str]) -> None:
    """Add `codes` to the codes `response` lists (keeping its own description, if any)."""
    text = response.get("description", "")
    found = _CODES_SENTENCE.search(text)
    known = re.findall(r"`([a-z_]+)`", found.group(1)) if found else []
    if found:
        text = text[: found.start()]
    merged = known + [code for code in codes if code not in known]
    response["description"] = describe(text or description, merged)


def declare_common_errors(
    result: dict[str, Any], generator: Any, request: Any, public: bool, **kwargs: Any
) -> dict[str, Any]:
    """Add 401 and 429 (and the body and CSRF errors) to every operation; list every code."""
    error = {"application/json": {"schema": {"$ref": f"#/components/schemas/{ERROR_SCHEMA}"}}}
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault(ERROR_SCHEMA, _ERROR_COMPONENT)
    schemas.setdefault(FIELD_ERRORS, FIELD_ERRORS_SCHEMA)
    for methods in result.get("paths", {}).values():
        for method, operation in methods.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            common = dict(_EVERY_OPERATION)
            if "requestBody" in operation:
                common |= _WITH_BODY
            if method in _WRITE_METHODS:
                common |= _WRITES
            responses = operation["responses"]
            for status, (description, codes) in sorted(common.items()):
                response = responses.setdefault(str(status), {"content": error})
                _with_codes(response, description, codes)
            for status, response in responses.items():
                if int(status) >= 400 and not _CODES_SENTENCE.search(
                    response.get("description", "")
                ):
                    code = DEFAULT_CODES.get(int(status), "error")
                    _with_codes(response, response.get("description", ""), [code])
            operation["responses"] = dict(sorted(responses.items()))
    return result


# Serializers published as components although no operation uses them (apps add theirs when they
# are ready: the platform never imports them).
_PUBLISHED: list[type[serializers.BaseSerializer]] = []


def components_publish(*serializer_classes: type[serializers.BaseSerializer]) -> None:
    """Publish these serializers as components of the schema (with all they reference)."""
    _PUBLISHED.extend(cls for cls in serializer_classes if cls not in _PUBLISHED)


def add_published_components(
    result: dict[str, Any], generator: Any, request: Any, public: bool, **kwargs: Any
) -> dict[str, Any]:
    """Add the published serializers' components, resolved in the generator's own registry as
    the operations' are (so the components they share, e.g. `GameEnvelope`, are the same)."""
    if not _PUBLISHED:
        return result
    view = build_mocked_view(
        method="GET", path="/", extend_schema_decorator=extend_schema(), registry=generator.registry
    )
    for serializer_class in _PUBLISHED:
        view.schema.resolve_serializer(serializer_class, "response")
    built = generator.registry.build(spectacular_settings.APPEND_COMPONENTS)
    components = result.setdefault("components", {})
    for component_type, named in built.items():
        section = {**named, **components.get(component_type, {})}
        components[component_type] = dict(sorted(section.items()))
    return result
