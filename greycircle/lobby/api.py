"""REST endpoints of the lobby (`/api/v1/seeks/`): seek a game, see the seeks and the pools'
counts, cancel a seek. Thin: parse, call a service or selector, serialise. Live counts and the
game's start come over the sockets (`ws/lobby/`, `ws/me/`'s `game_started`)."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from greycircle.api.schema import error_response
from greycircle.games.api_schema import RATED_BARRED
from greycircle.lobby import selectors, services
from greycircle.lobby.serializers import PoolSerializer, SeekCreateSerializer, SeekSerializer

NOT_FOUND = {404: error_response("No such seek, or not one you may see.", "not_found")}

SEEK_OPERATIONS = {
    "list": extend_schema(
        summary="The seeks waiting in the lobby",
        description="Mine and everyone's (but those across a block from me), newest first; "
        "paginated. `ws/lobby/` says when they change.",
        responses={200: SeekSerializer(many=True)},
    ),
    "create": extend_schema(
        summary="Seek a game",
        description="Wait in the pool of a kind, time control (or days per move), seat count and "
        "rated or casual, to be paired with players close in rating (the window widens while "
        "you wait; a custom seek keeps its `rating_range`), never with anyone across a block. "
        "Paired at once if the pool holds players who fit: the seek answered is then `matched` "
        'with its `game`; otherwise `ws/me/` sends `{"type": "game_started"}` when it is. A live '
        "seek lasts while you have a socket open (`ws/me/` or `ws/lobby/`); one made without any "
        "expires after 15 s. Correspondence seeks wait until cancelled or matched. Guests seek "
        "casual games only.",
        request=SeekCreateSerializer,
        responses={
            201: SeekSerializer,
            400: error_response(
                "The seek cannot be made as asked.",
                "invalid",
                "unknown_kind",
                "bad_seats",
                "bad_time_control",
                "bad_days_per_move",
                "bad_rating_range",
                "guest_rated",
                "closed_account",
                "seek_exists",
                "live_seek_exists",
                "playing_live",
                "too_many_seeks",
            ),
            **RATED_BARRED,
            429: error_response(
                "Too many seeks made (`THROTTLE_SEEK_CREATE`); wait the seconds in `Retry-After`.",
                "throttled",
            ),
        },
    ),
    "retrieve": extend_schema(
        summary="A seek",
        description="Mine, whatever became of it (for a day after it ended), or another's that is "
        "waiting.",
        responses={200: SeekSerializer, **NOT_FOUND},
    ),
    "destroy": extend_schema(
        summary="Cancel my seek",
        responses={
            204: OpenApiResponse(description="Cancelled."),
            400: error_response("The seek is no longer waiting.", "not_waiting"),
            **NOT_FOUND,
        },
    ),
    "pools": extend_schema(
        summary="The pools' counts",
        description="Every pool with players waiting in it or playing a game it paired, by name; "
        "a pool absent has nobody. `ws/lobby/` sends them again whenever they change.",
        responses={200: PoolSerializer(many=True)},
    ),
}


@extend_schema_view(**SEEK_OPERATIONS)
class SeekViewSet(viewsets.GenericViewSet):
    serializer_class = SeekSerializer
    lookup_value_converter = "id"

    def get_queryset(self):
        return selectors.seeks_visible_to(viewer=self.request.user)

    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.seeks_visible_to(viewer=request.user))
        return self.get_paginated_response(
            [selectors.seek_json(seek=seek, viewer=request.user) for seek in page]
        )

    def create(self, request: Request) -> Response:
        serializer = SeekCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        seek = services.seek_create(
            user=request.user,
            kind=data["kind"],
            seats=data["seats"],
            time_control=data["time_control"],
            days_per_move=data["days_per_move"],
            rated=data["rated"],
            rating_range=data["rating_range"],
        )
        return Response(
            selectors.seek_json(seek=seek, viewer=request.user), status=status.HTTP_201_CREATED
        )

    def retrieve(self, request: Request, pk: str) -> Response:
        seek = selectors.seek_of(seek_id=int(pk), viewer=request.user)
        if seek is None:
            raise Http404
        return Response(selectors.seek_json(seek=seek, viewer=request.user))

    def destroy(self, request: Request, pk: str) -> Response:
        services.seek_cancel(seek_id=int(pk), user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @action(detail=False, methods=["get"], pagination_class=None)
    def pools(self, request: Request) -> Response:
        return Response(selectors.pools_counts())

    def get_throttles(self):
        self.throttle_scope = "seek_create" if self.action == "create" else None
        return super().get_throttles()
