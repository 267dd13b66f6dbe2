"""The channel layer's receiving side: CPU per message delivered to a server process's sockets.

    REDIS_URL=redis://127.0.0.1:6390/5 .venv/bin/python -m bench.channel_receive \\
        [--channels 50] [--messages 3000] [--rate 500] [--layer channels_redis]

This process plays a server process's sockets: `--channels` channels of one channel layer, each
in a group of its own and each awaiting `receive()` in a loop, as a consumer does. A child process
(the sender, started here, with its own Redis client) publishes `--messages` messages of 600
bytes, one group at a time in turn, `--rate` a second, through `group_send_many_sync` as a move's
publish does. Reported: this process's CPU time (`time.process_time`) from the first message to
the last one received, per message, and the wall time. `--layer channels_redis` measures
channels-redis's own `receive` (the same layer class without the batched read) for comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time

from bench import loadkit

SENDER = """
import sys, time
from greycircle.runtime.channels import PipelinedRedisChannelLayer
url, run, channels, messages, rate = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:6])
layer = PipelinedRedisChannelLayer(hosts=[url], prefix="bench")
frame = {"type": "game.envelope", "frame": "y" * 600}
time.sleep(0.5)
for number in range(int(messages)):
    layer.group_send_many_sync([(f"bench.{run}.{number % int(channels)}", frame)])
    time.sleep(1 / rate)
"""


async def run(options: argparse.Namespace) -> None:
    from channels_redis.core import RedisChannelLayer

    from greycircle.runtime.channels import PipelinedRedisChannelLayer

    # The host options of the production settings (greycircle.settings.redis_settings): reads
    # may block longer than redis-py's default 5-s socket timeout.
    host = {"address": options.redis_url, "socket_timeout": 15, "socket_connect_timeout": 1}
    layer = PipelinedRedisChannelLayer(hosts=[host], prefix="bench")
    if options.layer == "channels_redis":
        # The library's read, one message at a time, on the same layer otherwise.
        layer.receive_single = RedisChannelLayer.receive_single.__get__(layer)
    run_id = str(os.getpid())
    names = [await layer.new_channel() for _ in range(options.channels)]
    for number, name in enumerate(names):
        await layer.group_add(f"bench.{run_id}.{number}", name)
    received = 0
    done = asyncio.Event()

    async def listen(name: str) -> None:
        nonlocal received
        while True:
            await layer.receive(name)
            received += 1
            if received == options.messages:
                done.set()

    listeners = [asyncio.create_task(listen(name)) for name in names]
    sender = subprocess.Popen(
        [
            sys.executable,
            "-c",
            SENDER,
            options.redis_url,
            run_id,
            str(options.channels),
            str(options.messages),
            str(options.rate),
        ]
    )
    cpu, wall = time.process_time(), time.monotonic()
    try:
        await asyncio.wait_for(done.wait(), options.timeout)
    except TimeoutError:
        print(f"only {received} of {options.messages} messages arrived (the channel was full?)")
        raise SystemExit(1) from None
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    sender.wait()
    for listener in listeners:
        listener.cancel()
    for number, name in enumerate(names):
        await layer.group_discard(f"bench.{run_id}.{number}", name)
    print(
        f"{options.layer}: {options.messages} messages to {options.channels} channels at "
        f"{options.rate:g}/s: {cpu / options.messages * 1e6:.0f} us of receiving CPU per message, "
        f"wall {wall:.2f} s, load average {loadkit.loadavg()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"))
    parser.add_argument("--channels", type=int, default=50)
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--rate", type=float, default=500, help="messages sent a second")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--layer", choices=["batched", "channels_redis"], default="batched")
    options = parser.parse_args()
    if not options.redis_url:
        parser.error("give --redis-url or set REDIS_URL")
    asyncio.run(run(options))


if __name__ == "__main__":
    main()
