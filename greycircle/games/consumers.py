"""WebSocket streams. Thin: authenticate, join the audience group, forward what services publish.

`ws/games/{id}/` sends the viewer's envelope on connect and after every change; a client that sees
a version gap refetches. `ws/me/` carries the user's notifications and their unread count. While
a signed-in user has a socket of either kind open they are online
(greycircle.presence).

Every socket is accepted first, so that a refusal reaches the client as a close code:

- 4401: not authenticated (log in, then reconnect); also sent to every open socket of an account
  that is deleted (`events.user_sockets_close`);
- 4403: not allowed (an inactive account, or a session cookie sent from another site's page);
  also sent to every open socket of an account when it is deactivated;
- 4404: no such game;
- 4503: live updates are unavailable (the server lost Redis): reconnect with backoff, and refetch
  over REST meanwhile. Sent to sockets that are open when their server loses Redis (its read of
  Redis fails, or gives up on a Redis that hangs: greycircle.runtime.channels), or cannot publish
  for more than a moment (a change's publish failed, and the resync after it too), and to sockets
  opened while it is down.
  (4503 rather than 1013, so that every refusal of ours is a 4xxx code; Daphne, which the browser
  tests still serve with, sends only 1000 and 3000-4999.)

A change whose publish failed, in whichever process (a server, the task worker), is followed once
that process reaches Redis again by a `live.resync` to each group it was for
(greycircle.games.events.missed): each socket of the group sends its first frame again, the game's
envelope as its own audience sees it or the `hello` with the unread count, as if it had
reconnected but without reconnecting; the client takes it as the newest version. In the group of
a user's sockets, whose only messages close them, it closes the socket with 4503 instead: the
reconnect is refused if the account was closed meanwhile.

Opening a socket does its synchronous work (authentication, which game audience to join, the first
frame, presence) on the sockets' own threads (greycircle.socket_threads), never on the one thread
that runs the process's sync views, so a reconnect storm neither waits behind requests nor holds
them up: two queries to authenticate, one to find the user's seat, then the first frame.

Clients send `{"type": "ping"}` (answered with `{"type": "pong"}`), and on a game's socket a seated
player may send a move, `{"type": "move", "id", "expected_version", "move"}`: played by the same
service as `POST /games/{id}/moves/` (`services.move_submit`, `id` as its idempotency key, the same
rate limit), it is answered `{"type": "move_ack", "id", "version"}` or `{"type": "move_error", "id",
"code", "detail", ...}` with that endpoint's codes, and its change comes after the ack as every
change does. Any other frame is answered with `{"type": "error", "code":
"malformed"|"too_large"|"too_deep"|"unsupported", "detail": ...}` and the socket stays open.

Library seam (UPGRADING.md, "channels"): channels==4.3.2. `LiveConsumer` re-implements
`AsyncConsumer.__call__` and `dispatch` with `channels.utils.await_many_dispatch` and
`channels.consumer.get_handler_name`, leaving out the `close_old_connections` that channels runs
on the sync-view thread around every message. Why: each socket queued there behind every request;
with it left out and the sockets' own threads (greycircle.socket_threads), 1,000 sockets
reconnecting at once were all connected in 4.4 to 5.1 s instead of 26.8 to 39.2 s
(bench/README.md, "Socket storm").
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
import weakref
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer
from channels.utils import await_many_dispatch
from django.utils import timezone
from redis.exceptions import RedisError

from greycircle import presence
from greycircle.api.errors import error_body
from greycircle.api.jsonlimits import JsonRejected, json_loads_limited
from greycircle.api.throttling import rate_limits_spend
from greycircle.errors import ServiceError
from greycircle.games import events, frames, selectors, services
from greycircle.notifications.selectors import notifications_unread_count
from greycircle.outages import REDIS_ERRORS, Outage
from greycircle.socket_threads import run_for_socket, run_shared

logger = logging.getLogger(__name__)

NOT_AUTHENTICATED = 4401
FORBIDDEN = 4403
NOT_FOUND = 4404
UNAVAILABLE = 4503

# A link key is 22 characters (greycircle.games.models.new_link_key); nothing longer is compared.
LINK_KEY_MAX = 64
# Clients send pings and moves; nothing they may send comes near these.
MAX_FRAME_BYTES = 4096
MAX_FRAME_DEPTH = 8
# Joining or leaving a group waits at most this long for Redis.
GROUP_TIMEOUT = 3.0
# Sockets of one process joining or leaving groups at once. channels-redis takes a connection from
# its pool for each; redis-py's pool holds at most 100 and refuses the next at once
# (MaxConnectionsError, which reads as Redis lost: every socket closed with 4503), so a thousand
# sockets reconnecting together would empty it. The rest wait their turn (a join takes ~1 ms).
GROUP_CHANGES_AT_ONCE = 8

live_updates = Outage(
    "live updates (sockets)",
    consequence="this server's sockets are closed with 4503 and new ones refused until it is back",
)

# The sockets of this process that are in a group, to close them all when Redis is lost: a
# restarted Redis has forgotten their groups, so they would never hear of a change again.
_live: weakref.WeakSet[LiveConsumer] = weakref.WeakSet()
# The event loops those sockets run on (a server has one), to reach them from the thread of a
# publish that failed.
_live_loops: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
_live_loops_lock = threading.Lock()


def _live_close(loop: asyncio.AbstractEventLoop) -> None:
    """On `loop`: close every socket of this process on it that is in a group with 4503."""
    others = [other for other in _live if other._loop is loop]
    if others:
        logger.info("closing %d more sockets of this server with 4503", len(others))
    for other in others:
        other._lost.set()


def _resync_failed(error: BaseException) -> None:
    """A change of this process's could not be published, and a moment later the resync that
    tells its sockets to catch up could not be sent either (greycircle.games.events.missed):
    Redis is failing for this process. Its sockets are closed with 4503 (they reconnect and catch
    up by version) and new ones refused for a moment, as when their read of Redis fails. (A
    publish that fails once, then Redis answers, closes nothing: the resync brings the change.)"""
    live_updates.failed(error)
    with _live_loops_lock:
        loops = list(_live_loops)
    for loop in loops:
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (tests)
            loop.call_soon_threadsafe(_live_close, loop)


events.resyncing.when_failed(_resync_failed)


_group_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def _group_gate() -> asyncio.Semaphore:
    """The running loop's limit on group changes at once (GROUP_CHANGES_AT_ONCE)."""
    loop = asyncio.get_running_loop()
    gate = _group_gates.get(loop)
    if gate is None:
        gate = _group_gates[loop] = asyncio.Semaphore(GROUP_CHANGES_AT_ONCE)
    return gate


