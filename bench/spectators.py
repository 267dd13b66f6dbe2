"""Spectator sockets: how long after a move its last spectator gets the frame.

    DATABASE_URL=postgres://.../greycircle_bench REDIS_URL=redis://127.0.0.1:6392/0 \\
        .venv/bin/python -m bench.spectators --spectators 1000 [--workers 1] [--moves 40]

Starts the server (`manage.py serve --no-tasks --workers N`, production mode, bench/loadkit.py)
unless `--port`/`--server-pid` name one, sets up one Circles game between two players and
`--spectators` signed-in spectator users (only signed-in users may watch: an anonymous socket
is closed with 4401), and opens one `ws/games/{id}/` socket per spectator with its
`X-Session-Token`, `--batch` handshakes at a time. Then the two players move through HTTP
(`POST /api/v1/games/{id}/moves/`), one move every `--interval` seconds once every spectator has
the previous one. For each move it records when the frame of that version reached each socket
(wall clock), measured from the game's save (`updated_at` in the envelope, set in the move's
transaction just before its commit: the commit-to-frame time), from the move request being sent,
and from its answer (the server publishes before it answers, so frames often come first and this
is negative): the last spectator's delay (p50/p99 over the moves), and the median spectator's.
Frames still missing `--timeout` seconds after a move are counted as lost.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import time
from datetime import datetime
from typing import Any

import websockets

from bench import loadkit


class Spectator:
    def __init__(self, arrivals: dict[int, list[float]], saved: dict[int, float]) -> None:
        self.arrivals = arrivals
        self.saved = saved
        self.closed: str | None = None

    async def watch(self, websocket) -> None:
        try:
            async for frame in websocket:
                now = time.time()
                message = json.loads(frame)
                envelope = message.get("envelope") or {}
                version = envelope.get("version", message.get("version"))
                if version is not None:
                    self.arrivals[version].append(now)
                    if version not in self.saved and envelope.get("updated_at"):
                        self.saved[version] = parse_time(envelope["updated_at"])
        except websockets.ConnectionClosed:
            pass
        self.closed = loadkit.close_code(websocket)


def parse_time(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


async def connect(port: int, game: int, token: str) -> Any:
    return await loadkit.open_socket(port, f"/ws/games/{game}/", token, max_queue=None)


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    loadkit.raise_nofile()
    processes = loadkit.Processes()
    sockets: list[Any] = []
    try:
        port, server_pids = await loadkit.use_or_start_server(args, processes)
        setup = loadkit.run_setup(pairs=1, spectators=args.spectators, prefix=args.prefix)
        players = setup["players"]
        for info in players:
            info["token"] = await loadkit.api_login(port, info["user"], setup["password"])
        game = players[0]["game"]
        arrivals: dict[int, list[float]] = collections.defaultdict(list)
        saved: dict[int, float] = {}
        watchers, refused = [], collections.Counter()
        load_before = loadkit.loadavg()
        opened = time.monotonic()
        tokens = [row["token"] for row in setup["spectators"]]
        for start in range(0, len(tokens), args.batch):
            batch = tokens[start : start + args.batch]
            results = await asyncio.gather(
                *(connect(port, game, token) for token in batch), return_exceptions=True
            )
            for result in results:
                if isinstance(result, BaseException):
                    refused[f"{type(result).__name__}: {result}"[:100]] += 1
                else:
                    sockets.append(result)
                    spectator = Spectator(arrivals, saved)
                    watchers.append((spectator, asyncio.create_task(spectator.watch(result))))
        connect_seconds = time.monotonic() - opened
        connected = len(sockets)
        # Every socket's first frame (the envelope as it is) before the first move.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and sum(len(v) for v in arrivals.values()) < connected:
            await asyncio.sleep(0.05)
        hello_frames = sum(len(v) for v in arrivals.values())

        clients = [loadkit.HttpClient(port, info["token"]) for info in players]
        meter = loadkit.CpuMeter({"server": server_pids})
        meter.start()
        rng = random.Random(1)
        last, median, lost, move_latency = [], [], 0, []
        last_from_save, last_from_sent = [], []
        moves = 0
        while moves < args.moves:
            envelopes = [
                (await client.json("GET", f"/api/v1/games/{game}/"))[1] for client in clients
            ]
            if envelopes[0]["status"] != "active":
                break
            seat = next((i for i, env in enumerate(envelopes) if env["legal_moves"]), None)
            if seat is None:
                break
            envelope = envelopes[seat]
            sent = time.time()
            status, answer = await clients[seat].json(
                "POST",
                f"/api/v1/games/{game}/moves/",
                {
                    "expected_version": envelope["version"],
                    "move": rng.choice(envelope["legal_moves"]),
                },
            )
            answered = time.time()
            if status != 200:
                raise RuntimeError(f"move answered {status}: {answer}")
            move_latency.append(answered - sent)
            version = answer["version"]
            deadline = answered + args.timeout
            while len(arrivals[version]) < connected and time.time() < deadline:
                await asyncio.sleep(0.002)
            times = sorted(arrivals[version])
            lost += connected - len(times)
            if times:
                last.append(times[-1] - answered)
                median.append(times[len(times) // 2] - answered)
                last_from_sent.append(times[-1] - sent)
                if version in saved:
                    last_from_save.append(times[-1] - saved[version])
            moves += 1
            await asyncio.sleep(args.interval)
        cpu = meter.stop()
        load_after = loadkit.loadavg()
        for client in clients:
            await client.close()
        closes = collections.Counter(spectator.closed for spectator, _ in watchers)
    finally:
        for websocket in sockets:
            websocket.transport.abort()
        processes.stop()

    return {
        "spectators": args.spectators,
        "workers": args.workers,
        "connected": connected,
        "refused": dict(refused),
        "connect_seconds": round(connect_seconds, 2),
        "hello_frames": hello_frames,
        "moves": moves,
        "last_frame_from_save": loadkit.latency_summary(last_from_save),
        "last_frame_from_request": loadkit.latency_summary(last_from_sent),
        "last_frame": loadkit.latency_summary(last),
        "median_frame": loadkit.latency_summary(median),
        "move_answer": loadkit.latency_summary(move_latency),
        "frames_lost": lost,
        "closed_during_run": {k: v for k, v in closes.items() if k is not None},
        "cpu_s": {name: round(value, 2) for name, value in cpu.items()},
        "server_cpu_ms_per_move": round(1000 * cpu["server"] / max(moves, 1), 1),
        "loadavg_before": load_before,
        "loadavg_after": load_after,
        "log": processes.log.name,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", type=int, default=100)
    loadkit.add_server_arguments(parser, prefix="bench-spec")
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between moves")
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--batch", type=int, default=50, help="handshakes at once")
    args = parser.parse_args()
    result = asyncio.run(bench(args))
    print(
        f"{result['spectators']} spectators ({result['connected']} connected in "
        f"{result['connect_seconds']} s), {result['moves']} moves: last frame after the save "
        f"p50 {result['last_frame_from_save']['p50_ms']} ms, "
        f"p99 {result['last_frame_from_save']['p99_ms']} ms; after the answer "
        f"p50 {result['last_frame']['p50_ms']} ms, p99 {result['last_frame']['p99_ms']} ms; "
        f"median frame p50 {result['median_frame']['p50_ms']} ms; lost {result['frames_lost']}; "
        f"load {result['loadavg_before']} -> {result['loadavg_after']}"
    )
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
