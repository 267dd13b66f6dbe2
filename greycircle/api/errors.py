"""One error shape for the whole API: `{"code": ..., "detail": ..., "fields": {...}?}`.

Messages may name the input they refuse, so every message is capped on the way out: a client
that sends ten kilobytes of garbage never gets it back (`shorten` for values we quote ourselves,
`MAX_MESSAGE` for whatever a rules engine or DRF put in a message).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from greycircle.errors import ServiceError

# Longest quoted input in a message we build, and longest message of any kind we send.
MAX_ECHO = 40
MAX_MESSAGE = 300


def shorten(value: object, *, limit: int = MAX_ECHO) -> str:
    """`value` as text of at most `limit` characters, to quote refused input in a message."""
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ApiError(exceptions.APIException):
    """An error with an explicit machine-readable code and optional extra members."""

    def __init__(
        self,
        *,
        code: str,
        detail: str,
        status_code: int = status.HTTP_400_BAD_REQUEST,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail=detail, code=code)
        self.status_code = status_code
        self.error_code = code
        self.extra = extra or {}


DEFAULT_CODES = {
    400: "invalid",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "too_large",
    415: "unsupported_media_type",
    429: "throttled",
    500: "server_error",
}


def error_body(*, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    """The error shape, with every message capped (also used outside DRF, see handlers)."""
    return {"code": code, "detail": shorten(detail, limit=MAX_MESSAGE), **_capped(extra)}


def _capped(value: Any) -> Any:
    """`value` (field errors: nested dicts and lists of messages) with every string capped."""
    if isinstance(value, str):
        return shorten(value, limit=MAX_MESSAGE)
    if isinstance(value, dict):
        return {key: _capped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_capped(item) for item in value]
    return value


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    # A refusal that says when to try again (chat's too_many_messages) sets Retry-After.
    retry_after = getattr(exc, "retry_after", None) if isinstance(exc, ServiceError) else None
    if isinstance(exc, ServiceError):
        exc = ApiError(code=exc.code, detail=exc.detail, status_code=exc.status, extra=exc.extra)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ApiError):
        body = error_body(code=exc.error_code, detail=str(exc.detail), **exc.extra)
    elif isinstance(exc, exceptions.ValidationError):
        body = error_body(code="invalid", detail="The request is not valid.", fields=exc.detail)
        if isinstance(exc.detail, list):
            body = error_body(code="invalid", detail=" ".join(str(d) for d in exc.detail))
        elif isinstance(exc.detail, dict) and set(exc.detail) == {"non_field_errors"}:
            body = error_body(code="invalid", detail=" ".join(exc.detail["non_field_errors"]))
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = getattr(detail, "code", None) or DEFAULT_CODES.get(response.status_code, "error")
        body = error_body(code=code, detail=str(detail))
    response.data = body
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response
