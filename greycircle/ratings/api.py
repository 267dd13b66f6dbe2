"""`/api/v1/leaderboards/{kind}/`: the best ratings of a game kind."""

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
from greycircle.ratings import selectors
from greycircle.ratings.serializers import LeaderboardEntrySerializer


class LeaderboardView(ListAPIView):
    serializer_class = LeaderboardEntrySerializer
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Leaderboard of a game kind",
        description="Players with at least 3 rated games, by Glicko-2 rating, best first; a "
        "rating whose deviation is still above 110 is there too, marked `provisional`. Only "
        "games between people are rated; a game of several players counts as a win against "
        "each player who did not win, and a draw between players who both won or both lost.",
        parameters=[
            OpenApiParameter(
                "kind", OpenApiTypes.STR, OpenApiParameter.PATH, description="A game kind."
            )
        ],
        responses={
            200: LeaderboardEntrySerializer(many=True),
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
        ratings = selectors.leaderboard(kind=kind)
        page = self.paginate_queryset(ratings)
        first_rank = self.paginator.page.start_index() if page else 1
        for rank, rating in enumerate(page, start=first_rank):
            rating.rank = rank
        return self.get_paginated_response(self.get_serializer(page, many=True).data)
