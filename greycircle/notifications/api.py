"""`/api/v1/notifications/`: my inbox, and marking it read.

Thin: parse, call a selector or service (greycircle.notifications), serialise. Only the recipient
sees their notifications: another user's id is not found.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from greycircle.api.pagination import Pagination
from greycircle.api.schema import error_response
from greycircle.notifications import selectors, services
from greycircle.notifications.models import Notification
from greycircle.notifications.serializers import (
    NotificationListQuerySerializer,
    NotificationReadSerializer,
    NotificationSerializer,
    NotificationsReadAllFilterSerializer,
    NotificationsReadAllSerializer,
)


class InboxPagination(Pagination):
    """A page of notifications, with how many of all of mine are unread (`unread_count`)."""

    unread_count = 0

    def get_paginated_response(self, data: Any) -> Response:
        response = super().get_paginated_response(data)
        response.data["unread_count"] = self.unread_count
        return response

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        paginated = super().get_paginated_response_schema(schema)
        paginated["properties"]["unread_count"] = {
            "type": "integer",
            "description": "How many of my notifications are unread (not only on this page).",
        }
        paginated["required"] = [*paginated.get("required", []), "unread_count"]
        return paginated


class NotificationViewSet(viewsets.GenericViewSet):
    serializer_class = NotificationSerializer
    pagination_class = InboxPagination
    lookup_value_converter = "id"

    def get_queryset(self):
        return Notification.objects.none()

    @extend_schema(
        summary="My notifications",
        description="Newest first, paginated, with `unread_count`. Each `text` is written for "
        "me and `link` is the page it is about (a game, my friends). New ones also arrive on "
        "`ws/me/`.",
        parameters=[NotificationListQuerySerializer],
        responses={
            200: NotificationSerializer(many=True),
            400: error_response(
                "A filter or page parameter is not valid.", "invalid", "invalid_page"
            ),
            404: error_response("There is no such page.", "invalid_page"),
        },
    )
    def list(self, request: Request) -> Response:
        query = NotificationListQuerySerializer(
            data={name: value for name, value in request.query_params.items() if value}
        )
        query.is_valid(raise_exception=True)
        notifications = selectors.notifications_for(
            user=request.user, unread_only=query.validated_data.get("unread", False)
        )
        page = self.paginate_queryset(notifications)
        self.paginator.unread_count = selectors.notifications_unread_count(user=request.user)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        summary="Mark a notification read",
        description='My other streams and tabs get `{"type": "unread"}` on `ws/me/` with the '
        "new count.",
        request=None,
        responses={
            200: NotificationReadSerializer,
            404: error_response("No such notification (of mine).", "not_found"),
        },
    )
    @action(detail=True, methods=["post"])
    def read(self, request: Request, pk: str) -> Response:
        notification = services.notification_mark_read(user=request.user, notification_id=int(pk))
        body = {
            "notification": notification,
            "unread_count": selectors.notifications_unread_count(user=request.user),
        }
        return Response(NotificationReadSerializer(body).data)

    @extend_schema(
        summary="Mark all my notifications read",
        description="All of them, or those about one `game` (as opening the game's page does).",
        request=NotificationsReadAllFilterSerializer,
        responses={200: NotificationsReadAllSerializer},
    )
    @action(detail=False, methods=["post"], url_path="read-all")
    def read_all(self, request: Request) -> Response:
        serializer = NotificationsReadAllFilterSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        marked = services.notifications_mark_all_read(
            user=request.user, game_id=serializer.validated_data.get("game")
        )
        body = {
            "marked": marked,
            "unread_count": selectors.notifications_unread_count(user=request.user),
        }
        return Response(NotificationsReadAllSerializer(body).data)