class LiveChannelLost(Exception):
    """Another socket of this process found that the channel layer failed."""


class LiveConsumer(AsyncJsonWebsocketConsumer):
    """A stream of one channel group: authentication, close codes, pings, frame limits, outages.

    Subclasses say which group a user joins (`join`) and what to send first (`hello`).
    """

    group: str | None = None
    user_group: str | None = None

    async def join(self, user: Any) -> str | None:
        """The group this user's socket joins; None if there is nothing to follow (4404)."""
        raise NotImplementedError

    async def hello(self, user: Any) -> dict[str, Any] | None:
        """The first message, sent once the socket is in its group; None if it is gone (4404)."""
        raise NotImplementedError

    async def __call__(self, scope, receive, send):
        # AsyncConsumer.__call__, but a lost channel layer closes the socket with 4503 rather than
        # escaping as an exception (which servers turn into 1011 or a dropped connection).
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.channel_name = await self.channel_layer.new_channel()
        self.base_send = send
        self._lost = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._accepted = self._closed = self._leaving = False
        channel_receive = functools.partial(self.channel_layer.receive, self.channel_name)
        # The channel's read last: when it fails, await_many_dispatch re-raises its error while
        # cancelling the others, and a task after it would be left pending.
        try:
            await await_many_dispatch([receive, self._until_lost, channel_receive], self.dispatch)
        except StopConsumer:
            pass
        except RedisError as error:
            # Only the channel layer's receive raises these here: the handlers catch their own.
            if self._leaving and not any(other._loop is self._loop for other in _live):
                # The read failed as the socket left (its cancelled read met a Redis that
                # restarted just then), and no other socket of this process listens: no group
                # that anyone follows was lost, so this is no outage, and new sockets are not
                # refused. The next socket reads on a new connection (runtime.channels._reader).
                logger.info("a socket's last read of Redis failed as it closed: %r", error)
            else:
                await self._live_channel_lost(error)
        except LiveChannelLost:
            await self._live_channel_lost(None)
        finally:
            _live.discard(self)
            # Also when the socket ends without `disconnect` (a lost channel layer, cancelled).
            await self._presence_end()

    async def _until_lost(self) -> dict[str, Any]:
        """Completes when another socket of this process saw the channel layer fail."""
        await self._lost.wait()
        return {"type": "live.lost"}

    async def live_lost(self, message: dict[str, Any]) -> None:
        raise LiveChannelLost()

    async def _live_channel_lost(self, error: BaseException | None) -> None:
        _live.discard(self)
        if error is not None:
            live_updates.failed(error)
            _live_close(self._loop)
        if not self._accepted:
            await self.accept()
        if not self._closed:
            await self.close(code=UNAVAILABLE)

    async def dispatch(self, message: dict[str, Any]) -> None:
        # channels' dispatch first runs `close_old_connections` on the thread of the process's
        # sync views, for every message (the connect, each frame, each group message): one trip
        # to that single thread, behind every request, per message. These consumers touch the
        # database only on the sockets' threads, which look after their own connections
        # (greycircle.socket_threads), so they skip it.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        # As channels' (which also ends with `close_old_connections` on the sync thread).
        self._leaving = True
        await self.disconnect(message["code"])
        raise StopConsumer()

    async def accept(self, subprotocol=None, headers=None) -> None:
        self._accepted = True
        await super().accept(subprotocol, headers)

    async def close(self, code=None, reason=None) -> None:
        self._closed = True
        await super().close(code, reason)

    async def connect(self) -> None:
        await self.accept()
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            refused = self.scope.get("auth_refused")
            await self.close(code=FORBIDDEN if refused else NOT_AUTHENTICATED)
            return
        group = await self.join(user)
        if group is None:
            await self.close(code=NOT_FOUND)
            return
        if live_updates.skip():
            await self.close(code=UNAVAILABLE)
            return
        try:
            async with _group_gate():
                await asyncio.wait_for(self._groups_add(group, user.pk), GROUP_TIMEOUT)
        except REDIS_ERRORS as error:
            live_updates.failed(error)
            await self.close(code=UNAVAILABLE)
            return
        live_updates.succeeded()
        self.group = group
        self.user_group = events.user_sockets_group(user.pk)
        _live.add(self)
        with _live_loops_lock:
            _live_loops.add(self._loop)
        await self._presence_start(user.pk)
        # In the group first, then the snapshot: a change in between is sent after it, never lost.
        first = await self.hello(user)
        if first is None:
            await self.close(code=NOT_FOUND)
            return
        await self.send_json(first)

    async def _groups_add(self, group: str, user_id: int) -> None:
        """Join the stream's group, and the group of every socket of the user (which closes
        them when the account is closed: `user_closed`)."""
        await self.channel_layer.group_add(group, self.channel_name)
        await self.channel_layer.group_add(events.user_sockets_group(user_id), self.channel_name)

    async def disconnect(self, code: int) -> None:
        _live.discard(self)
        await self._presence_end()
        if self.group is None:
            return
        groups, self.group = [self.group, self.user_group], None
        # Without Redis the group forgets the channel when it expires.
        with contextlib.suppress(*REDIS_ERRORS):
            async with _group_gate():
                await asyncio.wait_for(
                    asyncio.gather(
                        *(self.channel_layer.group_discard(g, self.channel_name) for g in groups)
                    ),
                    GROUP_TIMEOUT,
                )

    async def live_resync(self, message: dict[str, Any]) -> None:
        """A message for one of this socket's groups was lost (events.missed): the first frame
        again, read now, to catch up from; for the group of the user's sockets, 4503."""
        if message.get("group") == self.user_group:
            await self.user_closed({"code": UNAVAILABLE})
            return
        if self.group is None:
            return
        first = await self.hello(self.scope["user"])
        if first is None:
            await self.close(code=NOT_FOUND)
            return
        await self.send_json(first)

    async def user_closed(self, message: dict[str, Any]) -> None:
        """The account was deactivated (4403) or deleted (4401): nothing more reaches it."""
        _live.discard(self)
        await self._presence_end()
        await self.close(code=message["code"])

    # --- presence: the user is online while a socket of theirs is in its group ---------------

    _presence_user: int | None = None
    _presence_task: asyncio.Task[None] | None = None

    async def _presence_start(self, user_id: int) -> None:
        self._presence_user = user_id
        await _presence_update(presence.presence_socket_opened, user_id)
        self._presence_task = asyncio.create_task(self._presence_keep(user_id))

    async def _presence_keep(self, user_id: int) -> None:
        while True:
            await asyncio.sleep(presence.PRESENCE_REFRESH)
            await _presence_update(presence.presence_socket_alive, user_id)

    async def _presence_end(self) -> None:
        """Stop counting this socket (at most once)."""
        user_id, self._presence_user = self._presence_user, None
        task, self._presence_task = self._presence_task, None
        if task is not None:
            task.cancel()
        if user_id is not None:
            await _presence_update(presence.presence_socket_closed, user_id)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        if text_data is None:
            await self.send_error("malformed", "Send JSON text frames; binary frames are refused.")
            return
        try:
            content = json_loads_limited(
                text_data, max_bytes=MAX_FRAME_BYTES, max_depth=MAX_FRAME_DEPTH
            )
        except JsonRejected as rejected:
            await self.send_error(rejected.code, rejected.detail)
            return
        await self.receive_json(content)

    # What to say of a frame this socket does not take.
    unsupported = 'The only message to send is {"type": "ping"}.'

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        # Pings let clients detect dead connections.
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})
        else:
            await self.send_error("unsupported", self.unsupported)

    async def send_error(self, code: str, detail: str) -> None:
        await self.send_json({"type": "error", "code": code, "detail": detail})

    @classmethod
    async def encode_json(cls, content: Any) -> str:
        # channels' hook for `send_json` (the stdlib's encoder): written as every frame is.
        return events.frame_text(content)


