"""REST endpoints for games (`/api/v1/games/`; invitations to them: `invitation_api`).

Thin: parse, authorise, call a service or selector, serialise. Each operation's schema, with the
error codes it can answer, is in `api_schema.GAME_OPERATIONS`; `greycircle.api.schema` adds the
ones every operation shares.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils.http import parse_etags
from drf_spectacular.utils import extend_schema_view
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer

from greycircle.api.errors import ApiError
from greycircle.games import deadlines, reminders, replays, selectors, services, takebacks
from greycircle.games.api_schema import GAME_OPERATIONS, IDEMPOTENCY_KEY_MAX
from greycircle.games.errors import GameInvalid
from greycircle.games.models import Game
from greycircle.games.serializers import (
    GameCreateSerializer,
    GameEnvelopeSerializer,
    GameListQuerySerializer,
    LiveGamesQuerySerializer,
    MoveRequestSerializer,
    MovesQuerySerializer,
    OpenGamesQuerySerializer,
    TakebackRequestSerializer,
)

# What each takeback action calls (greycircle.games.takebacks).
TAKEBACK_SERVICES = {
    takebacks.TakebackAction.OFFER: takebacks.takeback_offer,
    takebacks.TakebackAction.ACCEPT: takebacks.takeback_accept,
    takebacks.TakebackAction.DECLINE: takebacks.takeback_decline,
}

# (action, method) -> throttle scope, besides the user and anonymous rates every request has.
# Starting a game notifies every invited player, so starting and rematching share one budget:
# without it one account could flood another with invitations.
THROTTLE_SCOPES = {
    ("create", "POST"): "game_create",
    ("rematch", "POST"): "game_create",
    ("moves", "POST"): "moves",
}

# A link key is 22 characters (greycircle.games.models.new_link_key); nothing longer is compared.
LINK_KEY_MAX = 64


def query_validated(request: Request, *, serializer_class: type[Serializer]) -> dict[str, Any]:
    """The query parameters, validated; empty ones count as absent (`?kind=` is no filter)."""
    serializer = serializer_class(
        data={name: value for name, value in request.query_params.items() if value}
    )
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _link_key(request: Request) -> str:
    """The unlisted game's link key the client sent (`?key=`), if any."""
    key = request.query_params.get("key", "")
    return key if len(key) <= LINK_KEY_MAX else ""


def _limit_reached(refusal: GameInvalid) -> ApiError:
    """A service's refusal that is a limit (with `retry_after` seconds), answered as a throttle
    is: 429 with Retry-After (DRF sets it from `wait`)."""
    limited = ApiError(
        code=refusal.code,
        detail=refusal.detail,
        status_code=status.HTTP_429_TOO_MANY_REQUESTS,
        extra=refusal.extra,
    )
    limited.wait = refusal.extra["retry_after"]
    return limited


def _none_match(request: Request, etag: str) -> bool:
    """Whether `If-None-Match` names `etag`: compared weakly (RFC 9110, W/"x" is "x"), and `*`
    names any."""
    named = {
        tag.removeprefix("W/") for tag in parse_etags(request.headers.get("If-None-Match", ""))
    }
    return "*" in named or etag in named


