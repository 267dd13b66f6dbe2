"""`/api/v1/reports/`: report a player, and see the reports I filed.

Thin: parse, call the service (greycircle.reports.services), serialise. A report as its reporter
sees it says only whether it was handled, never the outcome.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from greycircle.api.errors import error_body
from greycircle.api.schema import error_response
from greycircle.reports import selectors, services
from greycircle.reports.errors import ReportThrottled
from greycircle.reports.models import Report
from greycircle.reports.serializers import ReportCreateSerializer, ReportSerializer

OPERATIONS = {
    "list": extend_schema(
        summary="The reports I filed",
        description="Newest first, paginated; each says whether a moderator has handled it.",
        responses={200: ReportSerializer(many=True)},
    ),
    "create": extend_schema(
        summary="Report a player",
        description="Ask the moderators to look at a player: at a message they wrote "
        "(`game_message`, in a game's chat; `direct_message`, to me), at a game (`game`, and "
        "`username` for which of its players, unless only one other person plays it) or at "
        "their profile (`username` alone): one target. Only what I can see: a target that does "
        "not exist and one I may not see are both `not_found`. Never myself; one open report "
        "per target; `THROTTLE_REPORT_FILE` a day (10). Guests may report messages only.",
        request=ReportCreateSerializer,
        responses={
            201: ReportSerializer,
            400: error_response(
                "The report cannot be filed as asked.",
                "invalid",
                "no_target",
                "one_target",
                "self",
                "duplicate",
                "guest",
                "username_required",
                "comment_too_long",
                "unknown_reason",
            ),
            404: error_response(
                "No such player, game or message, or not one I can see.", "not_found"
            ),
            429: error_response(
                "Too many reports today (`THROTTLE_REPORT_FILE`); wait the seconds in "
                "`Retry-After`.",
                "throttled",
            ),
        },
    ),
}


@extend_schema_view(**OPERATIONS)
class ReportViewSet(viewsets.GenericViewSet):
    serializer_class = ReportSerializer

    def get_queryset(self):
        return Report.objects.none()

    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.reports_filed_by(user=request.user))
        return self.get_paginated_response(
            [selectors.report_json(report=report) for report in page]
        )

    def create(self, request: Request) -> Response:
        serializer = ReportCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            report = services.report_file(
                reporter=request.user,
                reason=data["reason"],
                comment=data["comment"],
                username=data["username"],
                game_id=data["game"],
                game_message_id=data["game_message"],
                direct_message_id=data["direct_message"],
            )
        except ReportThrottled as refusal:
            retry_after = refusal.extra["retry_after"]
            return Response(
                error_body(code=refusal.code, detail=refusal.detail, retry_after=retry_after),
                status=status.HTTP_429_TOO_MANY_REQUESTS,
                headers={"Retry-After": str(retry_after)},
            )
        return Response(
            ReportSerializer(selectors.report_json(report=report)).data,
            status=status.HTTP_201_CREATED,
        )
