"""`/api/v1/users/{username}/`: a player's profile."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from greycircle.api.errors import ApiError
from greycircle.api.schema import error_response
from greycircle.profiles import selectors
from greycircle.profiles.serializers import ProfileSerializer


class ProfileView(GenericAPIView):
    serializer_class = ProfileSerializer

    @extend_schema(
        summary="A player's profile",
        description="Joined, online now, per game kind: games played, won, lost and tied (against "
        "people, against the computer by level, and against you), a rating per speed (live and "
        "correspondence are rated apart); recent games. Answers 404 for nobody, an inactive "
        "account, and across a block either way.",
        parameters=[
            OpenApiParameter("username", OpenApiTypes.STR, OpenApiParameter.PATH),
        ],
        responses={200: ProfileSerializer, 404: error_response("No such player.", "not_found")},
    )
    def get(self, request: Request, username: str) -> Response:
        user = selectors.profile_user_for(username=username, viewer=request.user)
        if user is None:
            raise ApiError(code="not_found", detail="No such player.", status_code=404)
        return Response(
            ProfileSerializer(selectors.profile_for(user=user, viewer=request.user)).data
        )
