"""One change, one call: `group_send_many` delivers every group's message, on a real Redis and in
memory alike."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys

import pytest
import redis
import redis.asyncio
from asgiref.sync import async_to_sync
from channels_redis.core import RedisChannelLayer

from greycircle.runtime.channels import BatchingInMemoryChannelLayer, PipelinedRedisChannelLayer
from greycircle.settings import redis_settings
from tests.redis_server import REDIS_SERVER, wait_for

# How long a test waits for a message that should come (for a busy machine; it ends as soon as
# the message is there).
WITHIN = 30


@pytest.fixture
def redis_layer(redis_server):
    return PipelinedRedisChannelLayer(hosts=[redis_server.url], prefix="test")


async def joined(layer, group: str) -> str:
    """A new channel of `layer`'s process, in `group`."""
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    return channel


async def exchange(layer) -> dict[str, list[dict]]:
    """Two processes' channels in three groups; one in two groups. Returns what each received."""
    north = await layer.new_channel()
    south = await layer.new_channel()
    await layer.group_add("game.1.seat0", north)
    await layer.group_add("game.1.spectators", north)
    await layer.group_add("game.1.spectators", south)
    await layer.group_add("game.1.seat1", south)
    await layer.group_send_many(
        [
            ("game.1.seat0", {"type": "game.envelope", "for": "seat0"}),
            ("game.1.seat1", {"type": "game.envelope", "for": "seat1"}),
            ("game.1.spectators", {"type": "game.envelope", "for": "spectators"}),
            ("user.9", {"type": "user.notification", "for": "nobody listens"}),
        ]
    )
    return {
        "north": [await layer.receive(north), await layer.receive(north)],
        "south": [await layer.receive(south), await layer.receive(south)],
    }


@pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")
async def test_each_channel_gets_the_message_of_each_of_its_groups_through_redis(redis_layer):
    received = await exchange(redis_layer)
    assert sorted(m["for"] for m in received["north"]) == ["seat0", "spectators"]
    assert sorted(m["for"] for m in received["south"]) == ["seat1", "spectators"]
    await redis_layer.flush()


@pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")
async def test_sending_to_several_groups_takes_one_round_trip(redis_layer, monkeypatch):
    await exchange(redis_layer)  # the groups and the connection exist now
    connection = redis_layer.connection(0)
    calls = []
    for name in ("eval", "zrange", "zremrangebyscore"):
        original = getattr(connection, name)

        async def counted(*args, _original=original, _name=name, **kwargs):
            calls.append(_name)
            return await _original(*args, **kwargs)

        monkeypatch.setattr(connection, name, counted)
    original_pipeline = connection.pipeline
    monkeypatch.setattr(
        connection, "pipeline", lambda **kw: calls.append("pipeline") or original_pipeline(**kw)
    )

    await redis_layer.group_send_many(
        [(f"game.1.{group}", {"type": "x"}) for group in ("seat0", "seat1", "spectators")]
    )

    assert calls == ["eval"]  # the groups' members read and every message stored at once
    await redis_layer.flush()


@pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")
async def test_what_one_trip_stores_is_channels_redis_own_message(redis_server):
    # Received by channels-redis's own layer: the script writes its storage as it does.
    ours = PipelinedRedisChannelLayer(hosts=[redis_server.url], prefix="interop")
    theirs = RedisChannelLayer(hosts=[redis_server.url], prefix="interop")
    first, second = await theirs.new_channel(), await theirs.new_channel()
    await theirs.group_add("game.7.seat0", first)
    await theirs.group_add("game.7.seat0", second)
    frame = {"type": "game.envelope", "frame": "é" * 300, "n": 2**40, "ok": True, "list": [1.5]}
    await ours.group_send_many([("game.7.seat0", frame)])
    assert await theirs.receive(first) == frame
    assert await theirs.receive(second) == frame
    await theirs.flush()


@pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")
async def test_a_full_channel_takes_no_more_messages(redis_server):
    layer = PipelinedRedisChannelLayer(hosts=[redis_server.url], prefix="full", capacity=2)
    full = await joined(layer, "game.8.seat0")
    for n in range(3):  # the third finds the channel full
        await layer.group_send_many([("game.8.seat0", {"type": "x", "n": n})])
    assert [(await layer.receive(full))["n"] for _ in range(2)] == [0, 1]
    await layer.group_send_many([("game.8.seat0", {"type": "x", "n": 3})])
    assert (await layer.receive(full))["n"] == 3
    await layer.flush()


async def test_the_in_memory_layer_sends_to_several_groups_alike():
    received = await exchange(BatchingInMemoryChannelLayer())
    assert sorted(m["for"] for m in received["north"]) == ["seat0", "spectators"]
    assert sorted(m["for"] for m in received["south"]) == ["seat1", "spectators"]


@pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")
async def test_sync_code_sends_through_its_own_client_alike(redis_layer):
    from asgiref.sync import sync_to_async

    north = await joined(redis_layer, "game.2.seat0")
    south = await joined(redis_layer, "game.2.spectators")

    await sync_to_async(redis_layer.group_send_many_sync)(
        [
            ("game.2.seat0", {"type": "game.envelope", "for": "seat0"}),
            ("game.2.spectators", {"type": "game.envelope", "for": "spectators"}),
        ]
    )

    assert (await redis_layer.receive(north))["for"] == "seat0"
    assert (await redis_layer.receive(south))["for"] == "spectators"
    await redis_layer.flush()


@pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")
async def test_messages_of_one_send_reach_a_channel_in_their_order(redis_layer):
    """One send stores them all at one time: each after the channel's newest, never at its score
    (equal scores are popped in the order of their random prefixes)."""
    from asgiref.sync import sync_to_async

    channel = await joined(redis_layer, "user.3")
    for _ in range(2):
        await sync_to_async(redis_layer.group_send_many_sync)(
            [("user.3", {"type": "x", "n": n}) for n in range(20)]
        )

    received = [(await redis_layer.receive(channel))["n"] for _ in range(40)]
    assert received == [*range(20), *range(20)]
    await redis_layer.flush()


@pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")
async def test_messages_waiting_for_a_process_are_popped_in_one_read_and_each_reaches_its_socket(
    redis_layer, monkeypatch
):
    channels = [await joined(redis_layer, f"game.3.seat{number}") for number in range(3)]
    for n in range(10):  # ten changes, each for every seat, before anyone reads
        await redis_layer.group_send_many(
            [(f"game.3.seat{number}", {"type": "x", "n": n}) for number in range(3)]
        )
    reads = []
    original = redis.asyncio.Redis.bzmpop

    async def counted(client, *args, **kwargs):
        reads.append(kwargs["count"])
        return await original(client, *args, **kwargs)

    # The read's client is the layer's own (a connection that no failure is retried on).
    monkeypatch.setattr(redis.asyncio.Redis, "bzmpop", counted)

    received = {
        channel: [(await redis_layer.receive(channel))["n"] for _ in range(10)]
        for channel in channels
    }

    assert reads == [redis_layer.RECEIVE_BATCH]
    assert all(numbers == list(range(10)) for numbers in received.values())
    await redis_layer.flush()


@pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")
async def test_a_socket_that_stops_waiting_leaves_the_others_their_messages(redis_layer):
    leaving = await joined(redis_layer, "game.4.seat0")
    staying = await joined(redis_layer, "game.4.seat1")
    waiting = asyncio.create_task(redis_layer.receive(leaving))
    await asyncio.sleep(0.05)  # blocked in Redis, holding the process's read
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting

    await redis_layer.group_send_many([("game.4.seat1", {"type": "x", "for": "staying"})])

    message = await asyncio.wait_for(redis_layer.receive(staying), 5)
    assert message["for"] == "staying"
    await redis_layer.flush()


def blocked_reads(client: redis.Redis) -> int:
    """How many clients of Redis wait in a blocking pop (the process's read of its queue)."""
    return sum(1 for each in client.client_list() if "b" in each["flags"])


@pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")
async def test_a_socket_that_closes_as_redis_answers_its_read_loses_nobody_elses_message(
    redis_layer, redis_server
):
    # The read of the process's queue runs on whichever socket's task came first. Redis pops
    # the waiting messages as it answers; if that socket closes (its task is cancelled) before
    # the answer is read, the answer must still reach the other sockets: cancelled mid-read,
    # redis-py drops the connection and the messages with it, frames that never came (the
    # socket bench: a game's last frame missed by both players, bench/README.md).
    leaving = await joined(redis_layer, "game.7.seat0")
    staying = await joined(redis_layer, "game.7.seat1")
    client = redis.Redis.from_url(redis_server.url)
    holding = asyncio.create_task(redis_layer.receive(leaving))
    while not blocked_reads(client):  # blocked in Redis, holding the process's read
        await asyncio.sleep(0.01)
    waiting = asyncio.create_task(redis_layer.receive(staying))
    await asyncio.sleep(0)  # it waits for its buffer (or the read)

    # Without the loop running: Redis pops the message and answers the blocked read, then the
    # socket holding it closes before the answer is read.
    redis_layer.group_send_many_sync([("game.7.seat1", {"type": "x", "for": "staying"})])
    wait_for(lambda: not blocked_reads(client), timeout=WITHIN, what="the read answered")
    holding.cancel()

    message = await asyncio.wait_for(waiting, WITHIN)
    assert message["for"] == "staying"
    with contextlib.suppress(asyncio.CancelledError):
        await holding
    client.close()
    await redis_layer.flush()
    await redis_layer.close_pools()


@pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")
async def test_a_process_that_reads_nothing_for_a_moment_loses_none_of_a_burst(redis_server):
    # A server process's sockets share one channel in Redis, and the batched read hands each
    # socket's messages to its buffer in the process: a process that gets no CPU for a moment (a
    # busy machine) then finds a burst waiting, more than channels-redis's default capacity of
    # 100 (bench/README.md, "Channel capacity"). The production settings hold it.
    config = redis_settings(redis_server.url)["CHANNEL_LAYERS"]["default"]["CONFIG"]
    layer = PipelinedRedisChannelLayer(**config)
    channels = [await joined(layer, f"game.5.seat{number}") for number in range(2)]
    changes = 300  # 600 messages, over a second of a busy server's frames
    for n in range(changes):
        await layer.group_send_many(
            [(f"game.5.seat{number}", {"type": "x", "n": n}) for number in range(2)]
        )

    received: dict[str, list[int]] = {channel: [] for channel in channels}
    with contextlib.suppress(TimeoutError):  # a message lost would never come
        for channel in channels:
            for _ in range(changes):
                message = await asyncio.wait_for(layer.receive(channel), WITHIN)
                received[channel].append(message["n"])

    assert all(numbers == list(range(changes)) for numbers in received.values())
    await layer.flush()
    await layer.close_pools()


@pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server")
def test_receiving_from_sync_code_closes_each_loops_connections_with_the_loop(
    redis_server, monkeypatch
):
    # Sync code (a view, a test) receives on an event loop made for the call (async_to_sync). The
    # read's client of each loop is closed as the loop closes: left to the garbage collector, it
    # closed its connection on a closed loop ("RuntimeError: Event loop is closed", printed as an
    # ignored exception), and until then it held the connection open.
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    layer = PipelinedRedisChannelLayer(hosts=[redis_server.url], prefix="test")

    async def one_message(layer) -> dict:
        channel = await joined(layer, "game.6.seat0")
        await layer.group_send_many([("game.6.seat0", {"type": "x"})])
        return await layer.receive(channel)

    for _ in range(3):
        assert async_to_sync(one_message)(layer) == {"type": "x"}
    del layer
    gc.collect()

    assert [repr(each.exc_value) for each in unraisable] == []
    with redis.Redis.from_url(redis_server.url) as client:
        wait_for(lambda: len(client.client_list()) == 1, timeout=WITHIN, what="only this client")
