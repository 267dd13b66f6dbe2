"""REST endpoints for games (`/api/v1/games/`; invitations to them: `invitation_api`).

Thin: parse, authorise, call a service or selector, serialise. Each operation's schema lists the
error codes it can answer; `greycircle.api.schema` adds the ones every operation shares.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils.http import parse_etags
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
from rest_framework.serializers import Serializer

from greycircle.api.errors import ApiError
from greycircle.api.schema import error_response
from greycircle.games import deadlines, reminders, replays, selectors, services
from greycircle.games.errors import GameInvalid
from greycircle.games.models import Game
from greycircle.games.replay_serializers import GameAnalysisSerializer, GameReplaySerializer
from greycircle.games.serializers import (
    GameCreateSerializer,
    GameEnvelopeSerializer,
    GameListQuerySerializer,
    GameSummarySerializer,
    LiveGamesQuerySerializer,
    MoveLogEntrySerializer,
    MoveRequestSerializer,
    MovesQuerySerializer,
    OpenGamesQuerySerializer,
    RecordSerializer,
)

# Longest Idempotency-Key kept (Move.idempotency_key); a longer one is refused, not cut, since two
# keys that differ only after it would otherwise play as one.
IDEMPOTENCY_KEY_MAX = 128

# (action, method) -> throttle scope, besides the user and anonymous rates every request has.
# Starting a game notifies every invited player, so starting and rematching share one budget:
# without it one account could flood another with invitations.
THROTTLE_SCOPES = {
    ("create", "POST"): "game_create",
    ("rematch", "POST"): "game_create",
    ("moves", "POST"): "moves",
}

NOT_FOUND = {
    404: error_response(
        "No such game, or not one you may see (unlisted without its `key`, or across a block).",
        "not_found",
    )
}
# A link key is 22 characters (greycircle.games.models.new_link_key); nothing longer is compared.
LINK_KEY_MAX = 64
LINK_KEY = OpenApiParameter(
    "key",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    description="An unlisted game's link key (the envelope's `link_key`, in the link its players "
    "share): without it, only the game's players see an unlisted game.",
)
ETAG_HEADER = OpenApiParameter(
    "ETag",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="Send it back in `If-None-Match` to be answered 304 while the game is unchanged.",
    response=[200, 304],
)
NOT_A_PLAYER = {403: error_response("You are not playing in this game.", "not_a_player")}
BAD_FILTER = {
    400: error_response(
        "A filter or page parameter is not valid.", "invalid", "unknown_kind", "invalid_page"
    ),
    404: error_response("There is no such page.", "invalid_page"),
}
ANALYSIS_ERRORS = {
    400: error_response(
        "This kind of game has no analysis, or the game is not over (or never started).",
        "no_analysis",
        "game_not_over",
        "never_started",
    ),
    **NOT_FOUND,
}
TOO_MANY_GAMES = {
    429: error_response(
        "Too many games started (`THROTTLE_GAME_CREATE`); wait the seconds in `Retry-After`.",
        "throttled",
    )
}


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

    @extend_schema(
        summary="List my games",
        description="All my games, or one list of them (`list`): waiting on me, waiting on "
        "others, finished. Newest first; paginated.",
        parameters=[
            GameListQuerySerializer,
            OpenApiParameter(
                "my_turn",
                OpenApiTypes.BOOL,
                deprecated=True,
                description=GameListQuerySerializer._declared_fields["my_turn"].help_text,
            ),
        ],
        responses={200: GameSummarySerializer(many=True), **BAD_FILTER},
    )
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

    @extend_schema(
        summary="Games waiting for players",
        parameters=[OpenGamesQuerySerializer],
        responses={200: GameSummarySerializer(many=True), **BAD_FILTER},
    )
    @action(detail=False, methods=["get"])
    def open(self, request: Request) -> Response:
        query = query_validated(request, serializer_class=OpenGamesQuerySerializer)
        games = selectors.games_open(viewer=request.user, kind=query.get("kind"))
        return self._summaries(games)

    @extend_schema(
        summary="Live games to watch",
        description="Games in play between at least two people, the most recently moved first. "
        "Unlisted games never appear. Anyone signed in may watch them (`ws/games/{id}/`).",
        parameters=[LiveGamesQuerySerializer],
        responses={200: GameSummarySerializer(many=True), **BAD_FILTER},
    )
    @action(detail=False, methods=["get"])
    def live(self, request: Request) -> Response:
        query = query_validated(request, serializer_class=LiveGamesQuerySerializer)
        return self._summaries(selectors.games_live(viewer=request.user, kind=query.get("kind")))

    def _summaries(self, games) -> Response:
        page = self.paginate_queryset(games)
        return self.get_paginated_response(
            [selectors.game_summary_for(game=game, viewer=self.request.user) for game in page]
        )

    @extend_schema(
        summary="Start a game",
        description="Each user seated is invited: they hold the seat, and the game starts when "
        "every invitation has been accepted (`/api/v1/invitations/`) and no seat is open. Only "
        "friends, or players who accept invitations from anyone, can be invited.",
        request=GameCreateSerializer,
        responses={
            201: GameEnvelopeSerializer,
            400: error_response(
                "The game cannot be started as asked.",
                "invalid",
                "unknown_kind",
                "bad_seats",
                "bad_ai_level",
                "bad_options",
                "bad_record",
                "no_record_notation",
                "bad_days_per_move",
            ),
            **TOO_MANY_GAMES,
        },
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
        )
        return self._envelope(game, status.HTTP_201_CREATED)

    @extend_schema(
        summary="A game as I may see it",
        description="Answers an `ETag`; send it back in `If-None-Match` and an unchanged game "
        "is `304 Not Modified` with no body (cheap polling).",
        parameters=[
            OpenApiParameter(
                "If-None-Match",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="The `ETag` of the envelope you have.",
            ),
            ETAG_HEADER,
            LINK_KEY,
        ],
        responses={
            200: GameEnvelopeSerializer,
            304: OpenApiResponse(description="The game has not changed since the `ETag` you sent."),
            **NOT_FOUND,
        },
    )
    def retrieve(self, request: Request, pk: str) -> Response:
        game = self._game()
        headers = self._validators(game)
        if _none_match(request, headers["ETag"]):
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers=headers)
        return Response(selectors.game_view_for(game=game, viewer=request.user), headers=headers)

    @extend_schema(
        summary="The game's record",
        description="The moves so far in the kind's notation (Circles: 'c5d6c3...'). Import a "
        "record by starting a game with `record`.",
        parameters=[LINK_KEY],
        responses={
            200: RecordSerializer,
            400: error_response("This kind has no record notation.", "no_record_notation"),
            **NOT_FOUND,
        },
    )
    @action(detail=True, methods=["get"])
    def record(self, request: Request, pk: str) -> Response:
        game = self._game()
        record = selectors.game_record_for(game=game)
        if record is None:
            raise ApiError(code="no_record_notation", detail="This game has no record notation.")
        return Response({"kind": game.kind, "record": record})

    @extend_schema(
        summary="The game move by move, as I may see it",
        description="Only for a game that is over. Every step from the start, each as you "
        "could see it at that moment (your seat's view then, or a spectator's), with the move "
        "that led to it as the log shows it to you.",
        parameters=[LINK_KEY],
        responses={
            200: GameReplaySerializer,
            400: error_response(
                "The game is not over, or never started.", "game_not_over", "never_started"
            ),
            **NOT_FOUND,
        },
    )
    @action(detail=True, methods=["get"])
    def replay(self, request: Request, pk: str) -> Response:
        return Response(replays.replay_for(game=self._game(), viewer=request.user))

    @extend_schema(
        methods=["GET"],
        summary="The engine's analysis of the game",
        description="Kinds with an analysis only (Circles). Whoever may see the game may read "
        "it, as its replay. As it stands: `not_requested` until a player asks for it with `POST`.",
        parameters=[LINK_KEY],
        responses={200: GameAnalysisSerializer, **ANALYSIS_ERRORS},
    )
    @extend_schema(
        methods=["POST"],
        summary="Ask for the engine's analysis of the game",
        description="The game's players and staff only. Queues the analysis once (again if it "
        "failed): it is computed in the background, behind every computer's turn, and kept. "
        "Answers it as it stands; `GET` it until `status` is `ready`. Asking for an analysis "
        "that somebody already asked for is free; otherwise each player may have 2 in progress "
        "at once and ask for 10 in any 24 hours (Circles).",
        parameters=[LINK_KEY],
        request=None,
        responses={
            200: GameAnalysisSerializer,
            **ANALYSIS_ERRORS,
            403: error_response("You are not playing in this game.", "not_a_player"),
            429: error_response(
                "Too many analyses in progress, or asked for today: wait the seconds in "
                "`Retry-After` (also in the body's `retry_after`).",
                "too_many_analyses",
            ),
        },
    )
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

    @extend_schema(
        summary="Take an open seat",
        description="An unlisted game's seat needs its link `key`; nobody joins a game in which "
        "someone has a block with them (either way round): that game is not found.",
        parameters=[LINK_KEY],
        request=None,
        responses={
            200: GameEnvelopeSerializer,
            400: error_response("No seat for you.", "not_open", "already_seated"),
            **NOT_FOUND,
        },
    )
    @action(detail=True, methods=["post"])
    def join(self, request: Request, pk: str) -> Response:
        game = services.game_join(game_id=int(pk), user=request.user, key=_link_key(request))
        return self._envelope(game)

    @extend_schema(
        summary="Withdraw a game that has not started",
        description="Only the player who started it, only while it waits for players. The game "
        "becomes `cancelled`: over, with no outcome, so nobody wins or loses it.",
        request=None,
        responses={
            200: GameEnvelopeSerializer,
            400: error_response("The game is no longer waiting for players.", "not_open"),
            403: error_response("Only the player who started the game.", "not_the_creator"),
            **NOT_FOUND,
        },
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str) -> Response:
        game = services.game_cancel(game_id=int(pk), user=request.user)
        return self._envelope(game)

    @extend_schema(
        summary="Give up the game",
        request=None,
        responses={
            200: GameEnvelopeSerializer,
            400: error_response("The game is not in play.", "game_not_active"),
            **NOT_A_PLAYER,
            **NOT_FOUND,
        },
    )
    @action(detail=True, methods=["post"])
    def resign(self, request: Request, pk: str) -> Response:
        game = services.game_resign(game_id=int(pk), user=request.user)
        return self._envelope(game)

    @extend_schema(
        summary="Claim the win: the player to move ran out of time",
        description="Only a player seated in the game, not the one to move, once the time per "
        "move of the player to move has run out (`move_deadline`; the envelope's `can_claim`). "
        "The game ends with every other seat winning (in a game of two, you) for the reason "
        "`timeout`. In a kind where a computer takes over the seat of an absent player (King's "
        "Corner with three or more seats) nobody wins on time (`takeover_instead`).",
        request=None,
        responses={
            200: GameEnvelopeSerializer,
            400: error_response(
                "Not now: the game is not in play, it is your turn, no time is running, or the "
                "player to move still has time (`retry_after`: seconds until the `deadline`).",
                "game_not_active",
                "your_turn",
                "no_deadline",
                "time_not_up",
                "takeover_instead",
            ),
            403: error_response(
                "Not a player, or your own seat is played by the computer now.",
                "not_a_player",
                "seat_taken_over",
            ),
            **NOT_FOUND,
        },
    )
    @action(detail=True, methods=["post"])
    def claim(self, request: Request, pk: str) -> Response:
        game = deadlines.game_claim_win(game_id=int(pk), user=request.user)
        return self._envelope(game)

    @extend_schema(
        summary="Play again with the same players",
        description="Seats turn by one so another player starts. Asking twice gives the same game.",
        request=None,
        responses={
            201: GameEnvelopeSerializer,
            400: error_response("The game is not over yet.", "game_not_over"),
            **NOT_A_PLAYER,
            **NOT_FOUND,
            **TOO_MANY_GAMES,
        },
    )
    @action(detail=True, methods=["post"])
    def rematch(self, request: Request, pk: str) -> Response:
        rematch = services.game_rematch(game_id=int(pk), user=request.user)
        return self._envelope(rematch, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Remind the player to move",
        description="Sends the player the game waits for a `reminder` notification. Limited per "
        "sender and recipient across all games: one reminder to the same player per "
        f"{reminders.POKE_INTERVAL.total_seconds() / 60:g} minutes, and "
        f"{reminders.POKES_PER_DAY} in all per day (UTC).",
        request=None,
        responses={
            204: None,
            400: error_response(
                "Nobody to remind now: the game is not in play, it waits for you or a computer, "
                "or you cannot remind this player.",
                "game_not_active",
                "nobody_to_poke",
                "cannot_remind",
            ),
            **NOT_A_PLAYER,
            **NOT_FOUND,
            429: error_response(
                "Too many reminders: wait the seconds in `Retry-After` (also in the body's "
                "`retry_after`; `detail` says when in words).",
                "poke_too_soon",
            ),
        },
    )
    @action(detail=True, methods=["post"])
    def poke(self, request: Request, pk: str) -> Response:
        try:
            reminders.game_poke(game_id=int(pk), user=request.user)
        except GameInvalid as refusal:
            if refusal.code != "poke_too_soon":
                raise
            raise _limit_reached(refusal) from refusal
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        methods=["GET"],
        summary="The move log as I may see it",
        description="The whole log, oldest first, as a plain list (not paginated); with "
        "`after`, only the newer entries.",
        parameters=[MovesQuerySerializer, LINK_KEY],
        responses={200: MoveLogEntrySerializer(many=True), **BAD_FILTER, **NOT_FOUND},
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
                "ETag",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="The new envelope's ETag, for `If-None-Match` on `GET /games/{id}/`.",
                response=[200],
            ),
            OpenApiParameter(
                "Idempotency-Key",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="Send the same key again (on a retry) and the move is played once. "
                f"At most {IDEMPOTENCY_KEY_MAX} characters.",
            ),
        ],
        responses={
            200: GameEnvelopeSerializer,
            400: error_response(
                "The move cannot be played.",
                "invalid",
                "bad_idempotency_key",
                "malformed",
                "illegal_move",
                "game_not_active",
            ),
            403: error_response(
                "Not yours to play.", "not_your_turn", "not_a_player", "seat_taken_over"
            ),
            **NOT_FOUND,
            409: error_response(
                "The game changed since `expected_version`: refetch it (`current_version`).",
                "stale_version",
            ),
            429: error_response(
                "Too many moves (`THROTTLE_MOVES`); wait the seconds in `Retry-After`.",
                "throttled",
            ),
        },
    )
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
