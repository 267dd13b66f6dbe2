"""`ws/games/{id}/` with the game's chat: the games' consumer (greycircle.games.consumers), which
knows nothing of chat, and on top of it:

- a client sends `{"type": "chat", "id", "room", "body"}`, posted by the service that posts
  `POST /games/{id}/chat/` (`services.game_message_post`, the same limits), answered
  `{"type": "chat_ack", "id", "message"}` or `{"type": "chat_error", "id", "code", "detail", ...}`
  with that endpoint's codes; `id` is the message's idempotency key, as that endpoint's `id`
  (a message sent again with it is answered with the message posted, and is not posted again);
- a message posted reaches the sockets of every audience that may read its room
  (greycircle.chat.events), and each socket sends it on as `{"type": "chat_message", "message"}`
  unless its own user may not see it: its author is on the other side of a block with them, or
  they had chat off in this game when it was published (the message names those users, read as it
  was published: a block or a switch applies at once on every open socket), it is hidden
  (flagged) and not theirs, or their settings turn chat off. `links` is set for
  them: true only for their own and their friends' messages;
- a message staff hid (a report acted on) is sent as `{"type": "chat_message_removed", "id",
  "room"}` to every socket of its room but its author's, whose page drops it.

What a socket knows of its user's friends and their settings' chat switch is read when it first
needs it and again after RELATIONS_SECONDS, so a message's delivery costs no query per socket.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from accounts.models import User
from greycircle.api.errors import error_body
from greycircle.chat import frames, selectors, services
from greycircle.errors import ServiceError
from greycircle.games.consumers import GameConsumer
from greycircle.games.events import jsonable
from greycircle.socket_threads import run_for_socket

logger = logging.getLogger(__name__)

# How long a socket trusts what it read of its user's friends and settings' chat switch.
RELATIONS_SECONDS = 30.0


@dataclass(frozen=True)
class Relations:
    trusted: set[int]  # the user and their friends: whose links are clickable
    chat_enabled: bool  # their settings' switch


class ChatGameConsumer(GameConsumer):
    _relations: Relations | None = None
    _relations_read_at = 0.0

    unsupported = (
        'Send {"type": "ping"}, a move: {"type": "move", "id", "expected_version", "move"}, or a '
        'chat message: {"type": "chat", "id", "room", "body"}.'
    )

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "chat":
            await self.send_json(await self._chat(content))
        else:
            await super().receive_json(content)

    async def _chat(self, content: dict[str, Any]) -> dict[str, Any]:
        frame = frames.ChatFrameSerializer(data=content)
        if not frame.is_valid():
            return _chat_error(
                content.get("id"),
                code="invalid",
                detail="Not a valid chat frame.",
                fields=frame.errors,
            )
        valid = frame.validated_data
        try:
            return await run_for_socket(
                _chat_post,
                user=self.scope["user"],
                game_id=self.game_id,
                frame=valid,
                key=_query_key(self.scope),
            )
        except Exception:
            logger.exception("a chat message over the socket of game %s failed", self.game_id)
            return _chat_error(
                valid["id"], code="server_error", detail="The message could not be posted."
            )

    async def chat_message(self, message: dict[str, Any]) -> None:
        user = self.scope["user"]
        author_id = message["author_id"]
        if user.pk in message["blocked_ids"] or user.pk in message["chat_off_ids"]:
            return
        relations = await self._relations_now()
        if not relations.chat_enabled:
            return
        if message["message"]["hidden"] and author_id != user.pk:
            return
        links = message["has_links"] and author_id in relations.trusted
        await self.send_json(
            {"type": "chat_message", "message": {**message["message"], "links": links}}
        )

    async def chat_message_removed(self, message: dict[str, Any]) -> None:
        # Its author still sees it, marked hidden, as a flagged message of theirs.
        if message["author_id"] != self.scope["user"].pk:
            await self.send_json(
                {"type": "chat_message_removed", "id": message["id"], "room": message["room"]}
            )

    async def _relations_now(self) -> Relations:
        if (
            self._relations is None
            or time.monotonic() - self._relations_read_at > RELATIONS_SECONDS
        ):
            self._relations = await run_for_socket(_relations_read, user=self.scope["user"])
            self._relations_read_at = time.monotonic()
        return self._relations


def _relations_read(*, user: User) -> Relations:
    return Relations(
        trusted=selectors.friend_ids_of(user=user) | {user.pk},
        chat_enabled=selectors.user_chat_enabled(user=user),
    )


def _chat_post(*, user: User, game_id: int, frame: dict[str, Any], key: str) -> dict[str, Any]:
    """On the sockets' threads: the message of a valid frame, posted as over HTTP."""
    try:
        message = services.game_message_post(
            user=user,
            game_id=game_id,
            room=frame["room"],
            body=frame["body"],
            client_id=frame["id"],
            key=key,
        )
    except ServiceError as refusal:
        return _chat_error(frame["id"], code=refusal.code, detail=refusal.detail, **refusal.extra)
    return {
        "type": "chat_ack",
        "id": frame["id"],
        "message": jsonable(selectors.game_message_json(message=message, links=True)),
    }


def _chat_error(chat_id: Any, *, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    """A `chat_error` frame: the API's error shape, with the frame's `id` if it is one."""
    valid_id = chat_id if isinstance(chat_id, str) and len(chat_id) <= frames.CHAT_ID_MAX else None
    return {"type": "chat_error", "id": valid_id, **error_body(code=code, detail=detail, **extra)}


def _query_key(scope: dict[str, Any]) -> str:
    """The unlisted game's link key the socket was opened with (`?key=`), if any."""
    key = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("key", [""])[0]
    return key if len(key) <= 64 else ""
