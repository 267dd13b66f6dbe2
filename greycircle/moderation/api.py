"""`/api/v1/me/sanctions/{id}/acknowledge/`: an app's player acknowledges a warning or rename
(`/api/v1/me/`'s `sanctions`), as the site's notice does (views.notice_acknowledge).

Thin: call the service, serialise. The schema lists the error codes it can answer.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from greycircle.api.schema import error_response
from greycircle.moderation.sanctions import sanction_acknowledge
from greycircle.moderation.serializers import SanctionNoticeSerializer


class SanctionAcknowledgeView(GenericAPIView):
    serializer_class = SanctionNoticeSerializer

    @extend_schema(
        summary="Acknowledge a moderators' notice",
        description="A warning or a rename in my `sanctions` (`/api/v1/me/`) leaves the list once "
        "acknowledged; a mute or bar stays until it ends. Acknowledging twice changes nothing.",
        request=None,
        responses={
            200: SanctionNoticeSerializer,
            404: error_response("No such warning or rename of mine.", "not_found"),
        },
    )
    def post(self, request: Request, sanction_id: int) -> Response:
        sanction = sanction_acknowledge(user=request.user, sanction_id=sanction_id)
        return Response(SanctionNoticeSerializer(sanction).data)
