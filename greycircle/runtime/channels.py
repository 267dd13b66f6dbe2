"""Channel layers that send one change to several groups in one call (`group_send_many`).

Library seam (UPGRADING.md, "channels-redis", "channels", "redis"): channels-redis==4.3.0,
channels==4.3.2, redis==8.1.0. `PipelinedRedisChannelLayer` overrides
`RedisChannelLayer.receive_single` and `close_pools` (and closes its own reader as each event loop
closes, wrapping `loop.close` as channels-redis does for its pools), sets its `brpop_timeout` (1 s
instead of 5), and uses its `ring_size`, `prefix`, `connection()`, `receive_lock` (made anew each
time receiving starts after nobody received), `receive_buffer`, `deserialize`, `_group_key`,
`hosts`, `group_expiry`, `expiry`, `capacity`, `channel_capacity` and `_serializer` (its
`random_prefix_length`, `crypter` and msgpack's `as_bytes`), and writes channels-redis's storage
(a sorted set of members per group; one of messages per channel key, scored by time, each message
a random prefix and a msgpack map whose `__asgi_channel__` lists the key's channels) with a Lua
script of its own, `group_send`'s four steps for every group at once; it relies on redis-py's
`bzmpop`, run in a task of its own (a blocking read cancelled as Redis answers loses the answer).
`BatchingInMemoryChannelLayer` overrides `InMemoryChannelLayer.new_channel` and `group_add`. Why:
receiving CPU 856 to 961 µs per message against channels-redis's 1,764 to 1,841 µs at 500/s, and
none lost at ≈1,000/s where channels-redis lost 22%; a change for five groups in one round trip
instead of twenty. Re-measured on 2026-12-01 (`bench/channel_compare.py`, 5 interleaved rounds,
load average 6 to 19): 281 and 229 µs per message batched at 500/s and 1,000/s, against 800 and
606 µs (2.6 to 2.8 times) for channels-redis's read with a `capacity` of 10,000, the least that lost
nothing (at 100 and 1,000 it lost 7 to 74% of the messages; ours, at 100, lost 7 messages in
one run of ten, hence the settings' capacity of 1,000: bench/README.md, "Channel capacity"): far
from the 10% that would drop the override (UPGRADING.md, "channels-redis").

A move is news for every audience of its game (each seat and the spectators) and for the players'
personal streams (`ws/me/`). channels-redis sends to one group at a time, in four round trips to
Redis each (drop expired members, read the members, drop expired messages, add the messages); a
change for five groups cost twenty. `PipelinedRedisChannelLayer.group_send_many` sends the whole
change in one: a script reads the members of every group and stores every message (until
2026-12-02 a pipeline read the members first, then a script stored the messages: one round trip
more for every change; bench/README.md, "Moves over the socket").
Sync code (views, the task worker) sends through a blocking Redis client of its own, rather than
handing each publish over to the event loop and waiting for it.

Receiving is batched too. All the sockets of one server process share one Redis queue, which
channels-redis reads one message at a time, in four round trips each (put back what an
interrupted read left in a backup queue, pop one message, copy it to the backup queue, drop it
from there once handed over): ≈1.8 ms of CPU per frame delivered, and under load the queue
overflowed and lost frames (bench/README.md, "The sixth session"). `PipelinedRedisChannelLayer`
pops every waiting message, up to `RECEIVE_BATCH`, in one blocking `BZMPOP` (Redis 7) and hands
them all to their sockets' buffers at once. Nothing is awaited between the pop and the hand-over,
so the backup queue has nothing to guard. The read is a task of its own, not of the socket whose
receive started it: that socket closing (its task cancelled) while Redis answers would make
redis-py drop the connection and the answer, every socket's messages that it popped (frames lost
under load: bench/README.md, "Moves over the socket"); it runs on, and the next socket to receive
takes it over.

A Redis that hangs is noticed: each read blocks in Redis for a second (`brpop_timeout`) and gives up
after two without an answer (the connections' `socket_timeout`), no longer than a publish waits
(`SYNC_TIMEOUT`). A read that gives up, like one whose connection failed, closes the process's
sockets with 4503 (greycircle.games.consumers), so a hang long enough for a publish to be lost on
any server closes the sockets of every server, which reconnect and catch up by version.

A restarted Redis is noticed too, and only when it matters. The layer's pooled connections (joins,
leaves, sends) try a failed command once more on a new connection (settings: one left idle in the
pool across a restart is no outage), but the read of the queue has a connection of its own that
nothing retries: if it breaks while sockets listen, Redis may have forgotten their groups, and
they are closed with 4503. It is made anew whenever the sockets start receiving after none did,
since the one before may have been left idle across a restart while no socket had a group to lose.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
import time
import weakref
from collections.abc import Sequence
from typing import Any

import msgpack
import redis
import redis.asyncio
import redis.backoff
import redis.retry
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer
from channels_redis.core import RedisChannelLayer

# `(group, message)` pairs: the messages of one change.
GroupMessages = Sequence[tuple[str, dict[str, Any]]]

# Send each message to every member of its group (KEYS[i]) in one round trip: drop the group's
# expired members, read the others, and store the message once per channel key (a process's
# sockets share one), unless that channel is full, after dropping its expired messages, as
# channels-redis's `group_send` does per group in four round trips. ARGV[i] is the message's
# serialised payload without the value of its last key, `__asgi_channel__` (its random prefix,
# then a msgpack map): the script appends the channels of the key it is stored in, as a msgpack
# array (what channels-redis puts there). The channels' keys are derived here, not passed in
# KEYS: fine on one Redis server, which is the only setup that uses this script.
_GROUPS_SEND = """
local n = #KEYS
local prefix = ARGV[n + 1]
local now = tonumber(ARGV[n + 2])
local members_expired = tonumber(ARGV[n + 3])
local expiry = tonumber(ARGV[n + 4])
local capacity = tonumber(ARGV[n + 5])
local over_capacity = 0
for i = 1, n do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, members_expired)
    local keys, channels = {}, {}
    for _, channel in ipairs(redis.call('ZRANGE', KEYS[i], 0, -1)) do
        local bang = string.find(channel, '!', 1, true)
        local key = prefix .. (bang and string.sub(channel, 1, bang) or channel)
        if channels[key] == nil then
            channels[key] = {}
            keys[#keys + 1] = key
        end
        table.insert(channels[key], channel)
    end
    for _, key in ipairs(keys) do
        redis.call('ZREMRANGEBYSCORE', key, 0, now - expiry)
        if redis.call('ZCARD', key) < capacity then
            -- After the channel's newest message, never at its score: messages of equal score
            -- are popped in the order of their random prefixes, so one score for several
            -- messages of a channel (this script's single `now`) would reorder them.
            -- Scores are kept to the microsecond, so `now` is compared as it would be kept.
            local score = tonumber(string.format('%.6f', now))
            local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]
            if newest and tonumber(newest) + 0.0000005 > score then
                score = tonumber(newest) + 0.000001
            end
            local stored = ARGV[i] .. cmsgpack.pack(channels[key])
            redis.call('ZADD', key, string.format('%.6f', score), stored)
            redis.call('EXPIRE', key, expiry)
        else
            over_capacity = over_capacity + 1
        end
    end
end
return over_capacity
"""


class PipelinedRedisChannelLayer(RedisChannelLayer):
    """channels-redis's layer, plus `group_send_many`: several group messages in one round trip,
    from async code or (`group_send_many_sync`) from sync code without a hop to the event loop;
    and a process's sockets receive their messages in batches (one round trip each)."""

    # A publish gives up on a Redis that does not answer within this many seconds.
    SYNC_TIMEOUT = 2.0
    # A read of the process's queue blocks in Redis for at most this many seconds (channels-redis:
    # 5) and gives up when Redis has not answered within the connections' `socket_timeout`
    # (settings: 2 s, no more than SYNC_TIMEOUT), so that a Redis that hangs long enough to
    # lose any server's publish makes every server's read fail, and close its sockets with 4503
    # (greycircle.games.consumers), instead of them waiting for what was lost.
    brpop_timeout = 1
    # At most this many messages are popped in one read.
    RECEIVE_BATCH = 100

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync_client: redis.Redis | None = None
        self._sync_client_lock = threading.Lock()
        # Per event loop: the client that reads the process's queue, and the `receive_lock` of
        # the sockets' receiving it was made for (`_reader`); closed and dropped as the loop
        # closes (`_close_with_loop`). Not a weak mapping: the client refers to its loop, which
        # would never be let go.
        self._readers: dict[asyncio.AbstractEventLoop, tuple[asyncio.Lock | None, Any]] = {}
        self._loops_wrapped: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
        # Per event loop: the read of the process's queue under way (`receive_single`), with the
        # `receive_lock` it was started under; a task of its own rather than the socket's that
        # started it, so that the socket closing does not interrupt it.
        self._reads: dict[asyncio.AbstractEventLoop, tuple[asyncio.Lock | None, Any]] = {}

    async def receive_single(self, channel: str) -> tuple[Any, dict[str, Any]]:
        """The next message of `channel`. For the process's own queue (the one receive() reads
        for all its sockets), the last message popped; the ones before it go straight to their
        sockets' buffers, as receive() puts the one returned."""
        if "!" not in channel or self.ring_size != 1:
            return await super().receive_single(channel)
        assert self.require_valid_channel_name(channel, receive=True), "Channel name invalid"
        key = self.prefix + channel
        loop = asyncio.get_running_loop()
        popped = None
        while popped is None:
            # The read runs in a task of its own. Redis pops the messages as it answers: a read
            # cancelled before its answer was read (the socket whose task it ran on closed)
            # lost them, since redis-py then drops the connection, and the other sockets never
            # got their frames (bench/README.md, "Moves over the socket"). Left running instead,
            # it is taken over by the next socket to receive.
            made_for, read = self._reads.get(loop, (None, None))
            if read is None:
                connection = await self._reader()
                made_for = self.receive_lock
                read = loop.create_task(
                    # `[key, [[message, score], ...]]`, or None after `brpop_timeout` seconds.
                    connection.bzmpop(
                        self.brpop_timeout, 1, [key], min=True, count=self.RECEIVE_BATCH
                    )
                )
                read.add_done_callback(_retrieved)
                self._reads[loop] = (made_for, read)
            try:
                popped = await asyncio.shield(read)
            except asyncio.CancelledError:
                if read.done() and not read.cancelled() and read.exception() is None:
                    # It ended as this socket closed: hand over what it popped.
                    self._buffer(channel, read.result()[1] if read.result() else [])
                raise
            except (redis.RedisError, OSError):
                if made_for is self.receive_lock:
                    raise
                # Started before no socket received for a moment, on the reader made before
                # (`_reader`): a Redis restarted meanwhile is no outage for the sockets since.
            finally:
                if read.done() and self._reads.get(loop, (None, None))[1] is read:
                    del self._reads[loop]
        # From here to the return nothing awaits. receive() buffers the message returned after
        # those buffered here: the last comes last.
        self._buffer(channel, popped[1][:-1])
        return self._addressed(channel, popped[1][-1][0])

    async def _reader(self) -> Any:
        """The client that reads the process's queue on this loop: one connection, which no
        failure is retried on, since a restarted Redis has forgotten the sockets' groups and
        they must be closed (the other connections retry once: settings.redis_settings).

        A new one each time the sockets start receiving after none did (channels-redis makes a
        new `receive_lock` then): the old one's connection may have been left idle across a
        restart of Redis while no socket had a group to lose, and failing on it would close the
        sockets that just joined."""
        if "address" not in self.hosts[0]:
            return self.connection(0)  # Sentinel: channels-redis's pool
        loop = asyncio.get_running_loop()
        made_for, reader = self._readers.get(loop, (None, None))
        if reader is None or made_for is not self.receive_lock:
            if reader is not None:
                with contextlib.suppress(redis.RedisError, OSError):
                    await reader.aclose()
            options = {
                key: value
                for key, value in self.hosts[0].items()
                if key not in ("address", "retry")
            }
            reader = redis.asyncio.Redis.from_url(
                self.hosts[0]["address"], single_connection_client=True, **options
            )
            self._close_with_loop(loop)
            self._readers[loop] = (self.receive_lock, reader)
        return reader

    def _close_with_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Close `loop`'s reader as the loop closes, as channels-redis closes its pools (its
        `_wrap_close` wraps `loop.close`, and calls only the pools' flush, not `close_pools`).
        Sync code receives on a loop of its own each time (async_to_sync: views, tests): left to
        the garbage collector, each reader held its connection open until then, and closed it on
        its closed loop ("RuntimeError: Event loop is closed", printed as an ignored exception)."""
        if loop in self._loops_wrapped:
            return
        self._loops_wrapped.add(loop)
        close = loop.close

        def closing(*args: Any, **kwargs: Any) -> None:
            if loop.is_running():
                close(*args, **kwargs)  # refused: it stays open, and wrapped
                return
            loop.close = close  # type: ignore[method-assign]
            self._loops_wrapped.discard(loop)
            _, read = self._reads.pop(loop, (None, None))
            if read is not None:
                read.cancel()
            _, reader = self._readers.pop(loop, (None, None))
            if reader is not None and not loop.is_closed():
                with contextlib.suppress(redis.RedisError, OSError):
                    loop.run_until_complete(reader.aclose())
            close(*args, **kwargs)

        loop.close = closing  # type: ignore[method-assign]

    async def close_pools(self) -> None:
        _, read = self._reads.pop(asyncio.get_running_loop(), (None, None))
        if read is not None:
            read.cancel()
            with contextlib.suppress(asyncio.CancelledError, redis.RedisError, OSError):
                await read
        await super().close_pools()
        _, reader = self._readers.pop(asyncio.get_running_loop(), (None, None))
        if reader is not None:
            await reader.aclose()

    def _buffer(self, channel: str, popped: list[Any]) -> None:
        """Put each popped `[message, score]` in the buffer of its socket (or sockets)."""
        for content, _ in popped:
            to, message = self._addressed(channel, content)
            for name in to if isinstance(to, list) else [to]:
                self.receive_buffer[name].put_nowait(message)

    def _addressed(self, channel: str, content: bytes) -> tuple[Any, dict[str, Any]]:
        """A popped message and the channel (or channels) it is for, as receive_single reads it."""
        message = self.deserialize(content)
        return message.pop("__asgi_channel__", channel), message

    async def group_send_many(self, messages: GroupMessages) -> None:
        """Send each `(group, message)`; a channel in several groups gets each of its messages."""
        if not messages:
            return
        if not self._sends_in_one_trip():
            for group, message in messages:
                await self.group_send(group, message)
            return
        await self.connection(0).eval(_GROUPS_SEND, *self._send_arguments(messages))

    def group_send_many_sync(self, messages: GroupMessages) -> None:
        """`group_send_many` for sync code (views, the task worker), through a blocking client:
        no thread waits on the event loop for it."""
        if not messages:
            return
        client = self._sync_redis()
        if client is None:
            async_to_sync(self.group_send_many)(messages)
            return
        client.eval(_GROUPS_SEND, *self._send_arguments(messages))

    def _sends_in_one_trip(self) -> bool:
        """Whether `_GROUPS_SEND` can send for this layer: one Redis server, one capacity for
        every channel, and messages serialised by msgpack, unencrypted (what the script writes).
        Otherwise channels-redis sends to one group at a time."""
        serializer = self._serializer
        return (
            self.ring_size == 1
            and not self.channel_capacity
            and type(serializer).as_bytes is msgpack.packb
            and serializer.crypter is None
        )

    def _send_arguments(self, messages: GroupMessages) -> list[Any]:
        """The arguments of `_GROUPS_SEND` for `messages`."""
        now = time.time()
        keys: list[bytes] = []
        payloads: list[bytes] = []
        random_bytes = self._serializer.random_prefix_length
        for group, message in messages:
            assert self.require_valid_group_name(group), "Group name not valid"
            keys.append(self._group_key(group))
            # The map's last value, None, is one byte (0xc0): the script writes the channels.
            packed = msgpack.packb({**message, "__asgi_channel__": None})
            # A random prefix makes each stored message unique in its channel's sorted set, as
            # channels-redis's serializer does (`random_prefix_length`).
            payloads.append(
                random.getrandbits(8 * random_bytes).to_bytes(random_bytes, "big") + packed[:-1]
            )
        return [
            len(keys),
            *keys,
            *payloads,
            self.prefix,
            now,
            int(now) - self.group_expiry,
            self.expiry,
            self.capacity,
        ]

    def _sync_redis(self) -> redis.Redis | None:
        """This process's blocking client (thread-safe), or None for a setup it does not cover
        (several servers, Sentinel, a send that takes more than one trip)."""
        if not self._sends_in_one_trip() or "address" not in self.hosts[0]:
            return None
        with self._sync_client_lock:
            if self._sync_client is None:
                options = {
                    key: value
                    for key, value in self.hosts[0].items()
                    if key not in ("address", "socket_timeout", "retry")
                }
                options.setdefault("socket_connect_timeout", 1)
                self._sync_client = redis.Redis.from_url(
                    self.hosts[0]["address"],
                    socket_timeout=self.SYNC_TIMEOUT,
                    # A connection that failed (left stale by a restart of Redis) is tried once
                    # more on a new one before the publish counts as failed, as the layer's own
                    # (settings.redis_settings); a timeout is not retried.
                    retry=redis.retry.Retry(
                        redis.backoff.NoBackoff(), 1, supported_errors=(redis.ConnectionError,)
                    ),
                    **options,
                )
            return self._sync_client


def _retrieved(read: asyncio.Task[Any]) -> None:
    """Mark a read's error as seen: one that failed after every socket left has nobody to tell."""
    if not read.cancelled():
        read.exception()


class BatchingInMemoryChannelLayer(InMemoryChannelLayer):
    """The in-memory layer (one process, no Redis) with the same `group_send_many`, and a
    `group_send_many_sync` that hands the messages to the event loop its consumers listen on:
    its queues belong to that loop, whichever thread a request runs in."""

    SYNC_TIMEOUT = 2.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loop: asyncio.AbstractEventLoop | None = None

    async def new_channel(self, prefix: str = "specific.") -> str:
        self._loop = asyncio.get_running_loop()
        return await super().new_channel(prefix)

    async def group_add(self, group: str, channel: str) -> None:
        self._loop = asyncio.get_running_loop()
        await super().group_add(group, channel)

    async def group_send_many(self, messages: GroupMessages) -> None:
        for group, message in messages:
            await self.group_send(group, message)

    def group_send_many_sync(self, messages: GroupMessages) -> None:
        loop = self._loop
        if loop is None or not loop.is_running():
            # No socket ever joined a group in this process, or the loop its sockets listened on
            # is gone (tests run one loop each): nobody to tell.
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            loop.create_task(self.group_send_many(messages))
            return
        sent = asyncio.run_coroutine_threadsafe(self.group_send_many(messages), loop)
        sent.result(timeout=self.SYNC_TIMEOUT)
