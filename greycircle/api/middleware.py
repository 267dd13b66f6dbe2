"""Middleware that guards the API before any view reads a request.

Library seam (UPGRADING.md, "django-allauth"): django-allauth==65.22.1. `Retry-After` on allauth's
429s reads its rates with `allauth.core.internal.ratelimit.parse_rates`.

`request_limits` caps the size of request bodies sent to the REST API (/api/) and to allauth
headless (/_allauth/), and refuses JSON that nests deeper than `jsonlimits.MAX_DEPTH` before
anything parses it: Python's decoder (and everything that walks its result) recurses once per
level, so a couple of kilobytes of `[[[[...` would otherwise end in `RecursionError` and a 500.
Refusals use the API's error shape, `{"code": ..., "detail": ...}`; the answers on /_allauth/ also
carry allauth's own shape (`status`, `errors`) so that both kinds of client understand them.

`retry_after` makes every rate-limited answer of allauth say when to retry.
"""

from __future__ import annotations

from collections.abc import Callable
from http import HTTPStatus

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.decorators import sync_and_async_middleware

from accounts.adapter import RETRY_AFTER_ATTRIBUTE
from greycircle.api.jsonlimits import MAX_DEPTH, JsonRejected, json_depth, json_loads_limited

API_PREFIX = "/api/"
ALLAUTH_PREFIX = "/_allauth/"
ACCOUNTS_PREFIX = "/accounts/"
NO_BODY_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


def _refusal(request: HttpRequest, status: int, code: str, detail: str) -> JsonResponse:
    body: dict[str, object] = {"code": code, "detail": detail}
    if request.path_info.startswith(ALLAUTH_PREFIX):
        body.update(status=status, errors=[{"code": code, "message": detail}])
    return JsonResponse(body, status=status)


def _too_large(request: HttpRequest, limit: int) -> JsonResponse:
    return _refusal(
        request,
        HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
        "too_large",
        f"The request body is larger than {limit} bytes.",
    )


def check_request(request: HttpRequest) -> HttpResponse | None:
    """A refusal for a request whose body is too large or nests too deep, else None."""
    path = request.path_info
    allauth = path.startswith(ALLAUTH_PREFIX)
    if not (allauth or path.startswith(API_PREFIX)):
        return None
    limit: int = settings.API_MAX_BODY_BYTES
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return _refusal(request, HTTPStatus.BAD_REQUEST, "invalid", "Invalid Content-Length.")
    if declared > limit:
        return _too_large(request, limit)
    if request.method in NO_BODY_METHODS:
        return None
    # allauth headless parses every body as JSON, whatever its declared type; DRF only JSON ones.
    if not (allauth or "json" in (request.content_type or "")):
        return None
    try:
        body = request.body  # at most DATA_UPLOAD_MAX_MEMORY_SIZE (+1) bytes are read
    except RequestDataTooBig:
        return _too_large(request, limit)
    if len(body) > limit:  # no (or an understated) Content-Length
        return _too_large(request, limit)
    if not body:
        return None
    try:
        if not allauth:
            # The view parses it (DRF answers malformed JSON with 400 parse_error).
            if json_depth(body) > MAX_DEPTH:
                raise JsonRejected("too_deep", f"The JSON nests deeper than {MAX_DEPTH} levels.")
            return None
        # allauth answers malformed JSON with an empty, non-JSON 400; answer for it.
        data = json_loads_limited(body, max_bytes=limit)
    except JsonRejected as rejected:
        code = "parse_error" if rejected.code == "malformed" else rejected.code
        status = HTTPStatus.REQUEST_ENTITY_TOO_LARGE if code == "too_large" else 400
        return _refusal(request, status, code, rejected.detail)
    if not isinstance(data, dict):
        return _refusal(request, 400, "parse_error", "The request body must be a JSON object.")
    return None


@sync_and_async_middleware
def request_limits(get_response: Callable) -> Callable:
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponse:
            # The body is already buffered by the ASGI handler: checking it does not block.
            return check_request(request) or await get_response(request)

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponse:
        return check_request(request) or get_response(request)

    return middleware


# --- Retry-After -----------------------------------------------------------------------------


def _rate_limit_window(path: str) -> int:
    """The longest window of the allauth rate limits that may have refused a request to `path`.

    By then every attempt counted against those limits has expired, so it is a safe Retry-After.
    """
    from allauth.account import app_settings
    from allauth.core.internal.ratelimit import parse_rates

    limits = app_settings.RATE_LIMITS
    tail = path.rstrip("/").rsplit("/", 1)[-1]
    actions = [tail] if tail in {"login", "signup"} else [a for a in limits if a != "login_failed"]
    windows = [rate.duration for action in actions for rate in parse_rates(limits.get(action))]
    return int(max(windows, default=60))


def add_retry_after(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    retry_after = getattr(request, RETRY_AFTER_ATTRIBUTE, None)
    if retry_after is not None and response.status_code == HTTPStatus.OK:
        # The log-in form, shown again with "too many failed login attempts".
        response.status_code = HTTPStatus.TOO_MANY_REQUESTS
        response["Retry-After"] = str(retry_after)
    elif (
        response.status_code == HTTPStatus.TOO_MANY_REQUESTS
        and not response.has_header("Retry-After")
        and request.path_info.startswith((ALLAUTH_PREFIX, ACCOUNTS_PREFIX))
    ):
        response["Retry-After"] = str(_rate_limit_window(request.path_info))
    return response


@sync_and_async_middleware
def retry_after(get_response: Callable) -> Callable:
    """Rate-limited answers of allauth (browser and headless) carry Retry-After."""
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponse:
            return add_retry_after(request, await get_response(request))

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponse:
        return add_retry_after(request, get_response(request))

    return middleware
