"""The sockets' frames, typed as the REST API's shapes are: components of `/api/schema/`.

`ws/games/{id}/` sends `GameSocketFrame`s and `ws/me/` sends `MeSocketFrame`s
(greycircle.notifications.frames), each a `oneOf` its frames told apart by `type`; clients send
`ClientSocketFrame` (a ping) to either, answered by the `PongFrame` or `SocketErrorFrame` both
streams share, and a seated player may also send a move to the game's (`GameClientSocketFrame`),
answered by a `MoveAckFrame` or a `MoveErrorFrame`. The consumers (greycircle.games.consumers)
and events (greycircle.games.events) build the frames; these serializers describe them (and
check a move frame), and the contract tests
(tests/api/socket_frames.py) validate every frame the consumer tests receive against the
published components.

Why components in the OpenAPI document rather than an AsyncAPI document: the frames carry the
REST shapes themselves (a frame's `envelope` is the `GameEnvelope` that `GET /games/{id}/`
answers, typed per kind from the registry; its `moves` are `MoveLogEntry`s; `inbox` is a
`Notification`), so in the same document they reference those components instead of copying
them, one validator checks both, and an app's generated client gets the frames' models beside
the responses'. No operation uses them: `greycircle.api.schema.components_publish` adds them.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from greycircle.api.serializers import ErrorSerializer
from greycircle.games.models import Move
from greycircle.games.serializers import (
    ConstField,
    EnumField,
    GameEnvelopeSerializer,
    JsonIntegerField,
    MoveLogEntrySerializer,
    MoveRequestSerializer,
    OneOfSerializer,
)

# The codes of an error frame: a frame refused by its JSON, size or depth
# (greycircle.api.jsonlimits.JsonRejected), or a well-formed frame that is not a ping (nor, on a
# game's socket, a move: a move refused is answered by a `move_error` instead).
ERROR_CODES = ["malformed", "too_large", "too_deep", "unsupported"]


def frame_type(value: str) -> ConstField:
    """A frame's `type`, always `value`."""
    return ConstField(value, enum_name=f"{value.title()}FrameTypeEnum")


# --- both streams ------------------------------------------------------------------------------


class PingFrameSerializer(serializers.Serializer):
    """The one frame clients send, on either socket; answered with a `pong`."""

    type = frame_type("ping")


class PongFrameSerializer(serializers.Serializer):
    """The answer to a ping: the connection is alive."""

    type = frame_type("pong")


class SocketErrorFrameSerializer(serializers.Serializer):
    """The answer to a frame that is not a ping (nor, on a game's socket, a move); the socket
    stays open."""

    type = frame_type("error")
    code = EnumField(
        ERROR_CODES,
        enum_name="SocketErrorCodeEnum",
        help_text="`malformed` (binary or not JSON), `too_large` (over 4 KB), `too_deep` (nested "
        "too deep), `unsupported` (JSON, but neither a ping nor, on a game's socket, a move).",
    )
    detail = serializers.CharField()


class ClientSocketFrameSerializer(OneOfSerializer):
    """A frame a client sends on `ws/games/{id}/` or `ws/me/`."""

    discriminator = "type"
    variants = {"ping": PingFrameSerializer}


# --- ws/games/{id}/ ----------------------------------------------------------------------------

# A move's `id` is its idempotency key: at most as long as the column that keeps it (the REST
# endpoint's `Idempotency-Key` too), refused rather than cut, as there.
MOVE_ID_MAX = Move._meta.get_field("idempotency_key").max_length
VERSION_MAX = 2**31 - 1


