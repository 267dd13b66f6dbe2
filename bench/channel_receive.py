"""The channel layer's receiving side: CPU per message delivered to a server process's sockets.

    REDIS_URL=redis://127.0.0.1:6390/5 .venv/bin/python -m bench.channel_receive \\
        [--channels 50] [--messages 3000] [--rate 500] \\
        [--layer batched|channels_redis|pubsub] [--capacity 100] [--json]

This process plays a server process's sockets: `--channels` channels of one channel layer, each
in a group of its own and each awaiting `receive()` in a loop, as a consumer does. A child process
(the sender, started here, with its own Redis client) publishes `--messages` messages of 600
bytes, one group at a time in turn, `--rate` a second (paced by the clock, so the rate holds
while the sender keeps up; `--rate 0`: as fast as it goes), through `group_send_many_sync` as a
move's publish does. Reported: this process's CPU time (`time.process_time`) from the first
message sent to the last one received, per message; the wall time; the rate the sender reached;
and how many messages never arrived (a full channel drops what overflows it: the run ends
`--grace` seconds after the sender is done and nothing more came).

`--layer channels_redis` measures channels-redis's own `receive` (the same layer class without
the batched read, so the same storage and the same sender); `--layer pubsub` channels-redis's
`RedisPubSubChannelLayer` (Redis pub/sub: no queue, no capacity; its sender publishes with that
layer's `group_send`). `--capacity` is the layer's `capacity` option (channels-redis's default
is 100, our settings' 1,000), the most messages a channel's queue holds, given to both processes'
layers (a message is dropped when it is stored into a full queue).
`bench/channel_compare.py` runs several of these interleaved and gives the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time

from bench import loadkit

SENDER = """
import asyncio, sys, time
url, layer_name, run = sys.argv[1:4]
channels, messages, rate, capacity = map(float, sys.argv[4:8])
frame = {"type": "game.envelope", "frame": "y" * 600}
groups = [f"bench.{run}.{number}" for number in range(int(channels))]

def paced(send):
    time.sleep(0.5)
    start = time.monotonic()
    for number in range(int(messages)):
        if rate:
            delay = start + number / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        send(groups[number % len(groups)])
    print(f"{int(messages) / (time.monotonic() - start):.1f}", flush=True)

if layer_name == "pubsub":
    from channels_redis.pubsub import RedisPubSubChannelLayer

    async def main():
        layer = RedisPubSubChannelLayer(hosts=[url], prefix="bench")
        await asyncio.sleep(0.5)
        start = time.monotonic()
        for number in range(int(messages)):
            if rate:
                delay = start + number / rate - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            await layer.group_send(groups[number % len(groups)], frame)
        print(f"{int(messages) / (time.monotonic() - start):.1f}", flush=True)
        await layer.flush()

    asyncio.run(main())
else:
    from greycircle.runtime.channels import PipelinedRedisChannelLayer

    # The capacity is checked where a message is stored: the sender's layer needs it too.
    layer = PipelinedRedisChannelLayer(hosts=[url], prefix="bench", capacity=int(capacity))
    paced(lambda group: layer.group_send_many_sync([(group, frame)]))
"""


def make_layer(options: argparse.Namespace):
    from channels_redis.core import RedisChannelLayer
    from channels_redis.pubsub import RedisPubSubChannelLayer

    from greycircle.runtime.channels import PipelinedRedisChannelLayer

    # The host options of the production settings (greycircle.settings.redis_settings): reads
    # may block longer than redis-py's default 5-s socket timeout.
    host = {"address": options.redis_url, "socket_timeout": 15, "socket_connect_timeout": 1}
    if options.layer == "pubsub":
        return RedisPubSubChannelLayer(hosts=[host], prefix="bench")
    layer = PipelinedRedisChannelLayer(hosts=[host], prefix="bench", capacity=options.capacity)
    if options.layer == "channels_redis":
        # The library's read, one message at a time, on the same layer otherwise.
        layer.receive_single = RedisChannelLayer.receive_single.__get__(layer)
    return layer


async def run(options: argparse.Namespace) -> dict:
    layer = make_layer(options)
    run_id = str(os.getpid())
    names = [await layer.new_channel() for _ in range(options.channels)]
    for number, name in enumerate(names):
        await layer.group_add(f"bench.{run_id}.{number}", name)
    received = 0
    last_cpu = last_wall = 0.0
    done = asyncio.Event()
    arrived = asyncio.Event()

    async def listen(name: str) -> None:
        nonlocal received, last_cpu, last_wall
        while True:
            await layer.receive(name)
            received += 1
            last_cpu, last_wall = time.process_time(), time.monotonic()
            arrived.set()
            if received == options.messages:
                done.set()

    listeners = [asyncio.create_task(listen(name)) for name in names]
    sender = subprocess.Popen(
        [
            sys.executable,
            "-c",
            SENDER,
            options.redis_url,
            options.layer,
            run_id,
            str(options.channels),
            str(options.messages),
            str(options.rate),
            str(options.capacity),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    cpu, wall = time.process_time(), time.monotonic()
    # Wait for every message, or for the sender to be done and `--grace` s to pass with nothing
    # new (what is left was dropped), or for `--timeout`.
    while not done.is_set() and time.monotonic() - wall < options.timeout:
        arrived.clear()
        try:
            await asyncio.wait_for(arrived.wait(), options.grace)
        except TimeoutError:
            if sender.poll() is not None:
                break
    output, _ = await asyncio.to_thread(sender.communicate)
    for listener in listeners:
        listener.cancel()
    # channels-redis's own read, cancelled while it blocks, may read again for good (redis-py
    # answers the cancelled read as a timeout; greycircle/runtime/channels.py): do not wait on it.
    _, stuck = await asyncio.wait(listeners, timeout=options.grace)
    result = {
        "layer": options.layer,
        "capacity": None if options.layer == "pubsub" else options.capacity,
        "channels": options.channels,
        "messages": options.messages,
        "rate": options.rate,
        "sent_per_s": float(output.strip() or "nan"),
        "received": received,
        "lost": options.messages - received,
        "us_per_message": round((last_cpu - cpu) / max(received, 1) * 1e6),
        "wall_s": round(last_wall - wall, 2) if received else None,
        "load": loadkit.loadavg(),
        "reads_left_running": len(stuck),
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"))
    parser.add_argument("--channels", type=int, default=50)
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--rate", type=float, default=500, help="messages a second; 0: no pacing")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--grace", type=float, default=2.0)
    parser.add_argument(
        "--layer", choices=["batched", "channels_redis", "pubsub"], default="batched"
    )
    parser.add_argument("--capacity", type=int, default=100)
    parser.add_argument("--json", action="store_true", help="one JSON line")
    options = parser.parse_args()
    if not options.redis_url:
        parser.error("give --redis-url or set REDIS_URL")
    loop = asyncio.new_event_loop()
    result = loop.run_until_complete(run(options))
    if options.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['layer']} (capacity {result['capacity']}): {result['received']} of "
            f"{result['messages']} messages to {result['channels']} channels at "
            f"{result['sent_per_s']:g}/s: {result['us_per_message']} us of CPU a message, "
            f"wall {result['wall_s']} s, load average {result['load']}"
        )
    sys.stdout.flush()
    # Reads left running (above) would never let the loop close: end the process here.
    os._exit(0)


if __name__ == "__main__":
    main()
