"""The sockets' frames, typed as the REST API's shapes are: components of `/api/schema/`.

`ws/games/{id}/` sends `GameSocketFrame`s and `ws/me/` sends `MeSocketFrame`s
(greycircle.notifications.frames), each a `oneOf` its frames told apart by `type`; clients send
`ClientSocketFrame` (a ping) to either, answered by the `PongFrame` or `SocketErrorFrame` both
streams share. The consumers (greycircle.games.consumers) and events (greycircle.games.events)
build the frames; these serializers only describe them, and the contract tests
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

from rest_framework import serializers

from greycircle.games.serializers import (
    ConstField,
    EnumField,
    GameEnvelopeSerializer,
    MoveLogEntrySerializer,
    OneOfSerializer,
)

# The codes of an error frame: a frame refused by its JSON, size or depth
# (greycircle.api.jsonlimits.JsonRejected), or a well-formed frame that is not a ping.
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
    """The answer to a frame that is not a ping; the socket stays open."""

    type = frame_type("error")
    code = EnumField(
        ERROR_CODES,
        enum_name="SocketErrorCodeEnum",
        help_text="`malformed` (binary or not JSON), `too_large` (over 4 KB), `too_deep` (nested "
        "too deep), `unsupported` (JSON, but not a ping).",
    )
    detail = serializers.CharField()


class ClientSocketFrameSerializer(OneOfSerializer):
    """A frame a client sends on `ws/games/{id}/` or `ws/me/`."""

    discriminator = "type"
    variants = {"ping": PingFrameSerializer}


# --- ws/games/{id}/ ----------------------------------------------------------------------------


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
        "pong": PongFrameSerializer,
        "error": SocketErrorFrameSerializer,
    }


# What `/api/schema/` publishes as components (with every component they reference).
PUBLISHED = (ClientSocketFrameSerializer, GameSocketFrameSerializer)
