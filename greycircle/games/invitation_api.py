"""REST endpoints for invitations to games (`/api/v1/invitations/`).

Thin, as `greycircle.games.api` is: answering one is `greycircle.games.invitations`'s.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from greycircle.api.schema import error_response
from greycircle.games import invitations, selectors
from greycircle.games.api import query_validated
from greycircle.games.models import Game, Invitation
from greycircle.games.serializers import (
    GameEnvelopeSerializer,
    InvitationQuerySerializer,
    InvitationSerializer,
)

NO_SUCH_INVITATION = {404: error_response("No such invitation (of mine).", "not_found")}
SEAT_UNAVAILABLE = error_response(
    "The invitation was answered, withdrawn or has expired, or its seat is no longer yours to "
    "take (someone at the table has a block with you).",
    "invitation_not_pending",
    "invitation_expired",
    "seat_unavailable",
)
NOT_PENDING = {
    400: error_response(
        "The invitation was answered, withdrawn or has expired.",
        "invitation_not_pending",
        "invitation_expired",
    )
}


class InvitationViewSet(viewsets.GenericViewSet):
    serializer_class = InvitationSerializer
    lookup_value_converter = "id"

    def get_queryset(self):
        return Invitation.objects.none()

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), "viewer": self.request.user}

    @extend_schema(
        summary="My pending invitations to games",
        description="Sent to me and sent by me, newest first (`direction` filters them).",
        parameters=[InvitationQuerySerializer],
        responses={
            200: InvitationSerializer(many=True),
            400: error_response(
                "A filter or page parameter is not valid.", "invalid", "invalid_page"
            ),
            404: error_response("There is no such page.", "invalid_page"),
        },
    )
    def list(self, request: Request) -> Response:
        query = query_validated(request, serializer_class=InvitationQuerySerializer)
        invitations = selectors.invitations_for(user=request.user, direction=query.get("direction"))
        page = self.paginate_queryset(invitations)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def _envelope(self, game: Game) -> Response:
        game = selectors.game_get(game_id=game.pk)
        return Response(selectors.game_view_for(game=game, viewer=self.request.user))

    @extend_schema(
        summary="Accept an invitation",
        description="Only the invited player. The game starts when the last invitation to it is "
        "accepted. The inviter gets an `invitation_accepted` event on `ws/me/`. Not across a "
        "block with anyone at the table (`seat_unavailable`).",
        request=None,
        responses={
            200: GameEnvelopeSerializer,
            400: SEAT_UNAVAILABLE,
            403: error_response(
                "Only the invited player may accept; a rated game not while barred from rated "
                "games by a moderator (`detail` gives until when).",
                "not_invitee",
                "rated_barred",
            ),
            **NO_SUCH_INVITATION,
        },
    )
    @action(detail=True, methods=["post"])
    def accept(self, request: Request, pk: str) -> Response:
        return self._envelope(
            invitations.invitation_accept(invitation_id=int(pk), user=request.user)
        )

    @extend_schema(
        summary="Decline an invitation",
        description="Only the invited player. The seat opens to anyone, or the game is cancelled, "
        "as its creator chose (`on_decline`). The inviter gets an `invitation_declined` event.",
        request=None,
        responses={
            200: GameEnvelopeSerializer,
            **NOT_PENDING,
            403: error_response("Only the invited player may decline.", "not_invitee"),
            **NO_SUCH_INVITATION,
        },
    )
    @action(detail=True, methods=["post"])
    def decline(self, request: Request, pk: str) -> Response:
        return self._envelope(
            invitations.invitation_decline(invitation_id=int(pk), user=request.user)
        )

    @extend_schema(
        summary="Withdraw an invitation I sent",
        description="Only the inviter. As for a declined invitation, the seat opens or the game "
        "is cancelled (`on_decline`); the invitee gets an `invitation_cancelled` event.",
        request=None,
        responses={
            200: GameEnvelopeSerializer,
            **NOT_PENDING,
            403: error_response("Only the inviter may withdraw it.", "not_inviter"),
            **NO_SUCH_INVITATION,
        },
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:
        return self._envelope(
            invitations.invitation_cancel(invitation_id=int(pk), user=request.user)
        )
