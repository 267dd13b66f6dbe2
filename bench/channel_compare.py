"""`bench/channel_receive.py` for several layers, interleaved, with the medians.

    REDIS_URL=redis://127.0.0.1:6390/5 .venv/bin/python -m bench.channel_compare \\
        [--rounds 5] [--messages 3000] [--rate 500] \\
        [--config batched:100 --config channels_redis:1000 --config pubsub ...]

Each `--config` is `LAYER:CAPACITY` (`--layer` and `--capacity` of `bench.channel_receive`).
Each round runs every configuration once, in the order given (A B C, A B C, ...), each in a
process of its own with its sender in another, so a machine that other work slows down slows
every configuration alike. Printed: each run as it ends, then per configuration the median CPU
per message, the runs' range, messages lost in each run, and the load average over all runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from bench import loadkit
from bench.loadkit import BASE_DIR

DEFAULT_CONFIGS = ["batched:100", "channels_redis:100", "channels_redis:1000", "pubsub:0"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--channels", type=int, default=50)
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--rate", type=float, default=500)
    parser.add_argument("--config", action="append", help="LAYER:CAPACITY (repeat)")
    options = parser.parse_args()
    if not options.redis_url:
        parser.error("give --redis-url or set REDIS_URL")
    configs = options.config or DEFAULT_CONFIGS
    results: dict[str, list[dict]] = {config: [] for config in configs}
    loads = [loadkit.loadavg()]
    for round_number in range(options.rounds):
        for config in configs:
            layer, capacity = config.split(":")
            command = [
                sys.executable,
                "-m",
                "bench.channel_receive",
                "--json",
                "--redis-url",
                options.redis_url,
                "--layer",
                layer,
                "--capacity",
                capacity,
                "--channels",
                str(options.channels),
                "--messages",
                str(options.messages),
                "--rate",
                str(options.rate),
            ]
            output = subprocess.run(
                command, cwd=BASE_DIR, check=True, capture_output=True, text=True
            ).stdout
            result = json.loads(output.strip().splitlines()[-1])
            results[config].append(result)
            loads.append(result["load"])
            print(round_number + 1, config, json.dumps(result), flush=True)
    print(
        f"{options.messages} messages to {options.channels} channels at {options.rate:g}/s, "
        f"{options.rounds} rounds; load average (1 min) over the runs: "
        f"{min(float(load.split()[0]) for load in loads):.2f}-"
        f"{max(float(load.split()[0]) for load in loads):.2f}"
    )
    batched = None
    for config, runs in results.items():
        costs = [run["us_per_message"] for run in runs]
        stuck = sum(bool(run["reads_left_running"]) for run in runs)
        median = statistics.median(costs)
        batched = batched or median
        print(
            f"{config:22} median {median:6.0f} us a message ({median / batched:.2f}x the first), "
            f"runs {min(costs)}-{max(costs)}; lost {[run['lost'] for run in runs]}; "
            f"reads outlived their cancel in {stuck}"
            " runs; "
            f"sent at {statistics.median(run['sent_per_s'] for run in runs):.0f}/s"
        )


if __name__ == "__main__":
    main()
