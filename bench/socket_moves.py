"""Moves over the socket, ours and boardgame.io's, side by side on PostgreSQL (+ Redis for ours).

    DATABASE_URL=postgres://greycircle:greycircle@127.0.0.1:5432/greycircle_bench_moves \\
    REDIS_URL=redis://127.0.0.1:6394/0 \\
        .venv/bin/python -m bench.socket_moves --players 10,50 --servers 1,2 [--sides peer,socket]

For each player count, in this order: the boardgame.io peer (bench/bgio_peer.py, one Node
process: boardgame.io's server is one process, its matches held by no shared layer), then ours
with each count of server processes (`manage.py serve --no-tasks --no-access-log --workers N` in
production mode, bench/loadkit.py), each started by the bench and stopped after its run. N
players play N/2 games of two at a time; each makes its move as soon as a state says it is its
turn (or, with `--think-ms T`, after thinking 0.5-1.5 T), choosing among the legal moves with
`random.Random(f"{seed}:{player}")`. Each pair's games are made before the run
(`--games-per-pair`, seats swapped from one to the next: our bench/load_setup.py `--rounds`, the
peer's Lobby API create and join), so that a finished game is followed by the next one
(`next_game`: our player opens the next game's socket, the peer's syncs the next match on its
socket) and the window holds moves only; past the last, by a rematch.

- `peer`: boardgame.io's socket.io protocol (`update` with a MAKE_MOVE action); the latency of a
  move is from sending it to the mover's own `update` with the new state.
- `socket`: ours, `{"type": "move", "id", "expected_version", "move"}` on `ws/games/{id}/`; the
  latency is from sending it to its `move_ack` (`move`) and to the `game` frame of the new
  version that follows (`move_frame`).
- `http`: ours, for comparison: `POST /api/v1/games/{id}/moves/`, the opponent's moves followed
  on the game's socket (bench/http_moves.py `--follow socket`).

After `--warmup` s, `--duration` s are measured: moves sent and answered within the window
count. CPU is utime + stime from /proc at both ends of the window: the server's process tree;
PostgreSQL: the backends of the run's own database (by their process title), plus, if one of
them exited in the window, the CPU of every backend that exited meanwhile (the postmaster's
cutime + cstime, any database's: the other databases' transactions in the window are printed, as
what may then be someone else's); Redis (ours only); the load generator; and the machine's whole
busy time, so what other processes took shows. Prints a table (a row per run as it ends), then
the JSON of every run.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import subprocess
import time
import uuid
from typing import Any
from urllib.parse import urlparse

from bench import bgio_peer, http_moves, loadkit

PEER_DATABASE = "greycircle_bench_peer"


# --- measuring -------------------------------------------------------------------------------


def database_backends(database: str) -> list[int]:
    """The PostgreSQL backends connected to `database` (title `postgres: user database ...`)."""
    found = []
    for pid, title in loadkit._command_lines():
        words = title.split("\0")[0].split()
        if words[:1] == ["postgres:"] and words[1:2] and words[1].endswith(":"):
            del words[1]  # the cluster's name (Debian's `15/main:`)
        if words[:1] == ["postgres:"] and words[2:3] == [database]:
            found.append(pid)
    return found


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine spent busy (all cores: not idle, not waiting for I/O)."""
    with open("/proc/stat") as file:
        fields = [int(value) for value in file.readline().split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / loadkit.CLOCK_TICKS


def database_stats(url: str) -> dict[str, tuple[int, int]]:
    """(transactions, sessions opened) of every database of the cluster `url` is on."""
    parts = urlparse(url)
    done = subprocess.run(
        ["psql", "-At", "-F", " ", "-h", parts.hostname or "127.0.0.1",
         "-p", str(parts.port or 5432), "-U", parts.username or "postgres", "-d", "postgres",
         "-c", "SELECT datname, xact_commit + xact_rollback, sessions FROM pg_stat_database "
               "WHERE datname IS NOT NULL"],
        env={**os.environ, "PGPASSWORD": parts.password or ""},
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    stats = {}
    for line in done.stdout.split("\n"):
        if line:
            name, xacts, sessions = line.split()
            stats[name] = (int(xacts), int(sessions))
    return stats


class RunMeter:
    """loadkit.CpuMeter's groups, with PostgreSQL narrowed to the run's database."""

    def __init__(self, server_pids: list[int], database_url: str) -> None:
        self.cpu = loadkit.CpuMeter({"server": server_pids})
        self.url = database_url
        self.database = urlparse(database_url).path.lstrip("/")

    def start(self) -> None:
        self.stats_before = database_stats(self.url)
        self.cpu.start()  # finds the postmaster
        self.backends_before = {
            pid: loadkit.cpu_seconds(pid) for pid in database_backends(self.database)
        }
        self.reaped_before = loadkit.reaped_cpu_seconds(self.cpu.postmaster)
        self.busy_before = machine_busy_seconds()

    def stop(self) -> dict[str, float]:
        busy = machine_busy_seconds() - self.busy_before
        backends = database_backends(self.database)
        live = sum(
            loadkit.cpu_seconds(pid) - self.backends_before.get(pid, 0.0) for pid in backends
        )
        reaped = loadkit.reaped_cpu_seconds(self.cpu.postmaster) - self.reaped_before
        used = self.cpu.stop()
        stats = database_stats(self.url)
        ours = self.database
        sessions = stats[ours][1] - self.stats_before.get(ours, (0, 0))[1]
        # Backends of ours that exited in the window: gone since the start, or opened and gone.
        exited = len(set(self.backends_before) - set(backends)) + max(
            0, sessions - len(set(backends) - set(self.backends_before))
        )
        used["postgres_cluster"] = used.pop("postgres")
        # The exited backends' CPU is only known for all databases together: counted when one of
        # ours is among them, else left out (it is then other people's).
        used["postgres"] = live + (reaped if exited else 0.0)
        used["postgres_exited"] = reaped
        used["db_backends_exited"] = exited
        used["machine_busy"] = busy
        used["others"] = busy - sum(
            used.get(name, 0.0) for name in ("server", "postgres_cluster", "redis", "loadgen")
        )
        used["db_transactions"] = stats[ours][0] - self.stats_before.get(ours, (0, 0))[0]
        used["db_sessions"] = sessions
        used["other_db_transactions"] = sum(
            xacts - self.stats_before.get(name, (0, 0))[0]
            for name, (xacts, _) in stats.items()
            if name not in (ours, "postgres")  # (our own psql reads its stats from `postgres`)
        )
        return used


# --- our players on the socket ---------------------------------------------------------------


class SocketPlayer(http_moves.Player):
    """http_moves' player following its game on the socket, moving over the same socket."""

    def __init__(
        self, info: dict[str, Any], port: int, rec: Any, seed: str, think: float = 0.0
    ) -> None:
        super().__init__(info, port, rec, 0.02, following=True)
        self.think = think
        self.rng = random.Random(f"{seed}:{info['user']}")
        self.answers: asyncio.Queue = asyncio.Queue()
        # The setup's next games of this pair (then rematches).
        self.upcoming = [entry["game"] for entry in info["games"][1:]]

    async def follow(self) -> None:
        self.answers = asyncio.Queue()
        await super().follow()

    async def read_frames(self, socket: Any, frames: asyncio.Queue) -> None:
        async for text in socket:
            message = json.loads(text)
            if message.get("type") == "game":
                frames.put_nowait(message["envelope"])
            elif message.get("type") in ("move_ack", "move_error"):
                self.answers.put_nowait(message)

    async def first_frame(self) -> dict[str, Any]:
        """The envelope the game's socket sends first (on connect)."""
        self.envelope = await asyncio.wait_for(self.frames.get(), bgio_peer.ANSWER_TIMEOUT)
        return self.envelope

    async def next_envelope(
        self, envelope: dict[str, Any], waited: str = "the opponent's move"
    ) -> dict[str, Any]:
        """The next version's envelope from the socket; after 5 s without it, from a GET (a
        failure, told apart by whether the game had a newer version by then: a frame missing)."""
        while True:
            try:
                newer = await asyncio.wait_for(self.frames.get(), bgio_peer.ANSWER_TIMEOUT)
            except TimeoutError:
                polled = await self.get_game()
                if self.rec.stop:  # the run is over: the opponent may have stopped first
                    return polled
                moved = "moved on" if polled["version"] > envelope["version"] else "not moved"
                print(
                    f"MISSED {time.time():.3f} game {self.game} user {self.info['user']} "
                    f"after {envelope['version']} polled {polled['version']} {polled['status']}",
                    flush=True,
                )
                self.rec.failures[
                    f"no frame of {waited} within 5 s (game {moved}): game {self.game} "
                    f"after version {envelope['version']}"
                ] += 1
                return polled
            if newer["version"] > envelope["version"]:
                self.envelope = newer
                return newer

    async def play(self) -> None:
        await self.follow()
        envelope = await self.first_frame()
        while not self.rec.stop:
            if envelope["status"] in http_moves.OVER and self.upcoming:
                started = time.monotonic()
                self.game, self.etag = self.upcoming.pop(0), None
                await self.follow()
                envelope = await self.first_frame()
                self.rec.add("next_game", started, 200)
                continue
            if envelope["status"] in http_moves.OVER:
                envelope = await self.rematch()
                await self.follow()
                continue
            if envelope["status"] != "active" or not envelope["legal_moves"]:
                envelope = await self.next_envelope(envelope)
                continue
            frame = {
                "type": "move",
                "id": uuid.uuid4().hex,
                "expected_version": envelope["version"],
                "move": self.rng.choice(envelope["legal_moves"]),
            }
            if self.think:
                await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
            started = time.monotonic()
            await self.socket.send(json.dumps(frame))
            try:
                answer = await asyncio.wait_for(self.answers.get(), bgio_peer.ANSWER_TIMEOUT)
            except TimeoutError:
                self.rec.add("move", started, 504)
                self.rec.failures["move without an answer within 5 s"] += 1
                envelope = await self.get_game()
                continue
            if answer["type"] != "move_ack" or answer["id"] != frame["id"]:
                self.rec.add("move", started, 409)
                self.rec.failures[f"{answer['type']} {answer.get('code')}"] += 1
                envelope = await self.get_game()
                continue
            self.rec.add("move", started, 200)
            envelope = await self.next_envelope(envelope, "its own move")
            self.rec.add("move_frame", started, 200)


# --- runs ------------------------------------------------------------------------------------


async def run_peer(args: argparse.Namespace, players: int) -> dict[str, Any]:
    processes = loadkit.Processes()
    try:
        port = loadkit.free_port()
        server = bgio_peer.start_server(processes, port, args.peer_database)
        await bgio_peer.wait_ready(port, server)
        rec = http_moves.Recorder()
        made = await bgio_peer.make_players(
            port, rec, players, rounds(args, players), args.seed, args.think_ms / 1000
        )
        meter = RunMeter([server.pid], args.peer_database)
        tasks = [asyncio.create_task(player.run()) for player in made]
        window = await loadkit.measure(meter, args.warmup, args.duration)
        rec.stop = True
        await asyncio.wait(tasks, timeout=10)
    finally:
        processes.stop()
    return summary("peer", 1, players, rec, window)


async def run_ours(
    args: argparse.Namespace, side: str, players: int, servers: int
) -> dict[str, Any]:
    processes = loadkit.Processes()
    try:
        port = loadkit.free_port()
        server = processes.start(loadkit.server_command("serve", port, servers))
        await loadkit.wait_ready(port, server)
        setup = loadkit.run_setup(
            pairs=players // 2,
            rounds=rounds(args, players),
            prefix=args.prefix,
            time_control=args.time_control,
        )
        rec = http_moves.Recorder()
        if side == "socket":
            think = args.think_ms / 1000
            made = [SocketPlayer(info, port, rec, args.seed, think) for info in setup["players"]]
        else:
            made = [
                http_moves.Player(info, port, rec, 0.02, following=True)
                for info in setup["players"]
            ]
        meter = RunMeter([server.pid], os.environ["DATABASE_URL"])
        tasks = [asyncio.create_task(player.run("moves")) for player in made]
        window = await loadkit.measure(meter, args.warmup, args.duration)
        rec.stop = True
        await asyncio.wait(tasks, timeout=10)
    finally:
        processes.stop()
    return summary(side, servers, players, rec, window)


def rounds(args: argparse.Namespace, players: int) -> int:
    """Games made for each pair before the run: enough that none is short of a game (a rematch
    is slower, and costs ours more requests than the peer's `playAgain`)."""
    return args.games_per_pair or max(6, 300 // players)


def summary(
    side: str, servers: int, players: int, rec: Any, window: loadkit.Window
) -> dict[str, Any]:
    events = rec.window(window.start, window.end)
    latency: dict[str, list[float]] = collections.defaultdict(list)
    statuses: collections.Counter = collections.Counter()
    for kind, began, done, status in events:
        statuses[f"{kind} {status}"] += 1
        if status == 200:
            latency[kind].append(done - began)
    moves = statuses["move 200"]
    cpu = window.cpu
    per_move = {
        name: round(1000 * cpu.get(name, 0.0) / max(moves, 1), 2)
        for name in ("server", "postgres", "redis", "loadgen")
    }
    return {
        "side": side,
        "servers": servers,
        "players": players,
        "seconds": round(window.seconds, 1),
        "moves": moves,
        "moves_per_s": round(moves / window.seconds, 1),
        "latency": {kind: loadkit.latency_summary(values) for kind, values in latency.items()},
        "statuses": dict(statuses),
        "failures": dict(rec.failures),
        "cpu_ms_per_move": per_move,
        "server_plus_db_ms_per_move": round(per_move["server"] + per_move["postgres"], 2),
        "db_transactions_per_move": round(cpu["db_transactions"] / max(moves, 1), 1),
        "cpu_s": {name: round(value, 2) for name, value in cpu.items()},
        "loadavg_before": window.loadavg_before,
        "loadavg_after": window.loadavg_after,
    }


def line(result: dict[str, Any]) -> str:
    move = result["latency"].get("move", {})
    cpu = result["cpu_ms_per_move"]
    return (
        f"| {result['players']} | {result['side']} x{result['servers']} | {result['moves_per_s']} "
        f"| {move.get('p50_ms')} / {move.get('p95_ms')} / {move.get('p99_ms')} "
        f"| {cpu['server']} | {cpu['postgres']} | **{result['server_plus_db_ms_per_move']}** "
        f"| {cpu['redis']} | {result['db_transactions_per_move']} "
        f"| {sum(result['failures'].values())} "
        f"| {result['cpu_s']['others']} s ({result['cpu_s']['other_db_transactions']}) "
        f"| {result['loadavg_before']} → {result['loadavg_after']} |"
    )


async def bench(args: argparse.Namespace) -> list[dict[str, Any]]:
    loadkit.raise_nofile()
    results = []
    for players in args.players:
        for side in args.sides:
            for servers in [1] if side == "peer" else args.servers:
                if side == "peer":
                    result = await run_peer(args, players)
                else:
                    result = await run_ours(args, side, players, servers)
                print(line(result), flush=True)
                results.append(result)
    return results


def numbers(text: str) -> list[int]:
    return [int(value) for value in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=numbers, default=[10, 50])
    parser.add_argument("--servers", type=numbers, default=[1, 2], help="our server processes")
    parser.add_argument(
        "--sides", type=lambda text: text.split(","), default=["peer", "socket"],
        help="peer, socket, http (in the order given, for each player count)",
    )  # fmt: skip
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="a player thinks 0.5-1.5 times this long before each move (socket sides; default "
        "0: as soon as it is its turn, which keeps the servers saturated)",
    )
    parser.add_argument("--seed", default="1")
    parser.add_argument(
        "--games-per-pair",
        type=int,
        default=0,
        help="made before a run (default: 300/players, at least 6)",
    )
    parser.add_argument("--prefix", default="bench-sock")
    parser.add_argument(
        "--time-control",
        default="60+60",
        help="ours: the pairs' games are live at this time control, as games played over the "
        "socket mostly are (so no 'your turn' is queued for each move); '' for correspondence",
    )
    parser.add_argument(
        "--peer-database",
        help=f"the peer's PostgreSQL database (default: {PEER_DATABASE} on DATABASE_URL's server)",
    )
    args = parser.parse_args()
    # A pair's later games wait for their turn in the run, their players' first turns with them.
    os.environ.setdefault("GAMES_CLOCK_FIRST_MOVE_SECONDS", "86400")
    loadkit.server_env()  # exits unless DATABASE_URL and REDIS_URL are set
    if not args.peer_database:
        args.peer_database = (
            urlparse(os.environ["DATABASE_URL"])._replace(path=f"/{PEER_DATABASE}").geturl()
        )
    print(
        "| players | side | moves/s | move p50 / p95 / p99 ms | server CPU ms/move "
        "| PostgreSQL ms/move | server + PostgreSQL | Redis ms/move | DB transactions/move "
        "| failures | others' CPU (other DBs' xacts) | load avg |"
    )
    print("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
    results = asyncio.run(bench(args))
    for result in results:
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
