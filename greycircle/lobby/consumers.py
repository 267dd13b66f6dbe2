"""`ws/lobby/`: the pools' counts, live. Thin, as the games' sockets (greycircle.games.consumers,
whose `LiveConsumer` it is: the same authentication, close codes, pings and outages).

It sends `pools` on connect and each time a seek changes (greycircle.lobby.events). Its closing
may end its user's live seeks (services.seeks_left): a live seek lasts while its seeker has a
socket open on the site.
"""

from __future__ import annotations

from typing import Any

from greycircle.games.consumers import LiveConsumer
from greycircle.games.events import jsonable
from greycircle.lobby import events, services
from greycircle.socket_threads import run_for_socket, run_shared


class LobbyConsumer(LiveConsumer):
    async def join(self, user: Any) -> str | None:
        return events.LOBBY_GROUP

    async def hello(self, user: Any) -> dict[str, Any]:
        return jsonable(await run_shared("lobby-pools", events.pools_frame))

    async def lobby_pools(self, message: dict[str, Any]) -> None:
        await self.send(text_data=message["frame"])

    async def disconnect(self, code: int) -> None:
        user_id = self._presence_user
        await super().disconnect(code)  # the socket counted out of the user's presence first
        if user_id is not None:
            await run_for_socket(services.seeks_left, user_id=user_id)