async def _presence_update(update: Any, user_id: int) -> None:
    """Run a presence update; a failing cache never breaks the socket."""
    try:
        await run_for_socket(update, user_id=user_id)
    except Exception:
        logger.exception("could not update the presence of user %s", user_id)


class GameConsumer(LiveConsumer):
    """`ws/games/{id}/`: the audience of the seat the user holds (or the spectators)."""

    seat: int | None = None

    async def join(self, user: Any) -> str | None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        key = _link_key(self.scope)
        found = await run_shared(
            ("socket-seat", self.game_id, user.pk, key),
            functools.partial(
                selectors.game_audience_for, game_id=self.game_id, viewer=user, key=key
            ),
        )
        if found is None:  # no such game, or not one this user may see: the same 4404
            return None
        self.seat = found[0]
        return events.game_group(self.game_id, self.seat)

    async def hello(self, user: Any) -> dict[str, Any] | None:
        # The envelope of the audience the socket joined. Sockets of one audience that reconnect
        # together share one read of the game (started after they all joined the group).
        return await run_shared(
            ("socket-hello", self.game_id, self.seat), _hello, self.game_id, self.seat
        )

    unsupported = (
        'Send {"type": "ping"}, or a move: {"type": "move", "id", "expected_version", "move"}.'
    )

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "move":
            await self.send_json(await self._move(content))
        else:
            await super().receive_json(content)

    async def _move(self, content: dict[str, Any]) -> dict[str, Any]:
        """The answer to a move frame. Frames are handled one at a time, so the move's own `game`
        frame (published as it commits) is sent after this answer."""
        # A live game's clock stops when the move arrives, not when a thread is free to play it.
        arrived_at = timezone.now()
        valid = frames.move_frame_read(content)
        if valid is None:  # the serializer tells what is wrong
            frame = frames.MoveFrameSerializer(data=content)
            if not frame.is_valid():
                return _move_error(
                    content.get("id"),
                    code="invalid",
                    detail="Not a valid move frame.",
                    fields=frame.errors,
                )
            valid = frame.validated_data
        try:
            return await run_for_socket(
                _move_play,
                user=self.scope["user"],
                game_id=self.game_id,
                frame=valid,
                arrived_at=arrived_at,
            )
        except Exception:
            # As the REST endpoint's 500; the socket stays open.
            logger.exception("a move over the socket of game %s failed", self.game_id)
            return _move_error(
                valid["id"], code="server_error", detail="The move could not be played."
            )

    async def game_envelope(self, message: dict[str, Any]) -> None:
        # The frame's text, encoded once per audience by events.game_envelopes_send rather than
        # once per socket: a thousand spectators share one.
        await self.send(text_data=message["frame"])


