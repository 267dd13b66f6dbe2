"""Quick pairing under production's setup: from the second compatible seek to both players'
"game started" on `ws/me/` (issue 22's measure: p99 under 500 ms).

    git archive HEAD | tar -x -C /tmp/p-app        # the committed code
    DATABASE_URL=postgres://... BENCH_APP_DIR=/tmp/p-app .venv/bin/python -m bench.pairing \\
        --pairs 20 --rounds 15

Setup: PostgreSQL (`DATABASE_URL`, migrated), a redis-server of its own unless `REDIS_URL` is set,
`--servers` `manage.py serve --no-tasks` processes of one process each (as behind a load
balancer) and `--task-workers` `games_worker`s (the lobby's sweep, the clocks' loop).
`bench.load_setup` makes the players and their session tokens.

Load: `--pairs` pairs of players at once, every player with `ws/me/` open (their presence, which
keeps a live seek alive, and where `game_started` arrives). Each pair, `--rounds` times (after one
round unmeasured, which opens the connections; the task workers had `--warmup` seconds to
start): the first player seeks (`POST /api/v1/seeks/`, casual, a pool of the pair's own: Circles
at `1+0`, `2+0`, ... so that pairs never take each other's seeks), then the second seeks the same
pool on another server than the first's socket; the latency runs from just before the second
seek is sent to the later of the two players' `game_started` frames (both players' clocks are this
process's). The game is paired in the second seek's request; its frames reach the first player
through Redis from another server. The games made are live games nobody plays: their first-move
limit aborts them (the task workers' clocks' loop), which is part of the load.

Without `--rate` each pair seeks again as soon as it is paired (a closed loop: it measures the
servers' capacity, and its latency grows with `--pairs` once they are saturated); with `--rate R`
the pairs together start R pairings a second, evenly (each pair one every `pairs / R` seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from typing import Any

from bench import loadkit

FRAME_TIMEOUT = 20.0


class Player:
    def __init__(self, info: dict[str, Any], port: int) -> None:
        self.name = info["user"]
        self.token = info["token"]
        self.port = port
        self.http = loadkit.HttpClient(port, self.token)
        self.started: asyncio.Queue[tuple[float, int]] = asyncio.Queue()

    async def listen(self, ready: asyncio.Event) -> None:
        """`ws/me/`: each `game_started` frame with when it arrived."""
        async with loadkit.open_socket(self.port, "/ws/me/", self.token) as socket:
            hello = json.loads(await socket.recv())
            if hello.get("type") != "hello":
                raise RuntimeError(f"{self.name}: {hello}")
            ready.set()
            async for text in socket:
                frame = json.loads(text)
                if frame.get("type") == "game_started":
                    self.started.put_nowait((time.monotonic(), frame["game"]))

    async def seek(self, pool: dict[str, Any]) -> dict[str, Any]:
        status, answer = await self.http.json("POST", "/api/v1/seeks/", pool)
        if status != 201:
            raise RuntimeError(f"{self.name}'s seek answered {status}: {answer}")
        return answer


async def pair_rounds(
    first: Player,
    second: Player,
    minutes: int,
    rounds: int,
    out: list[dict[str, float]],
    every: float = 0.0,
) -> None:
    pool = {"kind": "circles", "time_control": {"minutes": minutes, "increment": 0},
            "rated": False}  # fmt: skip
    for round_ in range(rounds + 1):
        began = time.monotonic()
        waiting = await first.seek(pool)
        if waiting["status"] != "waiting":
            raise RuntimeError(f"the first seek was {waiting['status']}")
        sent = time.monotonic()
        matched = await second.seek(pool)
        answered = time.monotonic()
        # "waiting" when a task worker's sweep held the pool's seeks as the request came to pair
        # them (it skips them, and the sweep pairs them): the frames tell of the game either way.
        if matched["status"] not in ("matched", "waiting"):
            raise RuntimeError(f"the second seek was {matched['status']}")
        told = [
            await asyncio.wait_for(player.started.get(), FRAME_TIMEOUT)
            for player in (first, second)
        ]
        games = {game for _, game in told}
        if len(games) != 1 or matched["game"] not in (None, *games):
            raise RuntimeError(f"told of games {games}, the seek answered {matched}")
        arrivals = [at for at, _ in told]
        if round_:  # the first warms the connections up, unmeasured
            out.append({"both_started": max(arrivals) - sent, "answer": answered - sent})
        # Paced (`--rate`): the next round `every` seconds after this one began.
        await asyncio.sleep(max(0.0, began + every - time.monotonic()))


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    sys.path.insert(0, str(loadkit.BASE_DIR))
    loadkit.raise_nofile()
    os.environ.setdefault("THROTTLE_SEEK_CREATE", "1000000/min")
    processes = loadkit.Processes()
    redis = None
    if "REDIS_URL" not in os.environ:
        from tests.redis_server import RedisServer

        redis = RedisServer()
        redis.start()
        os.environ["REDIS_URL"] = redis.url
    listeners: list[asyncio.Task[None]] = []
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=loadkit.APP_DIR,
            env=loadkit.server_env(),
            check=True,
        )
        setup = loadkit.run_setup(prefix=args.prefix, spectators=2 * args.pairs)
        ports, servers = [], []
        for _ in range(args.servers):
            ports.append(loadkit.free_port())
            servers.append(processes.start(loadkit.server_command("serve", ports[-1], 1)))
        for port, server in zip(ports, servers, strict=True):
            await loadkit.wait_ready(port, server, timeout=180)
        workers = [
            processes.start([sys.executable, "manage.py", "games_worker", "--no-startup-delay"])
            for _ in range(args.task_workers)
        ]
        # The workers' start (Django's, a few CPU-seconds each) is no part of the load.
        await asyncio.sleep(args.warmup)
        # Each player's socket and requests on one server; the pair's two on different ones.
        players = [
            Player(info, ports[index % len(ports)])
            for index, info in enumerate(setup["spectators"])
        ]
        for player in players:
            ready = asyncio.Event()
            listeners.append(asyncio.create_task(player.listen(ready)))
            await asyncio.wait_for(ready.wait(), 30)
        meter = loadkit.CpuMeter(
            {"server": [s.pid for s in servers], "workers": [w.pid for w in workers]}
        )
        samples: list[dict[str, float]] = []
        loadavg_before = loadkit.loadavg()
        meter.start()
        start = time.monotonic()
        every = args.pairs / args.rate if args.rate else 0.0
        await asyncio.gather(
            *(
                pair_rounds(players[2 * p], players[2 * p + 1], 1 + p, args.rounds, samples, every)
                for p in range(args.pairs)
            )
        )
        seconds = time.monotonic() - start
        cpu = meter.stop()
        for player in players:
            await player.http.close()
        return {
            "pairs": args.pairs,
            "rate": args.rate,
            "rounds": args.rounds,
            "servers": args.servers,
            "task_workers": args.task_workers,
            "seconds": round(seconds, 1),
            "pairings_per_s": round(len(samples) / seconds, 1),
            "second_seek_to_both_started": loadkit.latency_summary(
                [s["both_started"] for s in samples]
            ),
            "second_seek_answered": loadkit.latency_summary([s["answer"] for s in samples]),
            "cpu_s": {name: round(value, 2) for name, value in cpu.items()},
            "loadavg_before": loadavg_before,
            "loadavg_after": loadkit.loadavg(),
        }
    finally:
        for task in listeners:
            task.cancel()
        processes.stop()
        if redis is not None:
            redis.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=20, help="pairs seeking at once (<= 60)")
    parser.add_argument("--rounds", type=int, default=15, help="pairings of each pair")
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="pairings a second in all, paced (0: each pair seeks again as soon as it is paired)",
    )
    parser.add_argument("--servers", type=int, default=2, help="single-process servers")
    parser.add_argument("--task-workers", type=int, default=2)
    parser.add_argument("--prefix", default="bench-pair")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds for workers to start")
    args = parser.parse_args()
    if not 1 <= args.pairs <= 60:
        parser.error("--pairs is 1 to 60 (one pool of 1 to 60 minutes each)")
    print(json.dumps(asyncio.run(bench(args)), indent=2))


if __name__ == "__main__":
    main()
