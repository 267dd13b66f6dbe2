"""`/api/v1/leaderboards/{kind}/?speed=`: the best ratings of a game kind at a speed."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.generics import ListAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from greycircle.api.errors import ApiError
from greycircle.api.schema import error_response
from greycircle.games import registry
from greycircle.games.models import GameSpeed
from greycircle.ratings import selectors
from greycircle.ratings.serializers import LeaderboardEntrySerializer


class LeaderboardView(ListAPIView):
    serializer_class = LeaderboardEntrySerializer
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Leaderboard of a game kind at a speed",
        description="Players with at least 3 rated games of the kind at the speed, by Glicko-2 "
        "rating, best first; a rating whose deviation is still above 110 is there too, marked "
        "`provisional`. Live and correspondence games are rated apart, each speed its own "
        "board. Only games between people are rated, casual games never; a game of several "
        "players counts as a win against each player who did not win, and a draw between "
        "players who both won or both lost.",
        parameters=[
            OpenApiParameter(
                "kind", OpenApiTypes.STR, OpenApiParameter.PATH, description="A game kind."
            ),
            OpenApiParameter(
                "speed",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                enum=GameSpeed.values,
                default=GameSpeed.CORRESPONDENCE.value,
                description="Which ratings: of live games (a clock per seat) or of correspondence "
                "games (days per move).",
            ),
        ],
        responses={
            200: LeaderboardEntrySerializer(many=True),
            400: error_response("There is no such speed.", "invalid_speed"),
            404: error_response("There is no such game kind.", "unknown_kind"),
        },
    )
    def get(self, request: Request, kind: str) -> Response:
        try:
            registry.get(kind)
        except registry.UnknownKind:
            raise ApiError(
                code="unknown_kind", detail=f"There is no game called {kind!r}.", status_code=404
            ) from None
        speed = request.query_params.get("speed", GameSpeed.CORRESPONDENCE)
        if speed not in GameSpeed.values:
            raise ApiError(
                code="invalid_speed",
                detail=f"There is no speed {speed!r}: it is live or correspondence.",
                status_code=400,
            )
        ratings = selectors.leaderboard(kind=kind, speed=speed)
        page = self.paginate_queryset(ratings)
        first_rank = self.paginator.page.start_index() if page else 1
        for rank, rating in enumerate(page, start=first_rank):
            rating.rank = rank
        return self.get_paginated_response(self.get_serializer(page, many=True).data)
