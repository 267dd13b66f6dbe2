"""Computer turns while engine analyses are queued: how long a computer's move takes to appear,
before and after a flood of `POST /api/v1/games/{id}/analysis/`.

    DATABASE_URL=postgres://.../gc_bench_analysis REDIS_URL=redis://127.0.0.1:6393/0 \\
        .venv/bin/python -m bench.analysis_load --players 10 --level easy --analyses 36 \\
        --asker own|outsider [--task-workers 2] [--think-ms 200] --quiet 20 --duration 40

Starts the server (`manage.py serve --no-tasks --workers N`) and `--task-workers` task workers
(`manage.py games_worker`), unless `--port` names a running server. `--players` play Circles
against the computer (`--level`) through bench/computer_turns.py's `ComputerOpponent`: the game's
socket open, a move through HTTP every `--think-ms`, the delay measured from the move's answer to
the frame of the computer's move. bench/analysis_setup.py makes `--analyses` finished Circles
games of 60 moves (one per user `bench-analysis-a{i}`).

After `--warmup` seconds, `--quiet` seconds are measured with no analysis; then every game's
analysis is asked for at once — by each game's player (`--asker own`) or all by one user seated
in none of them (`--asker outsider`, as in issue 19: allowed before the fix, refused after) —
and `--duration` seconds more are measured. The report gives the computer's delay in both phases
(p50 / p95 / max), the answers to the analysis requests, and how many moves the workers analysed.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import subprocess
import sys
import time
from typing import Any

from bench import loadkit
from bench.computer_turns import ComputerOpponent
from bench.http_moves import Recorder


def analysis_setup(**options: Any) -> dict[str, Any]:
    """bench.analysis_setup's games and tokens (a subprocess: Django stays out of here)."""
    command = [sys.executable, str(loadkit.BASE_DIR / "bench" / "analysis_setup.py")]
    for name, value in options.items():
        command += [f"--{name.replace('_', '-')}", str(value)]
    done = subprocess.run(
        command, cwd=loadkit.APP_DIR, env=loadkit.server_env(), check=True, stdout=subprocess.PIPE
    )
    return json.loads(done.stdout)


async def ask(port: int, token: str, game: int) -> int:
    client = loadkit.HttpClient(port, token)
    try:
        status, _ = await client.json("POST", f"/api/v1/games/{game}/analysis/")
    finally:
        await client.close()
    return status


async def progress(port: int, token: str, game: int) -> tuple[int, str]:
    client = loadkit.HttpClient(port, token)
    try:
        _, analysis = await client.json("GET", f"/api/v1/games/{game}/analysis/")
    finally:
        await client.close()
    return analysis.get("analysed", 0), analysis.get("status", "?")


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    loadkit.raise_nofile()
    processes = loadkit.Processes()
    os.environ.setdefault("GAMES_AI_BUDGET_MS", str(args.budget_ms))
    try:
        worker_pids = []
        port, server_pids = await loadkit.use_or_start_server(args, processes)
        setup = loadkit.run_setup(
            pairs=0, computer=args.players, level=args.level, prefix=args.prefix
        )
        games = analysis_setup(analysers=args.analyses, games=1) if args.analyses else {"games": []}
        if not args.port:
            for _ in range(args.task_workers):
                command = [sys.executable, "manage.py", "games_worker", "--no-startup-delay"]
                worker_pids.append(processes.start(command).pid)
        rec = Recorder()
        opponents = [ComputerOpponent(info, port, rec, args) for info in setup["players"]]
        meter = loadkit.CpuMeter({"server": server_pids, "workers": worker_pids})
        tasks = [asyncio.create_task(opponent.run()) for opponent in opponents]
        loadavg_before = loadkit.loadavg()
        await asyncio.sleep(args.warmup)
        meter.start()
        quiet_start = time.monotonic()
        await asyncio.sleep(args.quiet)
        flood_start = time.monotonic()
        askers = [
            (game["token"] if args.asker == "own" else games["outsider"]["token"], game["id"])
            for game in games["games"]
        ]
        answers = await asyncio.gather(*(ask(port, token, game) for token, game in askers))
        asked_in = time.monotonic() - flood_start
        await asyncio.sleep(args.duration)
        end = time.monotonic()
        cpu = meter.stop()
        loadavg_after = loadkit.loadavg()
        rec.stop = True
        analysed = await asyncio.gather(
            *(progress(port, game["token"], game["id"]) for game in games["games"])
        )
        await asyncio.wait(tasks, timeout=5)
        for task in tasks:
            task.cancel()
    finally:
        processes.stop()

    def delays(start: float, stop: float) -> list[float]:
        return [d for opponent in opponents for at, d in opponent.delays if start <= at <= stop]

    return {
        "players": args.players,
        "level": args.level,
        "think_ms": args.think_ms,
        "workers": args.workers,
        "task_workers": args.task_workers,
        "analyses": args.analyses,
        "asker": args.asker,
        "quiet": loadkit.latency_summary(delays(quiet_start, flood_start)),
        "flood": loadkit.latency_summary(delays(flood_start, end)),
        "asked": dict(collections.Counter(answers)),
        "asked_in_s": round(asked_in, 2),
        "moves_analysed": sum(count for count, _ in analysed),
        "analysis_status": dict(collections.Counter(status for _, status in analysed)),
        "failures": dict(rec.failures),
        "cpu_s": {name: round(value, 2) for name, value in cpu.items()},
        "loadavg_before": loadavg_before,
        "loadavg_after": loadavg_after,
        "log": processes.log.name,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--level", default="easy", choices=["easy", "medium", "hard"])
    parser.add_argument("--budget-ms", type=int, default=1000)
    parser.add_argument("--think-ms", type=float, default=200.0, help="a human's pause per move")
    parser.add_argument("--analyses", type=int, default=36)
    parser.add_argument("--asker", choices=["own", "outsider"], default="own")
    parser.add_argument("--quiet", type=float, default=20.0, help="seconds measured before")
    loadkit.add_server_arguments(
        parser, workers=1, daphne=False, prefix="bench-analysis", duration=40.0
    )
    parser.add_argument("--task-workers", type=int, default=2)
    args = parser.parse_args()
    result = asyncio.run(bench(args))
    quiet, flood = result["quiet"], result["flood"]
    print(
        f"{result['players']} players against {args.level}, {args.task_workers} task workers: "
        f"computer delay p50/p95/max {quiet['p50_ms']}/{quiet['p95_ms']}/{quiet['max_ms']} ms "
        f"before, {flood['p50_ms']}/{flood['p95_ms']}/{flood['max_ms']} ms after "
        f"{args.analyses} analyses asked ({args.asker}: {result['asked']}); "
        f"{result['moves_analysed']} moves analysed; "
        f"load {result['loadavg_before']} -> {result['loadavg_after']}"
    )
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
