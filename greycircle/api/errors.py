"""One error shape for the whole API: `{"code": ..., "detail": ..., "fields": {...}?}`."""

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from greycircle.games.errors import GameError


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


_DEFAULT_CODES = {
    400: "invalid",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    415: "unsupported_media_type",
    429: "throttled",
}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, GameError):
        exc = ApiError(code=exc.code, detail=exc.detail, status_code=exc.status, extra=exc.extra)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ApiError):
        body: dict[str, Any] = {"code": exc.error_code, "detail": str(exc.detail), **exc.extra}
    elif isinstance(exc, exceptions.ValidationError):
        body = {"code": "invalid", "detail": "The request is not valid.", "fields": exc.detail}
        if isinstance(exc.detail, list):
            body = {"code": "invalid", "detail": " ".join(str(d) for d in exc.detail)}
        elif isinstance(exc.detail, dict) and set(exc.detail) == {"non_field_errors"}:
            body = {"code": "invalid", "detail": " ".join(exc.detail["non_field_errors"])}
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = getattr(detail, "code", None) or _DEFAULT_CODES.get(response.status_code, "error")
        body = {"code": code, "detail": str(detail)}
    response.data = body
    return response