@extend_schema_view(**GAME_OPERATIONS)
class GameViewSet(viewsets.GenericViewSet):
    serializer_class = GameEnvelopeSerializer
    lookup_value_converter = "id"

    def get_queryset(self):
        return Game.objects.none()

    def _game(self) -> Game:
        """The game of the path, if the viewer may see it (`selectors.game_visible_to`); else
        404, the same answer as for an id that was never used."""
        game = selectors.game_get(game_id=int(self.kwargs["pk"]))
        if game is None or not selectors.game_visible_to(
            game=game, viewer=self.request.user, key=_link_key(self.request)
        ):
            raise Http404
        return game

    def _envelope(self, game: Game, status_code: int = status.HTTP_200_OK) -> Response:
        """`viewer`'s envelope of `game`, with its ETag: a client that polls after acting sends
        it back and is answered 304 until somebody else changes the game."""
        return Response(
            selectors.game_view_for(game=game, viewer=self.request.user),
            status=status_code,
            headers=self._validators(game),
        )

    def _validators(self, game: Game) -> dict[str, str]:
        return {
            "ETag": selectors.game_etag_for(game=game, viewer=self.request.user),
            "Cache-Control": "private, no-cache",
        }

    def list(self, request: Request) -> Response:
        query = query_validated(request, serializer_class=GameListQuerySerializer)
        games = selectors.games_for_user(
            user=request.user,
            kind=query.get("kind"),
            status=query.get("status"),
            which=query.get("list"),
            changed_since=query.get("changed_since"),
        )
        return self._summaries(games)

    @action(detail=False, methods=["get"])
    def open(self, request: Request) -> Response:
        query = query_validated(request, serializer_class=OpenGamesQuerySerializer)
        games = selectors.games_open(viewer=request.user, kind=query.get("kind"))
        return self._summaries(games)

    @action(detail=False, methods=["get"])
    def live(self, request: Request) -> Response:
        query = query_validated(request, serializer_class=LiveGamesQuerySerializer)
        return self._summaries(selectors.games_live(viewer=request.user, kind=query.get("kind")))

    def _summaries(self, games) -> Response:
        page = self.paginate_queryset(games)
        return self.get_paginated_response(
            [selectors.game_summary_for(game=game, viewer=self.request.user) for game in page]
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
            unlisted=serializer.validated_data["unlisted"],
            on_decline=serializer.validated_data["on_decline"],
            days_per_move=serializer.validated_data["days_per_move"],
            time_control=serializer.validated_data["time_control"],
            rated=serializer.validated_data["rated"],
        )
        return self._envelope(game, status.HTTP_201_CREATED)

    def retrieve(self, request: Request, pk: str) -> Response:
        game = self._game()
        headers = self._validators(game)
        if _none_match(request, headers["ETag"]):
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers=headers)
        return Response(selectors.game_view_for(game=game, viewer=request.user), headers=headers)

    @action(detail=True, methods=["get"])
    def record(self, request: Request, pk: str) -> Response:
        game = self._game()
        record = selectors.game_record_for(game=game)
        if record is None:
            raise ApiError(code="no_record_notation", detail="This game has no record notation.")
        return Response({"kind": game.kind, "record": record})

    @action(detail=True, methods=["get"])
    def replay(self, request: Request, pk: str) -> Response:
        return Response(replays.replay_for(game=self._game(), viewer=request.user))

    @action(detail=True, methods=["get", "post"])
    def analysis(self, request: Request, pk: str) -> Response:
        game = self._game()
        if request.method != "POST":
            return Response(replays.analysis_get(game=game))
        try:
            return Response(replays.analysis_request(game=game, user=request.user))
        except GameInvalid as refusal:
            if refusal.code != "too_many_analyses":
                raise
            raise _limit_reached(refusal) from refusal

    @action(detail=True, methods=["post"])
    def join(self, request: Request, pk: str) -> Response:
        game = services.game_join(game_id=int(pk), user=request.user, key=_link_key(request))
        return self._envelope(game)

    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:
        game = services.game_cancel(game_id=int(pk), user=request.user)
        return self._envelope(game)

    @action(detail=True, methods=["post"])
    def resign(self, request: Request, pk: str) -> Response:
        game = services.game_resign(game_id=int(pk), user=request.user)
        return self._envelope(game)

    @action(detail=True, methods=["post"])
    def claim(self, request: Request, pk: str) -> Response:
        game = deadlines.game_claim_win(game_id=int(pk), user=request.user)
        return self._envelope(game)

    @action(detail=True, methods=["post"])
    def rematch(self, request: Request, pk: str) -> Response:
        rematch = services.game_rematch(game_id=int(pk), user=request.user)
        return self._envelope(rematch, status.HTTP_201_CREATED)

    @action(detail=True, methods=["post"])
    def takeback(self, request: Request, pk: str) -> Response:
        serializer = TakebackRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        service = TAKEBACK_SERVICES[serializer.validated_data["action"]]
        return self._envelope(service(game_id=int(pk), user=request.user))

    @action(detail=True, methods=["post"])
    def poke(self, request: Request, pk: str) -> Response:
        try:
            reminders.game_poke(game_id=int(pk), user=request.user)
        except GameInvalid as refusal:
            if refusal.code != "poke_too_soon":
                raise
            raise _limit_reached(refusal) from refusal
        return Response(status=status.HTTP_204_NO_CONTENT)

    # The log is one list, read in full or `?after=N`, rather than in pages.
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def moves(self, request: Request, pk: str) -> Response:
        if request.method == "GET":
            query = query_validated(request, serializer_class=MovesQuerySerializer)
            return Response(
                selectors.moves_for(
                    game=self._game(), viewer=request.user, after=query.get("after", 0)
                )
            )
        idempotency_key = request.headers.get("Idempotency-Key", "")
        if len(idempotency_key) > IDEMPOTENCY_KEY_MAX:
            raise ApiError(
                code="bad_idempotency_key",
                detail=f"An Idempotency-Key has at most {IDEMPOTENCY_KEY_MAX} characters.",
            )
        serializer = MoveRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        game = services.move_submit(
            game_id=int(pk),
            user=request.user,
            move=serializer.validated_data["move"],
            expected_version=serializer.validated_data["expected_version"],
            idempotency_key=idempotency_key,
        )
        return self._envelope(game)

    def get_throttles(self):
        # RateLimits counts the action's scope along with the client's limit.
        self.throttle_scope = THROTTLE_SCOPES.get((self.action, self.request.method))
        return super().get_throttles()