class JsonStringField(serializers.CharField):
    """A JSON string only (DRF's own also takes 7 and 7.0 as "7"), kept as sent."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(trim_whitespace=False, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class MoveFrameSerializer(MoveRequestSerializer):
    """A move, played as `POST /games/{id}/moves/` plays it (the same checks, the same error
    codes), answered on this socket by a `move_ack` or a `move_error` with the same `id`; the
    change itself comes as every change does, in a `game` frame (after the ack)."""

    type = frame_type("move")
    id = JsonStringField(
        max_length=MOVE_ID_MAX,
        help_text="Your name for this move, unique among your moves (e.g. 16 random bytes in "
        "hex): the answer carries it, and it is the move's idempotency key, so the same move "
        "sent again, on a socket or as `Idempotency-Key` over HTTP, is played once.",
    )
    expected_version = JsonIntegerField(
        min_value=0,
        max_value=VERSION_MAX,
        help_text="The game's version you saw; a newer game answers `stale_version`.",
    )


def move_frame_read(content: dict[str, Any]) -> dict[str, Any] | None:
    """A move frame as `MoveFrameSerializer` validates it, if it is one (None otherwise: the
    serializer then says what is wrong). Checked by hand because every move goes through here:
    DRF builds a serializer's fields afresh for each instance, 0.4 ms a move (bench/README.md,
    "Moves over the socket")."""
    move_id = content.get("id")
    version = content.get("expected_version")
    move = content.get("move")
    if (
        type(move_id) is str
        and 0 < len(move_id) <= MOVE_ID_MAX
        and type(version) is int
        and 0 <= version <= VERSION_MAX
        and type(move) is dict
    ):
        return {"type": "move", "id": move_id, "expected_version": version, "move": move}
    return None


class MoveAckFrameSerializer(serializers.Serializer):
    """Your move `id` is played (or was already: sent again, it is not played twice)."""

    type = frame_type("move_ack")
    id = serializers.CharField()
    version = serializers.IntegerField(
        help_text="The game's version once the move was played (for a move already played, the "
        "game's version now); its `game` frame follows."
    )


class MoveErrorFrameSerializer(ErrorSerializer):
    """Your move `id` was refused, as `POST /games/{id}/moves/` would refuse it: not played."""

    type = frame_type("move_error")
    id = serializers.CharField(
        allow_null=True, help_text="The move's `id`; null if the frame had none that is valid."
    )
    code = serializers.CharField(
        help_text="Those of `POST /games/{id}/moves/`: `invalid` (the frame: see `fields`), "
        "`malformed` and `illegal_move` (the move), `game_not_active`, `not_your_turn`, "
        "`not_a_player`, `seat_taken_over`, `not_found`, `stale_version` (with "
        "`current_version`), `time_up` (your time ran out before the move arrived: the game "
        "ended), `throttled` (with `retry_after`); `server_error`."
    )
    retry_after = serializers.IntegerField(
        required=False, help_text="With throttled: seconds until the next move is allowed."
    )
    deadline = None  # (the Error shape's member of another code)


class GameFrameSerializer(serializers.Serializer):
    """The game as the socket's audience (your seat, or the spectators) may see it: on connect,
    and after every change."""

    type = frame_type("game")
    envelope = GameEnvelopeSerializer(help_text="As `GET /games/{id}/` answers it.")
    moves = MoveLogEntrySerializer(
        many=True,
        required=False,
        help_text="The log entries the change added, as you may see them (absent from the frame "
        "sent on connect): extend the log with them; on a gap, `GET /games/{id}/moves/?after=N`.",
    )


class GameSocketFrameSerializer(OneOfSerializer):
    """A frame `ws/games/{id}/` sends."""

    discriminator = "type"
    variants = {
        "game": GameFrameSerializer,
        "move_ack": MoveAckFrameSerializer,
        "move_error": MoveErrorFrameSerializer,
        "pong": PongFrameSerializer,
        "error": SocketErrorFrameSerializer,
    }


class GameClientSocketFrameSerializer(OneOfSerializer):
    """A frame a client sends on `ws/games/{id}/`: a ping, or (a seated player) a move."""

    discriminator = "type"
    variants = {"ping": PingFrameSerializer, "move": MoveFrameSerializer}


def game_socket_frames_add(
    *,
    sent: dict[str, type[serializers.Serializer]],
    received: dict[str, type[serializers.Serializer]],
) -> None:
    """Frames that an app above the platform sends and takes on `ws/games/{id}/` (greycircle.chat,
    from its consumer there), added to the streams' `oneOf`s when that app is ready."""
    GameSocketFrameSerializer.variants = {**GameSocketFrameSerializer.variants, **sent}
    GameClientSocketFrameSerializer.variants = {
        **GameClientSocketFrameSerializer.variants,
        **received,
    }


# What `/api/schema/` publishes as components (with every component they reference).
PUBLISHED = (
    ClientSocketFrameSerializer,
    GameClientSocketFrameSerializer,
    GameSocketFrameSerializer,
)