def _move_play(
    *, user: Any, game_id: int, frame: dict[str, Any], arrived_at: datetime
) -> dict[str, Any]:
    """On the sockets' threads: the move of a valid frame, limited and played as over HTTP."""
    move_id = frame["id"]
    # The REST move endpoint's throttle scope (greycircle.games.api.THROTTLE_SCOPES).
    retry_after = rate_limits_spend(user=user, scope="moves")
    if retry_after is not None:
        return _move_error(
            move_id,
            code="throttled",
            detail=f"Too many moves: wait {retry_after} s.",
            retry_after=retry_after,
        )
    try:
        game = services.move_submit(
            game_id=game_id,
            user=user,
            move=frame["move"],
            expected_version=frame["expected_version"],
            idempotency_key=move_id,
            arrived_at=arrived_at,
        )
    except ServiceError as refusal:
        return _move_error(move_id, code=refusal.code, detail=refusal.detail, **refusal.extra)
    return {"type": "move_ack", "id": move_id, "version": game.version}


def _move_error(move_id: Any, *, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    """A `move_error` frame: the API's error shape, with the move's `id` if it is one."""
    valid_id = move_id if isinstance(move_id, str) and len(move_id) <= frames.MOVE_ID_MAX else None
    return {"type": "move_error", "id": valid_id, **error_body(code=code, detail=detail, **extra)}


def _link_key(scope: dict[str, Any]) -> str:
    """The unlisted game's link key the socket was opened with (`?key=`), if any."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    key = query.get("key", [""])[0]
    return key if len(key) <= LINK_KEY_MAX else ""


def _hello(game_id: int, seat: int | None) -> dict[str, Any] | None:
    game = selectors.game_get(game_id=game_id)
    if game is None:
        return None
    envelope = events.jsonable(selectors.game_view_for_seat(game=game, seat=seat))
    return {"type": "game", "envelope": envelope}


class MeConsumer(LiveConsumer):
    async def join(self, user: Any) -> str | None:
        return events.user_group(user.pk)

    async def hello(self, user: Any) -> dict[str, Any]:
        # The unread count as it is now: a client that reconnects corrects its badge with it.
        unread = await run_shared(("socket-unread", user.pk), notifications_unread_count, user=user)
        return {"type": "hello", "user": user.username, "unread_count": unread}

    async def user_notification(self, message: dict[str, Any]) -> None:
        # `notification`: the event; `inbox`: the notification it left in the inbox (or null);
        # `removed`, `read`: ids of notifications it removed or marked read; `unread_count`.
        await self.send_json({"type": "notification", **_without_type(message)})

    async def user_unread(self, message: dict[str, Any]) -> None:
        """Notifications were marked read (in another tab, an app, by opening a game)."""
        await self.send_json({"type": "unread", **_without_type(message)})

    async def user_game_started(self, message: dict[str, Any]) -> None:
        """The lobby paired you into a game (greycircle.lobby.events): open it."""
        await self.send_json({"type": "game_started", **_without_type(message)})

    async def user_direct_message(self, message: dict[str, Any]) -> None:
        """A message in one of your conversations with friends (greycircle.conversations)."""
        await self.send_json({"type": "direct_message", **_without_type(message)})

    async def user_direct_message_removed(self, message: dict[str, Any]) -> None:
        """The moderators hid a message you received (greycircle.conversations)."""
        await self.send_json({"type": "direct_message_removed", **_without_type(message)})

    async def user_messages_unread(self, message: dict[str, Any]) -> None:
        """Your count of unread messages from friends changed."""
        await self.send_json({"type": "messages_unread", **_without_type(message)})


def _without_type(message: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in message.items() if key != "type"}
