"""Page-number pagination whose refusals are in the API's error shape.

DRF answers a bad `page` with a bare 404 "Invalid page." and quietly ignores a bad `page_size`;
an app deserves to learn which parameter was wrong, so both are refused explicitly.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request

from greycircle.api.errors import ApiError


def _positive_int(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdecimal() and int(text) > 0 else None


class Pagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_page_size(self, request: Request) -> int | None:
        """The requested page size (at most `max_page_size`); 400 if it is not a number."""
        raw = request.query_params.get(self.page_size_query_param)
        if not raw:
            return self.page_size
        size = _positive_int(raw)
        if size is None:
            raise ApiError(
                code="invalid",
                detail="The request is not valid.",
                extra={"fields": {"page_size": ["A page size is a whole number from 1."]}},
            )
        return min(size, self.max_page_size)

    def paginate_queryset(
        self, queryset: Any, request: Request, view: Any = None
    ) -> list[Any] | None:
        """One page; `invalid_page` (400 if `page` is not a number, 404 past the last page)."""
        raw = request.query_params.get(self.page_query_param)
        if raw and raw not in self.last_page_strings and _positive_int(raw) is None:
            raise ApiError(
                code="invalid_page",
                detail="A page is a whole number from 1 (or 'last').",
                extra={"fields": {"page": ["A page is a whole number from 1."]}},
            )
        try:
            return super().paginate_queryset(queryset, request, view)
        except NotFound:
            raise ApiError(
                code="invalid_page", detail="There is no such page.", status_code=404
            ) from None
