"""REST endpoints for games (`/api/v1/games/`).

Thin: parse, authorise, call a service or selector, serialise.
"""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from greycircle.api.errors import ApiError
from greycircle.games import selectors, services
from greycircle.games.models import Game
from greycircle.games.serializers import (
    ErrorSerializer,
    GameCreateSerializer,
    GameEnvelopeSerializer,
    GameSummarySerializer,
    MoveLogEntrySerializer,
    MoveRequestSerializer,
    RecordSerializer,
)

ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Invalid request or illegal move."),
    403: OpenApiResponse(ErrorSerializer, description="not_a_player or not_your_turn."),
    404: OpenApiResponse(ErrorSerializer, description="No such game."),
}


class GameViewSet(viewsets.GenericViewSet):
    serializer_class = GameEnvelopeSerializer
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        return Game.objects.none()

    def _game(self) -> Game:
        game = selectors.game_for_viewer(game_id=int(self.kwargs["pk"]))
        if game is None:
            raise Http404
        return game

    def _envelope(self, game: Game, status_code: int = status.HTTP_200_OK) -> Response:
        return Response(
            selectors.game_view_for(game=game, viewer=self.request.user), status=status_code
        )

    @extend_schema(
        summary="List my games",
        parameters=[
            OpenApiParameter("kind", str, description="Only games of this kind."),
            OpenApiParameter("status", str, enum=["open", "active", "finished", "aborted"]),
            OpenApiParameter("my_turn", bool, description="Only games waiting for my move."),
        ],
        responses=GameSummarySerializer(many=True),
    )
    def list(self, request: Request) -> Response:
        games = selectors.games_for_user(
            user=request.user,
            kind=request.query_params.get("kind") or None,
            status=request.query_params.get("status") or None,
            my_turn=request.query_params.get("my_turn", "").lower() in {"1", "true", "yes"},
        )
        return self._summaries(games)

    @extend_schema(
        summary="Games waiting for players",
        parameters=[OpenApiParameter("kind", str, description="Only games of this kind.")],
        responses=GameSummarySerializer(many=True),
    )
    @action(detail=False, methods=["get"])
    def open(self, request: Request) -> Response:
        games = selectors.games_open(viewer=request.user, kind=request.query_params.get("kind"))
        return self._summaries(games)

    def _summaries(self, games) -> Response:
        page = self.paginate_queryset(games)
        return self.get_paginated_response(
            [selectors.game_summary_for(game=game, viewer=self.request.user) for game in page]
        )

    @extend_schema(
        summary="Start a game",
        request=GameCreateSerializer,
        responses={201: GameEnvelopeSerializer, **ERRORS},
    )
    def create(self, request: Request) -> Response:
        serializer = GameCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        game = services.game_create(
            creator=request.user,
            kind=serializer.validated_data["kind"],
            opponents=serializer.validated_data["seats"],
            options=serializer.validated_data["options"],
            record=serializer.validated_data["record"],
        )
        return self._envelope(game, status.HTTP_201_CREATED)

    @extend_schema(
        summary="A game as I may see it", responses={200: GameEnvelopeSerializer, **ERRORS}
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        return Response(selectors.game_view_for(game=self._game(), viewer=request.user))

    @extend_schema(
        summary="The game's record",
        description="The moves so far in the kind's notation (Circles: 'c5d6c3...'). Import a "
        "record by starting a game with `record`.",
        responses={200: RecordSerializer, **ERRORS},
    )
    @action(detail=True, methods=["get"])
    def record(self, request: Request, pk: str) -> Response:
        game = self._game()
        record = selectors.game_record_for(game=game)
        if record is None:
            raise ApiError(code="no_record_notation", detail="This game has no record notation.")
        return Response({"kind": game.kind, "record": record})

    @extend_schema(
        summary="Take an open seat", request=None, responses={200: GameEnvelopeSerializer, **ERRORS}
    )
    @action(detail=True, methods=["post"])
    def join(self, request: Request, pk: str) -> Response:
        game = services.game_join(game_id=int(pk), user=request.user)
        return self._envelope(game)

    @extend_schema(
        summary="Give up the game", request=None, responses={200: GameEnvelopeSerializer, **ERRORS}
    )
    @action(detail=True, methods=["post"])
    def resign(self, request: Request, pk: str) -> Response:
        game = services.game_resign(game_id=int(pk), user=request.user)
        return self._envelope(game)

    @extend_schema(
        summary="Play again with the same players",
        description="Seats turn by one so another player starts. Asking twice gives the same game.",
        request=None,
        responses={201: GameEnvelopeSerializer, **ERRORS},
    )
    @action(detail=True, methods=["post"])
    def rematch(self, request: Request, pk: str) -> Response:
        rematch = services.game_rematch(game_id=int(pk), user=request.user)
        return self._envelope(rematch, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Remind the player to move",
        request=None,
        responses={204: None, **ERRORS},
    )
    @action(detail=True, methods=["post"])
    def poke(self, request: Request, pk: str) -> Response:
        services.game_poke(game_id=int(pk), user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        methods=["GET"],
        summary="The move log as I may see it",
        responses={200: MoveLogEntrySerializer(many=True), **ERRORS},
    )
    @extend_schema(
        methods=["POST"],
        summary="Play a move",
        description="Send the version you saw; the envelope's `legal_moves` lists every legal "
        "`move` for your seat when it is your turn.",
        request=MoveRequestSerializer,
        examples=[
            OpenApiExample(
                "Circles", {"expected_version": 7, "move": {"square": "c5"}}, request_only=True
            ),
            OpenApiExample(
                "King's Corner: play a card",
                {"expected_version": 7, "move": {"action": "play", "card": "7D", "to": "N"}},
                request_only=True,
            ),
            OpenApiExample(
                "King's Corner: move a pile",
                {"expected_version": 7, "move": {"action": "move_pile", "from": "E", "to": "N"}},
                request_only=True,
            ),
            OpenApiExample(
                "King's Corner: end the turn (draws a card)",
                {"expected_version": 7, "move": {"action": "end_turn"}},
                request_only=True,
            ),
            OpenApiExample(
                "CirKis",
                {"expected_version": 7, "move": {"piece": "big_slice", "fields": [25, 35, 36]}},
                request_only=True,
            ),
        ],
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="Send the same key again (on a retry) and the move is played once.",
            )
        ],
        responses={
            200: GameEnvelopeSerializer,
            **ERRORS,
            409: OpenApiResponse(ErrorSerializer, description="stale_version: refetch the game."),
            429: OpenApiResponse(ErrorSerializer, description="Too many moves; slow down."),
        },
    )
    @action(detail=True, methods=["get", "post"])
    def moves(self, request: Request, pk: str) -> Response:
        if request.method == "GET":
            return Response(selectors.moves_for(game=self._game(), viewer=request.user))
        serializer = MoveRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        game = services.move_submit(
            game_id=int(pk),
            user=request.user,
            move=serializer.validated_data["move"],
            expected_version=serializer.validated_data["expected_version"],
            idempotency_key=request.headers.get("Idempotency-Key", "")[:128],
        )
        return self._envelope(game)

    def get_throttles(self):
        throttles = super().get_throttles()
        if self.action == "moves" and self.request.method == "POST":
            self.throttle_scope = "moves"
            throttles.append(ScopedRateThrottle())
        return throttles
