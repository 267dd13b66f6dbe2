"""WebSocket streams. Thin: authenticate, join the audience group, forward what services publish.

`ws/games/{id}/` sends the viewer's envelope on connect and after every change; a client that sees
a version gap refetches. `ws/me/` carries the user's notifications.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from greycircle.games import events, selectors

NOT_AUTHENTICATED = 4401
NOT_FOUND = 4404


class GameConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=NOT_AUTHENTICATED)
            return
        game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        opened = await self._open(game_id, user)
        if opened is None:
            await self.close(code=NOT_FOUND)
            return
        self.group, envelope = opened
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"type": "game", "envelope": envelope})

    @database_sync_to_async
    def _open(self, game_id: int, user: Any) -> tuple[str, dict[str, Any]] | None:
        game = selectors.game_for_viewer(game_id=game_id)
        if game is None:
            return None
        seat = selectors.seat_index_for(game=game, viewer=user)
        envelope = events.jsonable(selectors.game_view_for_seat(game=game, seat=seat))
        return events.game_group(game_id, seat), envelope

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        # Moves go through the REST API (one path for validation and idempotency); the socket
        # only answers pings so clients can detect dead connections.
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def game_envelope(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "game", "envelope": message["envelope"]})


class MeConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=NOT_AUTHENTICATED)
            return
        self.group = events.user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"type": "hello", "user": user.username})

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def user_notification(self, message: dict[str, Any]) -> None:
        await self.send_json({"type": "notification", "notification": message["notification"]})
