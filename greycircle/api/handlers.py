"""Django's error views (`handler400` ... `handler500`), answering API clients in the API's shape.

Errors raised inside a DRF view go through `greycircle.api.errors.exception_handler`; these views
answer what never reaches one: a path the URL resolver cannot match (`/api/v1/games/abc/`), a
`SuspiciousOperation`, an exception DRF leaves alone. Under the API prefixes an app gets JSON it
can parse; everywhere else people get the site's pages (templates 404.html, 500.html: the site's
navigation around a short message).
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt

from greycircle.api.errors import DEFAULT_CODES, error_body

API_PREFIXES = ("/api/", "/_allauth/")

logger = logging.getLogger(__name__)


def _is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIXES)


def _json(status: int, detail: str) -> JsonResponse:
    return JsonResponse(error_body(code=DEFAULT_CODES[status], detail=detail), status=status)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(
            error_body(code="bad_request", detail="The request could not be understood."),
            status=400,
        )
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return _json(403, "You do not have permission to do this.")
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return _json(404, "Not found.")
    return defaults.page_not_found(request, exception)


@csrf_exempt
def api_path_not_found(request: HttpRequest, path: str) -> HttpResponse:
    """The last route under /api/: no API path matched. A route rather than `handler404` alone,
    so that apps get JSON with DEBUG on too (Django then answers an unmatched path itself)."""
    return _json(404, "Not found.")


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return _json(500, "Something went wrong on our side; the error has been logged.")
    try:
        # The page with the user's own navigation (their session, their unread count)...
        return render(request, "500.html", status=500)
    except Exception:
        # ...unless what failed reads what the navigation needs (the database): then the page as
        # a visitor sees it, rendered without the request, so it needs nothing that could fail.
        logger.warning("the error page could not show the user's navigation", exc_info=True)
        return defaults.server_error(request)
