"""What the load benchmarks share: their server options, the server's environment, starting
servers and workers (or using a running server), the measured window, a small keep-alive HTTP/1.1
client, WebSockets opened as apps do, CPU time of process trees, percentiles.

The load generators import only the standard library and `websockets` (never Django), so that
they stay cheap next to the servers they load on the same cores. A minimal client rather than
httpx: at 200 players httpx's own CPU per request would take a visible share of the two cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parents[1]
# The application the servers run: this checkout, or another tree of the same project (e.g. a
# `git archive` of an earlier commit, to measure a baseline while the checkout is being changed).
APP_DIR = Path(os.environ.get("BENCH_APP_DIR", BASE_DIR)).resolve()
HOST = "127.0.0.1"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# Production mode (DEBUG off), reachable over plain HTTP on loopback, throttles far above the load
# (they are still checked, so their cache round trips are measured).
SERVER_ENV_DEFAULTS = {
    "DJANGO_SETTINGS_MODULE": "greycircle.settings",
    "SECRET_KEY": "bench-load-secret-key-not-for-production-0123456789",
    "DEBUG": "0",
    "SECURE_SSL_REDIRECT": "0",
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
    "THROTTLE_USER": "1000000/min",
    "THROTTLE_MOVES": "1000000/min",
    "THROTTLE_GAME_CREATE": "1000000/min",
    "THROTTLE_ANON": "1000000/min",
    "LOG_LEVEL": "WARNING",
    "PYTHONUNBUFFERED": "1",
}


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    for name, value in SERVER_ENV_DEFAULTS.items():
        env.setdefault(name, value)
    # The app's packages first (not this checkout's, which the editable install points at).
    env["PYTHONPATH"] = os.pathsep.join(
        [str(APP_DIR), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    if "DATABASE_URL" not in env or "REDIS_URL" not in env:
        sys.exit("Set DATABASE_URL (PostgreSQL) and REDIS_URL: the benchmark is of production.")
    return env


def raise_nofile(wanted: int | None = None) -> None:
    """Raise the soft limit of open files to `wanted` (at most the hard limit), or to the hard
    limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if wanted is None else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def run_setup(**options: Any) -> dict[str, Any]:
    """bench.load_setup's users, tokens and games (a subprocess: Django stays out of here)."""
    command = [sys.executable, str(BASE_DIR / "bench" / "load_setup.py")]
    for name, value in options.items():
        command += [f"--{name.replace('_', '-')}", str(value)]
    done = subprocess.run(
        command, cwd=APP_DIR, env=server_env(), check=True, stdout=subprocess.PIPE
    )
    return json.loads(done.stdout)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def server_command(server: str, port: int, workers: int) -> list[str]:
    if server == "daphne":
        return [sys.executable, "-m", "daphne", "-b", HOST, "-p", str(port),
                "greycircle.asgi:application"]  # fmt: skip
    return [sys.executable, "manage.py", "serve", "--host", HOST, "--port", str(port),
            "--no-tasks", "--no-access-log", "--workers", str(workers)]  # fmt: skip


