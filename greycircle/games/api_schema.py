"""The OpenAPI description of each games endpoint (`greycircle.games.api.GameViewSet`), kept
apart from the views so that they read as code: `GAME_OPERATIONS` is given to
`extend_schema_view`."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)

from greycircle.api.schema import error_response
from greycircle.games import reminders
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
    TakebackRequestSerializer,
)

# Longest Idempotency-Key kept (Move.idempotency_key); a longer one is refused, not cut, since two
# keys that differ only after it would otherwise play as one.
IDEMPOTENCY_KEY_MAX = 128

NOT_FOUND = {
    404: error_response(
        "No such game, or not one you may see (unlisted without its `key`, or across a block).",
        "not_found",
    )
}

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

RATED_BARRED_TEXT = (
    "Barred from rated games by a moderator, until the date `detail` gives (casual games stay "
    "open)."
)
RATED_BARRED = {403: error_response(RATED_BARRED_TEXT, "rated_barred")}

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


GAME_OPERATIONS = {
    "list": extend_schema(
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
    ),
    "open": extend_schema(
        summary="Games waiting for players",
        parameters=[OpenGamesQuerySerializer],
        responses={200: GameSummarySerializer(many=True), **BAD_FILTER},
    ),
    "live": extend_schema(
        summary="Live games to watch",
        description="Games in play between at least two people, the most recently moved first. "
        "Unlisted games never appear. Anyone signed in may watch them (`ws/games/{id}/`).",
        parameters=[LiveGamesQuerySerializer],
        responses={200: GameSummarySerializer(many=True), **BAD_FILTER},
    ),
    "create": extend_schema(
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
                "bad_time_control",
            ),
            **RATED_BARRED,
            **TOO_MANY_GAMES,
        },
    ),
    "retrieve": extend_schema(
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
    ),
    "record": extend_schema(
        summary="The game's record",
        description="The moves so far in the kind's notation (Circles: 'c5d6c3...'). Import a "
        "record by starting a game with `record`.",
        parameters=[LINK_KEY],
        responses={
            200: RecordSerializer,
            400: error_response("This kind has no record notation.", "no_record_notation"),
            **NOT_FOUND,
        },
    ),
    "replay": extend_schema(
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
    ),
    "analysis": [
        extend_schema(
            methods=["GET"],
            summary="The engine's analysis of the game",
            description="Kinds with an analysis only (Circles). Whoever may see the game may read "
            "it, as its replay. As it stands: `not_requested` until a player asks for it with "
            "`POST`.",
            parameters=[LINK_KEY],
            responses={200: GameAnalysisSerializer, **ANALYSIS_ERRORS},
        ),
        extend_schema(
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
        ),
    ],
    "join": extend_schema(
        summary="Take an open seat",
        description="An unlisted game's seat needs its link `key`; nobody joins a game in which "
        "someone has a block with them (either way round): that game is not found.",
        parameters=[LINK_KEY],
        request=None,
        responses={
            200: GameEnvelopeSerializer,
            400: error_response("No seat for you.", "not_open", "already_seated"),
            **RATED_BARRED,
            **NOT_FOUND,
        },
    ),
    "cancel": extend_schema(
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
    ),
    "resign": extend_schema(
        summary="Give up the game",
        request=None,
        responses={
            200: GameEnvelopeSerializer,
            400: error_response("The game is not in play.", "game_not_active"),
            **NOT_A_PLAYER,
            **NOT_FOUND,
        },
    ),
    "claim": extend_schema(
        summary="Claim the win: the player to move ran out of time, or left a live game",
        description="Correspondence: only a player seated in the game, not the one to move, once "
        "the time per move of the player to move has run out (`move_deadline`; the envelope's "
        "`can_claim`). The game ends with every other seat winning (in a game of two, you) for "
        "the reason `timeout`. In a kind where a computer takes over the seat of an absent "
        "player (King's Corner with three or more seats) nobody wins on time "
        "(`takeover_instead`). Live games end on time by themselves; here a player may claim "
        "once another person, past their first turn, has had no socket open for "
        "`GAMES_CLOCK_ABANDON_SECONDS` (30 s), whoever is to move (`time_not_up` with "
        "`retry_after` until then).",
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
    ),
    "rematch": extend_schema(
        summary="Play again with the same players",
        description="Seats turn by one so another player starts. Asking twice gives the same game.",
        request=None,
        responses={
            201: GameEnvelopeSerializer,
            400: error_response("The game is not over yet.", "game_not_over"),
            403: error_response(
                "You are not playing in this game, or (a rated game) barred from rated games by "
                "a moderator, until the date `detail` gives.",
                "not_a_player",
                "rated_barred",
            ),
            **NOT_FOUND,
            **TOO_MANY_GAMES,
        },
    ),
    "takeback": extend_schema(
        summary="Ask to take back a move, or answer the request",
        description="Casual games between two people only, of a kind without hidden information "
        "(the envelope's `takebacks`: Circles). `offer` asks to take back your last move, and the "
        "opponent's moves after it if any, so that it is your turn again; the other player "
        "`accept`s it (the moves are undone and leave the log) or `decline`s it, and the asker "
        "may withdraw it with `decline`. The request is the envelope's `takeback` until answered; "
        "any move cancels it. One request at a time, and one per player and move number. In a "
        "live game no time is given back: the running clock is charged up to the takeback, then "
        "the asker's runs.",
        request=TakebackRequestSerializer,
        responses={
            200: GameEnvelopeSerializer,
            400: error_response(
                "No takeback here or now.",
                "invalid",
                "game_not_active",
                "rated_game",
                "no_takebacks",
                "not_two_people",
                "nothing_to_take_back",
                "takeback_pending",
                "takeback_already_asked",
                "no_offer",
                "time_up",
            ),
            403: error_response(
                "Not a player, or the request is your own (the other player answers it).",
                "not_a_player",
                "not_your_offer",
            ),
            **NOT_FOUND,
        },
    ),
    "poke": extend_schema(
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
    ),
    "moves": [
        extend_schema(
            methods=["GET"],
            summary="The move log as I may see it",
            description="The whole log, oldest first, as a plain list (not paginated); with "
            "`after`, only the newer entries.",
            parameters=[MovesQuerySerializer, LINK_KEY],
            responses={200: MoveLogEntrySerializer(many=True), **BAD_FILTER, **NOT_FOUND},
        ),
        extend_schema(
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
                    {
                        "expected_version": 7,
                        "move": {"action": "move_pile", "from": "E", "to": "N"},
                    },
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
                    description="The new envelope's ETag, for `If-None-Match` on "
                    "`GET /games/{id}/`.",
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
                    "time_up",
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
        ),
    ],
}
