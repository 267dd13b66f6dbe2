"""The frames of `ws/lobby/`, as components of `/api/schema/` (`LobbySocketFrame`), like the
games' (greycircle.games.frames): `pools` on connect, whenever a seek is made, matched,
cancelled or expires, and within a second of a game a pool paired ending (the lobby's sweep);
and the `pong` and `error` frames every stream shares. Published when the app is ready
(`LobbyConfig.ready`)."""

from __future__ import annotations

from rest_framework import serializers

from greycircle.games.frames import PongFrameSerializer, SocketErrorFrameSerializer, frame_type
from greycircle.games.serializers import OneOfSerializer
from greycircle.lobby.serializers import PoolSerializer


class PoolsFrameSerializer(serializers.Serializer):
    """The pools with players in them, as they are now (a pool absent has nobody). The seeks
    changed: a page showing them fetches `GET /api/v1/seeks/` again."""

    type = frame_type("pools")
    pools = PoolSerializer(many=True)
    server_time = serializers.DateTimeField()


class LobbySocketFrameSerializer(OneOfSerializer):
    """A frame `ws/lobby/` sends."""

    discriminator = "type"
    variants = {
        "pools": PoolsFrameSerializer,
        "pong": PongFrameSerializer,
        "error": SocketErrorFrameSerializer,
    }


PUBLISHED = (LobbySocketFrameSerializer,)
