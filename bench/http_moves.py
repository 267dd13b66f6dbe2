"""HTTP load: players polling their Circles games and moving, as apps do, against real servers.

    DATABASE_URL=postgres://.../greycircle_bench REDIS_URL=redis://127.0.0.1:6392/0 \\
        .venv/bin/python -m bench.http_moves --players 50 --workers 2 [--mode moves|me|game]

It starts the server itself (`manage.py serve --no-tasks --no-access-log --workers N`, or Daphne
with `--server daphne`) in production mode (DEBUG off, see bench/loadkit.py; throttles set far
above the load), unless `--port P --server-pid PID` name a server already running. The users and
games come from bench/load_setup.py (run as a subprocess); `--api-logins K` players sign in
through `POST /_allauth/app/v1/auth/login` as apps do, the others get the same kind of session
written by the setup. Every player has its own keep-alive connection and sends `X-Session-Token`.

`--mode moves` (default): `--players` players in players/2 games between people. Each player
GETs its game (with If-None-Match once the server sends an ETag), and when `legal_moves` is
not empty POSTs one of them at random with `expected_version`, taking the answer (and its ETag)
as its new envelope; otherwise it waits `--poll-ms` and GETs again, or, with `--follow socket`,
waits for the frame of the opponent's move on the game's socket (`ws/games/{id}/`), as the page
does: then a move costs the server one request and its frames. A finished game is followed by a
rematch (`POST /games/{id}/rematch/`, the invited player accepts through `/invitations/`), not
counted.
`--mode me` / `--mode game`: every player GETs `/api/v1/me/` / its game in a closed loop, the
baseline costs of a request.

After `--warmup` seconds it measures `--duration` seconds: requests begun and answered within
that window count. CPU seconds (utime + stime from /proc) of the server's process tree, the
PostgreSQL backends of the bench database, Redis and the load generator itself are read at both
ends of the window. Prints a summary and one JSON line.
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

OVER = ("finished", "aborted", "cancelled")


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, float, float, int]] = []
        self.failures: collections.Counter = collections.Counter()
        self.stop = False

    def add(self, kind: str, start: float, status: int) -> None:
        self.events.append((kind, start, time.monotonic(), status))

    def window(self, start: float, end: float) -> list[tuple[str, float, float, int]]:
        return [event for event in self.events if event[1] >= start and event[2] <= end]


class Player:
    def __init__(
        self,
        info: dict[str, Any],
        port: int,
        rec: Recorder,
        poll: float,
        *,
        following: bool = False,
    ) -> None:
        self.info = info
        self.port = port
        self.game = info["game"]
        self.client = loadkit.HttpClient(port, info["token"])
        self.rec = rec
        self.poll = poll
        self.etag: str | None = None
        self.envelope: dict[str, Any] | None = None
        self.rng = random.Random(info["user"])
        # With `following`, the game's socket brings the opponent's moves instead of polls.
        self.following = following
        self.socket: Any = None
        self.reader: asyncio.Task | None = None
        self.frames: asyncio.Queue = asyncio.Queue()

    async def get_game(self, kind: str = "get") -> dict[str, Any]:
        headers = {"If-None-Match": self.etag} if self.etag and self.envelope else {}
        started = time.monotonic()
        status, answer_headers, content = await self.client.request(
            "GET", f"/api/v1/games/{self.game}/", headers=headers
        )
        self.rec.add(kind if status != 304 else kind + "_304", started, status)
        if status == 304:
            return self.envelope
        if status != 200:
            raise RuntimeError(f"GET game {self.game}: {status} {content[:200]!r}")
        self.etag = answer_headers.get("etag")
        self.envelope = json.loads(content)
        return self.envelope

    async def follow(self) -> None:
        """Follow the current game on its socket (closing the last one's), when `following`."""
        if not self.following:
            return
        await self.unfollow()
        self.frames = asyncio.Queue()
        self.socket = await loadkit.open_socket(
            self.port, f"/ws/games/{self.game}/", self.info["token"]
        )
        self.reader = asyncio.create_task(self.read_frames(self.socket, self.frames))

    async def unfollow(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            await self.socket.close()
            self.reader = self.socket = None

    @staticmethod
    async def read_frames(socket: Any, frames: asyncio.Queue) -> None:
        async for frame in socket:
            message = json.loads(frame)
            if message.get("type") == "game":
                frames.put_nowait(message["envelope"])

    async def next_envelope(self, envelope: dict[str, Any]) -> dict[str, Any]:
        """The game after it changes: from a socket frame when following it, else by polling
        (`--poll-ms` apart; 304s while it has not changed)."""
        if not self.following:
            await asyncio.sleep(self.poll)
            return await self.get_game()
        while True:
            try:
                newer = await asyncio.wait_for(self.frames.get(), timeout=5)
            except TimeoutError:
                self.rec.failures["no frame within 5 s: polled"] += 1
                return await self.get_game()
            if newer["version"] > envelope["version"]:
                self.envelope = newer
                return newer

    async def play(self) -> None:
        await self.follow()
        envelope = await self.get_game()
        while not self.rec.stop:
            if envelope["status"] in OVER:
                envelope = await self.rematch()
                await self.follow()
                continue
            if envelope["status"] != "active" or not envelope["legal_moves"]:
                envelope = await self.next_envelope(envelope)
                continue
            move = self.rng.choice(envelope["legal_moves"])
            started = time.monotonic()
            status, answer_headers, content = await self.client.request(
                "POST",
                f"/api/v1/games/{self.game}/moves/",
                {"expected_version": envelope["version"], "move": move},
            )
            self.rec.add("move", started, status)
            if status == 200:
                envelope = self.envelope = json.loads(content)
                # The answer's ETag: polls until the opponent moves are 304s.
                self.etag = answer_headers.get("etag")
            else:
                self.rec.failures[f"move {status} {content[:80]!r}"] += 1
                envelope = await self.get_game()

    async def rematch(self) -> dict[str, Any]:
        started = time.monotonic()
        status, answer = await self.client.json("POST", f"/api/v1/games/{self.game}/rematch/")
        if status not in (200, 201):
            raise RuntimeError(f"rematch of {self.game}: {status} {answer}")
        self.game, self.etag, self.envelope = answer["id"], None, None
        while True:
            status, listed = await self.client.json(
                "GET", "/api/v1/invitations/?direction=incoming"
            )
            rows = listed["results"] if isinstance(listed, dict) else listed
            for row in rows:
                if row["game"] == self.game:
                    await self.client.json("POST", f"/api/v1/invitations/{row['id']}/accept/")
            envelope = await self.get_game("rematch_get")
            if envelope["status"] == "active":
                self.rec.add("rematch", started, 200)
                return envelope
            await asyncio.sleep(self.poll)

    async def loop_get(self, path: str, kind: str) -> None:
        while not self.rec.stop:
            started = time.monotonic()
            status, _, content = await self.client.request("GET", path)
            self.rec.add(kind, started, status)
            if status != 200:
                self.rec.failures[f"{kind} {status} {content[:80]!r}"] += 1

    async def run(self, mode: str) -> None:
        try:
            if mode == "moves":
                await self.play()
            elif mode == "me":
                await self.loop_get("/api/v1/me/", "me")
            else:
                await self.loop_get(f"/api/v1/games/{self.game}/", "get")
        except Exception as error:
            self.rec.failures[f"player stopped: {type(error).__name__}: {error}"[:160]] += 1
        finally:
            await self.unfollow()
            await self.client.close()


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    loadkit.raise_nofile()
    processes = loadkit.Processes()
    try:
        port, server_pids = await loadkit.use_or_start_server(args, processes)
        setup = loadkit.run_setup(pairs=args.players // 2, prefix=args.prefix)
        players_info = setup["players"]
        for info in players_info[: args.api_logins]:
            info["token"] = await loadkit.api_login(port, info["user"], setup["password"])
        rec = Recorder()
        players = [
            Player(info, port, rec, args.poll_ms / 1000, following=args.follow == "socket")
            for info in players_info
        ]
        meter = loadkit.CpuMeter({"server": server_pids})
        tasks = [asyncio.create_task(player.run(args.mode)) for player in players]
        window = await loadkit.measure(meter, args.warmup, args.duration)
        rec.stop = True
        await asyncio.wait(tasks, timeout=10)
    finally:
        processes.stop()

    events = rec.window(window.start, window.end)
    seconds, cpu = window.seconds, window.cpu
    by_kind: dict[str, list[float]] = collections.defaultdict(list)
    statuses: collections.Counter = collections.Counter()
    for kind, began, done, status in events:
        by_kind[kind].append(done - began)
        statuses[f"{kind} {status}"] += 1
    counted = {"moves": "move", "me": "me", "game": "get"}[args.mode]
    done_ok = sum(1 for kind, _, _, status in events if kind == counted and status == 200)
    requests = len(events)
    errors = sum(1 for _, _, _, status in events if status >= 400)
    result = {
        "mode": args.mode,
        "server": args.server if not args.port else "external",
        "workers": args.workers,
        "players": len(players),
        "poll_ms": args.poll_ms,
        "follow": args.follow,
        "seconds": round(seconds, 1),
        f"{counted}_per_s": round(done_ok / seconds, 1),
        "requests_per_s": round(requests / seconds, 1),
        "errors": errors,
        "failures": dict(rec.failures),
        "statuses": dict(statuses),
        "latency": {kind: loadkit.latency_summary(values) for kind, values in by_kind.items()},
        "cpu_s": {name: round(value, 2) for name, value in cpu.items()},
        f"server_cpu_ms_per_{counted}": round(1000 * cpu["server"] / max(done_ok, 1), 2),
        "server_cpu_ms_per_request": round(1000 * cpu["server"] / max(requests, 1), 2),
        "postgres_cpu_ms_per_request": round(1000 * cpu.get("postgres", 0) / max(requests, 1), 2),
        "redis_cpu_ms_per_request": round(1000 * cpu.get("redis", 0) / max(requests, 1), 2),
        "loadavg_before": window.loadavg_before,
        "loadavg_after": window.loadavg_after,
        "log": processes.log.name,
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--mode", choices=["moves", "me", "game"], default="moves")
    loadkit.add_server_arguments(parser, prefix="bench-http", duration=20.0)
    parser.add_argument("--poll-ms", type=float, default=20.0)
    parser.add_argument(
        "--follow",
        choices=["poll", "socket"],
        default="poll",
        help="how a player learns of its opponent's move (moves mode)",
    )
    parser.add_argument("--api-logins", type=int, default=2)
    args = parser.parse_args()
    result = asyncio.run(bench(args))
    counted = {"moves": "move", "me": "me", "game": "get"}[args.mode]
    print(
        f"{args.mode}: {result['players']} players ({args.follow}), "
        f"{result['server']} x{result['workers']}: "
        f"{result[f'{counted}_per_s']} {counted}/s, {result['requests_per_s']} req/s, "
        f"errors {result['errors']}, server CPU {result[f'server_cpu_ms_per_{counted}']} ms per "
        f"{counted} ({result['server_cpu_ms_per_request']} ms per request), "
        f"load {result['loadavg_before']} -> {result['loadavg_after']}"
    )
    for kind, summary in result["latency"].items():
        print(f"  {kind}: {summary}")
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
