"""Computer turns under load: when the computer's move appears, against its thinking budget.

    DATABASE_URL=postgres://.../greycircle_bench REDIS_URL=redis://127.0.0.1:6392/0 \\
        .venv/bin/python -m bench.computer_turns --players 50 --level hard --budget-ms 1000 \\
        [--workers 2] [--task-workers 2] [--think-ms 0]

Starts the server (`manage.py serve --no-tasks --workers N`) and `--task-workers` task workers
(`manage.py games_worker`), both with `GAMES_AI_BUDGET_MS=--budget-ms`, unless `--port` names a
running server (then start the workers yourself). Half of `--players` play Circles against the
computer (`--level`), the other half play each other as in bench/http_moves.py (polling).

A player against the computer keeps its game's socket open (`ws/games/{id}/`, its seat's view),
waits `--think-ms`, moves through HTTP and, when the answer says the computer is to move, waits
for the frame of the computer's move. The delay is from the move's answer to that frame; the
report gives its percentiles and those of delay - budget (the issue's target: p95 of
delay - budget ≤ 300 ms). Only `hard` thinks for the budget; `easy` and `medium` answer in
milliseconds, so with them the delay is the queue's own latency.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import random
import time
from typing import Any

from bench import loadkit
from bench.http_moves import OVER, Player, Recorder


class ComputerOpponent:
    """A player against the computer, following its game on the socket."""

    def __init__(self, info, port: int, rec: Recorder, args: argparse.Namespace) -> None:
        self.info = info
        self.port = port
        self.game = info["game"]
        self.client = loadkit.HttpClient(port, info["token"])
        self.rec = rec
        self.args = args
        self.rng = random.Random(info["user"])
        self.delays: list[tuple[float, float]] = []  # (when answered, delay)
        self.frames: asyncio.Queue = asyncio.Queue()

    async def socket_reader(self, websocket) -> None:
        async for frame in websocket:
            message = json.loads(frame)
            if message.get("envelope"):
                self.frames.put_nowait((time.monotonic(), message["envelope"]))

    async def run(self) -> None:
        try:
            while not self.rec.stop:
                await self.one_game()
        except Exception as error:
            self.rec.failures[
                f"computer player stopped: {type(error).__name__}: {error}"[:160]
            ] += 1
        finally:
            await self.client.close()

    async def one_game(self) -> None:
        async with loadkit.open_socket(
            self.port, f"/ws/games/{self.game}/", self.info["token"]
        ) as websocket:
            reader = asyncio.create_task(self.socket_reader(websocket))
            try:
                await self.play(websocket)
            finally:
                reader.cancel()

    async def play(self, websocket) -> None:
        status, envelope = await self.client.json("GET", f"/api/v1/games/{self.game}/")
        while not self.rec.stop:
            if envelope["status"] != "active":
                if envelope["status"] not in OVER:
                    self.rec.failures[f"unexpected status {envelope['status']}"] += 1
                    await asyncio.sleep(0.1)
                    envelope = (await self.client.json("GET", f"/api/v1/games/{self.game}/"))[1]
                    continue
                status, envelope = await self.client.json(
                    "POST", f"/api/v1/games/{self.game}/rematch/"
                )
                if status not in (200, 201):
                    raise RuntimeError(f"rematch: {status} {envelope}")
                self.game = envelope["id"]
                return  # a new socket for the new game
            if not envelope["legal_moves"]:
                # The computer's turn already (a frame will come), or a frame we missed.
                envelope = await self.next_envelope(envelope["version"] + 1, timeout=30)
                continue
            if self.args.think_ms:
                await asyncio.sleep(self.args.think_ms / 1000)
            started = time.monotonic()
            status, answer = await self.client.json(
                "POST",
                f"/api/v1/games/{self.game}/moves/",
                {
                    "expected_version": envelope["version"],
                    "move": self.rng.choice(envelope["legal_moves"]),
                },
            )
            answered = time.monotonic()
            self.rec.events.append(("move", started, answered, status))
            if status != 200:
                self.rec.failures[f"move {status}"] += 1
                status, envelope = await self.client.json("GET", f"/api/v1/games/{self.game}/")
                continue
            envelope = answer
            if envelope["status"] != "active" or envelope["legal_moves"]:
                continue  # over, or the computer passed: our turn again
            computer_version = envelope["version"] + 1
            frame_at, frame = await self.frame_of(computer_version, timeout=60)
            if frame is None:
                self.rec.failures["no computer frame within 60 s"] += 1
                status, envelope = await self.client.json("GET", f"/api/v1/games/{self.game}/")
                continue
            self.delays.append((answered, frame_at - answered))
            envelope = frame

    async def frame_of(self, version: int, timeout: float) -> tuple[float, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return 0.0, None
            try:
                at, envelope = await asyncio.wait_for(self.frames.get(), left)
            except TimeoutError:
                return 0.0, None
            # Frames of the game before a rematch may still be queued: only this game's count.
            if envelope["id"] == self.game and envelope["version"] >= version:
                return at, envelope

    async def next_envelope(self, version: int, timeout: float) -> dict[str, Any]:
        _, frame = await self.frame_of(version, timeout)
        if frame is not None:
            return frame
        return (await self.client.json("GET", f"/api/v1/games/{self.game}/"))[1]


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    loadkit.raise_nofile()
    processes = loadkit.Processes()
    import os

    os.environ["GAMES_AI_BUDGET_MS"] = str(args.budget_ms)
    try:
        worker_pids = []
        port, server_pids = await loadkit.use_or_start_server(args, processes)
        humans = args.players // 2
        computers = args.players - humans
        setup = loadkit.run_setup(
            pairs=humans // 2, computer=computers, level=args.level, prefix=args.prefix
        )
        if not args.port:
            for _ in range(args.task_workers):
                worker = processes.start(
                    [
                        loadkit.sys.executable,
                        "manage.py",
                        "games_worker",
                        "--no-startup-delay",
                        *args.worker_arg,
                    ]
                )
                worker_pids.append(worker.pid)
        rec = Recorder()
        people = [Player(info, port, rec, args.poll_ms / 1000) for info in setup["players"]
                  if "computer" not in info]  # fmt: skip
        opponents = [ComputerOpponent(info, port, rec, args) for info in setup["players"]
                     if "computer" in info]  # fmt: skip
        meter = loadkit.CpuMeter({"server": server_pids, "workers": worker_pids})
        tasks = [asyncio.create_task(player.run("moves")) for player in people]
        tasks += [asyncio.create_task(opponent.run()) for opponent in opponents]
        window = await loadkit.measure(meter, args.warmup, args.duration)
        rec.stop = True
        await asyncio.wait(tasks, timeout=5)
        for task in tasks:
            task.cancel()
    finally:
        processes.stop()

    budget = args.budget_ms / 1000
    start, end = window.start, window.end
    delays = [
        delay for opponent in opponents for at, delay in opponent.delays if start <= at <= end
    ]
    events = rec.window(start, end)
    human_moves = [done - began for kind, began, done, status in events if kind == "move"]
    statuses = collections.Counter(f"{kind} {status}" for kind, _, _, status in events)
    return {
        "players": args.players,
        "against_computer": len(opponents),
        "level": args.level,
        "budget_ms": args.budget_ms,
        "think_ms": args.think_ms,
        "workers": args.workers,
        "task_workers": args.task_workers,
        "seconds": round(window.seconds, 1),
        "computer_moves": len(delays),
        "delay": loadkit.latency_summary(delays),
        "delay_minus_budget": loadkit.latency_summary([delay - budget for delay in delays]),
        "human_move_answer": loadkit.latency_summary(human_moves),
        "statuses": dict(statuses),
        "failures": dict(rec.failures),
        "cpu_s": {name: round(value, 2) for name, value in window.cpu.items()},
        "loadavg_before": window.loadavg_before,
        "loadavg_after": window.loadavg_after,
        "log": processes.log.name,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--level", default="hard", choices=["easy", "medium", "hard"])
    parser.add_argument("--budget-ms", type=int, default=1000)
    parser.add_argument("--think-ms", type=float, default=0.0, help="a human's pause per move")
    loadkit.add_server_arguments(parser, workers=2, daphne=False, prefix="bench-ai", duration=30.0)
    parser.add_argument("--task-workers", type=int, default=2)
    parser.add_argument(
        "--worker-arg", action="append", default=[], help="extra games_worker argument"
    )
    parser.add_argument("--poll-ms", type=float, default=20.0)
    args = parser.parse_args()
    result = asyncio.run(bench(args))
    print(
        f"{result['players']} players, {result['against_computer']} against {args.level} "
        f"(budget {args.budget_ms} ms): {result['computer_moves']} computer moves, delay "
        f"p50 {result['delay']['p50_ms']} / p95 {result['delay']['p95_ms']} ms, delay - budget "
        f"p95 {result['delay_minus_budget']['p95_ms']} ms; "
        f"load {result['loadavg_before']} -> {result['loadavg_after']}"
    )
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