class Processes:
    """Processes this benchmark started (servers, task workers), stopped on exit."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen] = []
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - open while the processes run
            prefix="bench-load-", suffix=".log", delete=False
        )

    def start(self, command: list[str]) -> subprocess.Popen:
        shown = command[1:] if command[0] == sys.executable else command
        print(f"$ (in {APP_DIR})", " ".join(shown), flush=True)
        process = subprocess.Popen(
            command, cwd=APP_DIR, env=server_env(), stdout=self.log, stderr=subprocess.STDOUT
        )
        self.started.append(process)
        return process

    def stop(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 15
        for process in self.started:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def wait_ready(
    port: int,
    process: subprocess.Popen | None,
    timeout: float = 60,
    path: str = "/api/v1/me/",
    ready: Iterable[int] = (401, 403),
) -> None:
    """Until the server answers an anonymous GET of `path` with a `ready` status (by default the
    API's 401 to GET /api/v1/me/)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError("the server exited at startup; see the log")
        try:
            client = HttpClient(port)
            status, _, _ = await client.request("GET", path)
            await client.close()
            if status in ready:
                return
        except OSError:
            pass
        await asyncio.sleep(0.2)
    raise RuntimeError("the server did not start")


async def use_or_start_server(
    args: argparse.Namespace, processes: Processes
) -> tuple[int, list[int]]:
    """(port, server pids): the server named by `--port`/`--server-pid`, or one started on a free
    port (`--server`, `--workers`) once it answers. The options of `add_server_arguments`."""
    if args.port:
        return args.port, args.server_pid
    port = free_port()
    server = processes.start(server_command(args.server, port, args.workers))
    await wait_ready(port, server)
    return port, [server.pid]


def add_server_arguments(
    parser: argparse.ArgumentParser,
    *,
    workers: int = 1,
    daphne: bool = True,
    running: bool = True,
    prefix: str | None = None,
    duration: float | None = None,
    warmup: float = 3.0,
) -> None:
    """The options of a benchmark that starts its server: `--server` (serve or daphne; without
    `daphne` there is no such option and it is always serve), `--workers`; with `running`,
    `--port`/`--server-pid` of a server already running instead; `--prefix` of the setup's users
    when given; `--duration`/`--warmup` of the measured window when a duration is given."""
    if daphne:
        parser.add_argument("--server", choices=["serve", "daphne"], default="serve")
    else:
        parser.set_defaults(server="serve")
    workers_help = "server processes (serve only)" if daphne else "server processes"
    parser.add_argument("--workers", type=int, default=workers, help=workers_help)
    if running:
        parser.add_argument("--port", type=int, help="use the server already on this port")
        parser.add_argument(
            "--server-pid",
            type=int,
            action="append",
            default=[],
            help="that server's process, for its CPU time (repeatable)",
        )
    if duration is not None:
        parser.add_argument("--duration", type=float, default=duration)
        parser.add_argument("--warmup", type=float, default=warmup)
    if prefix is not None:
        parser.add_argument("--prefix", default=prefix)


# --- CPU -------------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as file:
                found += [int(child) for child in file.read().split()]
    except OSError:
        pass
    return found


def process_tree(pids: Iterable[int]) -> list[int]:
    tree, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += _children(pid)
    return tree


def _stat_ticks(pid: int, field: int) -> int:
    """Two clock-tick counters of /proc/<pid>/stat summed: `field` and the next one, counted
    after the command's ")" (11: utime + stime, 13: cutime + cstime); 0 if the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            fields = file.read().rpartition(")")[2].split()
    except OSError:
        return 0
    return int(fields[field]) + int(fields[field + 1])


def cpu_seconds(pid: int) -> float:
    """utime + stime of one process (0 if it is gone)."""
    return _stat_ticks(pid, 11) / CLOCK_TICKS


def tree_cpu_seconds(pid: int) -> float:
    """utime + stime of `pid` and all its descendants so far."""
    return sum(_stat_ticks(current, 11) for current in process_tree([pid])) / CLOCK_TICKS


def _command_lines() -> Iterable[tuple[int, str]]:
    """(pid, command line with NUL-separated arguments) of every running process."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                yield int(entry), file.read().decode(errors="replace")
        except OSError:
            continue


def postgres_processes() -> tuple[int | None, list[int]]:
    """The postmaster and its live children (every database's backends)."""
    postmaster, children = None, []
    for pid, title in _command_lines():
        if title.startswith("postgres: "):
            children.append(pid)
        elif "postgres" in title.split("\0")[0] and "-D" in title.split("\0"):
            postmaster = pid
    return postmaster, children


def reaped_cpu_seconds(pid: int) -> float:
    """cutime + cstime: CPU of the children `pid` has waited for (exited backends)."""
    return _stat_ticks(pid, 13) / CLOCK_TICKS


def redis_pid(port: int) -> int | None:
    for pid, title in _command_lines():
        if title.startswith("redis-server") and f":{port}" in title:
            return pid
    return None


class CpuMeter:
    """CPU seconds used between `start()` and `stop()` by named groups of processes.

    `server` (and `workers`) are process trees; `postgres` the whole PostgreSQL cluster (live
    processes, and the backends that exited meanwhile through the postmaster's cutime/cstime):
    it includes whatever else uses that cluster at the time (other people's test runs);
    `redis` the Redis of REDIS_URL; `loadgen` this process.
    """

    def __init__(self, groups: dict[str, list[int]]) -> None:
        self.groups = groups
        port = redis_port()
        self.redis = redis_pid(port) if port else None

    def _pids(self) -> dict[str, list[int]]:
        pids = {name: process_tree(roots) for name, roots in self.groups.items()}
        postmaster, pids["postgres"] = postgres_processes()
        # The postmaster found first (another cluster may be started meanwhile).
        self.postmaster = getattr(self, "postmaster", None) or postmaster
        if self.redis:
            pids["redis"] = [self.redis]
        return pids

    def start(self) -> None:
        self.before = {pid: cpu_seconds(pid) for group in self._pids().values() for pid in group}
        self.reaped_before = reaped_cpu_seconds(self.postmaster) if self.postmaster else 0.0
        self.loadgen_before = sum(os.times()[:2])
        self.wall = time.monotonic()

    def stop(self) -> dict[str, float]:
        used: dict[str, float] = {}
        for name, pids in self._pids().items():
            used[name] = sum(cpu_seconds(pid) - self.before.get(pid, 0.0) for pid in pids)
        if self.postmaster:
            used["postgres"] += reaped_cpu_seconds(self.postmaster) - self.reaped_before
        used["loadgen"] = sum(os.times()[:2]) - self.loadgen_before
        used["wall"] = time.monotonic() - self.wall
        return used


def loadavg() -> str:
    with open("/proc/loadavg") as file:
        return " ".join(file.read().split()[:3])


@dataclass
class Window:
    """A measured window: its monotonic bounds, the meter's CPU seconds, the load averages."""

    start: float
    end: float
    cpu: dict[str, float]
    loadavg_before: str
    loadavg_after: str

    @property
    def seconds(self) -> float:
        return self.end - self.start


async def measure(meter: CpuMeter, warmup: float, duration: float) -> Window:
    """Let the load (already started as tasks) run `warmup` seconds, then measure `duration`."""
    loadavg_before = loadavg()
    await asyncio.sleep(warmup)
    meter.start()
    start = time.monotonic()
    await asyncio.sleep(duration)
    end = time.monotonic()
    cpu = meter.stop()
    return Window(start, end, cpu, loadavg_before, loadavg())


# --- HTTP, WebSockets ------------------------------------------------------------------------


class HttpClient:
    """One keep-alive HTTP/1.1 connection, one request at a time (as one app would)."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        self.token = token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None

    async def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        for attempt in (0, 1):
            fresh = self.writer is None
            if fresh:
                self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
            try:
                return await self._exchange(method, path, body, headers or {})
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if fresh or attempt:
                    raise
        raise AssertionError("unreachable")

    async def _exchange(self, method, path, body, headers) -> tuple[int, dict[str, str], bytes]:
        payload = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
        if self.token:
            head += f"X-Session-Token: {self.token}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        head += f"Content-Length: {len(payload)}\r\n\r\n"
        self.writer.write(head.encode() + payload)
        status_line = await self.reader.readuntil(b"\r\n")
        status = int(status_line.split()[1])
        answer_headers: dict[str, str] = {}
        while True:
            line = await self.reader.readuntil(b"\r\n")
            if line == b"\r\n":
                break
            name, _, value = line.decode("latin1").partition(":")
            answer_headers[name.strip().lower()] = value.strip()
        if answer_headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                chunks.append(chunk[:-2])
            content = b"".join(chunks)
        elif status in (204, 304) or method == "HEAD":
            content = b""
        else:
            content = await self.reader.readexactly(int(answer_headers.get("content-length", 0)))
        if answer_headers.get("connection", "").lower() == "close":
            await self.close()
        return status, answer_headers, content

    async def json(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        status, _, content = await self.request(method, path, body)
        return status, json.loads(content) if content else None


async def api_login(port: int, username: str, password: str) -> str:
    """Sign in as an app does (allauth headless); the session token."""
    client = HttpClient(port)
    status, answer = await client.json(
        "POST", "/_allauth/app/v1/auth/login", {"username": username, "password": password}
    )
    await client.close()
    if status != 200:
        raise RuntimeError(f"log-in of {username} answered {status}: {answer}")
    return answer["meta"]["session_token"]


def open_socket(port: int, path: str, token: str, **options: Any) -> Any:
    """`websockets.connect` of `path` as an app opens it (its `X-Session-Token`), no pings."""
    import websockets

    return websockets.connect(
        f"ws://{HOST}:{port}{path}",
        additional_headers={"X-Session-Token": token},
        open_timeout=30,
        ping_interval=None,
        **options,
    )


def close_code(websocket: Any) -> str:
    """The close code a closed socket received (`none`: cut without a close frame)."""
    rcvd = websocket.protocol.close_rcvd
    return "none" if rcvd is None else str(rcvd.code)


# --- figures ---------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]


def latency_summary(seconds: list[float]) -> dict[str, Any]:
    ms = [value * 1000 for value in seconds]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 0.50), 1),
        "p95_ms": round(percentile(ms, 0.95), 1),
        "p99_ms": round(percentile(ms, 0.99), 1),
        "max_ms": round(max(ms), 1) if ms else None,
    }


def redis_port() -> int | None:
    from urllib.parse import urlparse

    return urlparse(os.environ["REDIS_URL"]).port or 6379
