"""How a server process stops on SIGTERM: exit time, what its WebSockets and requests get.

    DATABASE_URL=... REDIS_URL=... .venv/bin/python -m bench.shutdown --server serve \\
        --sockets 200 --inflight 20 --load 4 --runs 3

`--server serve` runs `manage.py serve --no-tasks --workers N` (uvicorn,
greycircle/runtime/server.py);
`--server daphne` runs `daphne greycircle.asgi:application`, the former production command.
Without DATABASE_URL a temporary SQLite database is migrated for the run.

Each run starts the server, signs a user in (allauth headless), opens `--sockets` WebSockets on
/ws/me/, starts `--inflight` requests (PATCH /api/v1/me/) whose headers and first half of the body
are sent before the signal and the rest 0.5 s after it, keeps `--load` clients requesting
/accounts/login/ in a loop (one connection per request), then sends SIGTERM. It reports the
seconds until the process exited (SIGKILL after `--give-up` seconds), the close codes the sockets
received (`none`: cut without a close frame; `open`: still open when the process exited), how many
in-flight requests were answered 200, and the load requests: answered, refused (connection refused:
the expected answer of a stopping server) and broken (connected, no complete answer).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import websockets

from bench import loadkit
from bench.loadkit import BASE_DIR, HOST

USERNAME = "bench-shutdown"
PASSWORD = "bench-shutdown-pass-phrase"


def prepare_database() -> dict[str, str]:
    """The environment of the server: the database (migrated, with the bench user)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.setdefault("DJANGO_SETTINGS_MODULE", "greycircle.settings")
    if "DATABASE_URL" not in env:
        path = Path(tempfile.gettempdir()) / "greycircle-bench-shutdown.sqlite3"
        env["DATABASE_URL"] = f"sqlite:///{path}"
    script = (
        "import django; django.setup()\n"
        "from django.core.management import call_command\n"
        "call_command('migrate', verbosity=0)\n"
        "from accounts.models import User\n"
        f"user, _ = User.objects.get_or_create(username={USERNAME!r}, "
        f"defaults={{'email': '{USERNAME}@example.com'}})\n"
        f"user.set_password({PASSWORD!r}); user.save()\n"
    )
    subprocess.run([sys.executable, "-c", script], cwd=BASE_DIR, env=env, check=True)
    return env


async def watch_socket(websocket, codes: collections.Counter) -> None:
    try:
        async for _ in websocket:
            pass
    except websockets.ConnectionClosed:
        pass
    codes[loadkit.close_code(websocket)] += 1


async def in_flight_request(port: int, token: str, signalled: asyncio.Event) -> bool:
    body = json.dumps({"show_helpers": True}).encode()
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        writer.write(
            (
                f"PATCH /api/v1/me/ HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                f"X-Session-Token: {token}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            + body[: len(body) // 2]
        )
        await writer.drain()
        await signalled.wait()
        await asyncio.sleep(0.5)
        writer.write(body[len(body) // 2 :])
        await writer.drain()
        response = await asyncio.wait_for(reader.read(), timeout=30)
        return response.startswith(b"HTTP/1.1 200")
    except (TimeoutError, OSError):
        return False
    finally:
        writer.close()


async def load_client(port: int, stop: asyncio.Event, signalled: asyncio.Event, tally) -> None:
    while not stop.is_set():
        after = signalled.is_set()
        try:
            reader, writer = await asyncio.open_connection(HOST, port)
        except OSError:
            if after:
                tally["refused"] += 1
            await asyncio.sleep(0.05)
            continue
        try:
            writer.write(
                f"GET /accounts/login/ HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
                "Connection: close\r\n\r\n".encode()
            )
            response = await asyncio.wait_for(reader.read(), timeout=30)
            ok = response.startswith(b"HTTP/1.1 200")
        except (TimeoutError, OSError):
            ok = False
        finally:
            writer.close()
        if after:
            tally["answered" if ok else "broken"] += 1


async def one_run(args, env: dict[str, str]) -> dict:
    port = loadkit.free_port()
    log_fd, log_name = tempfile.mkstemp(prefix="bench-shutdown-", suffix=".log")
    with os.fdopen(log_fd, "wb") as log:
        process = subprocess.Popen(
            loadkit.server_command(args.server, port, args.workers),
            cwd=BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        # Ready when the login page answers (the page the load requests).
        await loadkit.wait_ready(port, process, path="/accounts/login/", ready=(200,))
        token = await loadkit.api_login(port, USERNAME, PASSWORD)
        sockets = []
        for start in range(0, args.sockets, 50):
            sockets += await asyncio.gather(
                *(
                    loadkit.open_socket(port, "/ws/me/", token)
                    for _ in range(start, min(args.sockets, start + 50))
                )
            )
        codes: collections.Counter = collections.Counter()
        watchers = [asyncio.create_task(watch_socket(ws, codes)) for ws in sockets]
        signalled, stop = asyncio.Event(), asyncio.Event()
        tally: collections.Counter = collections.Counter()
        loaders = [
            asyncio.create_task(load_client(port, stop, signalled, tally)) for _ in range(args.load)
        ]
        flights = [
            asyncio.create_task(in_flight_request(port, token, signalled))
            for _ in range(args.inflight)
        ]
        await asyncio.sleep(1.0)  # the load runs, the in-flight requests reach the server

        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        signalled.set()
        while process.poll() is None and time.monotonic() - started < args.give_up:
            await asyncio.sleep(0.01)
        exit_seconds = time.monotonic() - started
        killed = process.poll() is None
        if killed:
            process.kill()
            process.wait()
        stop.set()
        answered = sum(await asyncio.gather(*flights))
        await asyncio.gather(*loaders)
        await asyncio.sleep(0.2)
        for watcher in watchers:
            if not watcher.done():
                watcher.cancel()
                codes["open"] += 1
        for ws in sockets:
            ws.transport.abort()
        return {
            "exit_s": round(exit_seconds, 2),
            "killed": killed,
            "returncode": process.returncode,
            "ws_close_codes": dict(codes),
            "inflight_200": f"{answered}/{args.inflight}",
            "load_after_sigterm": dict(tally),
            "log": log_name,
        }
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    loadkit.add_server_arguments(parser, running=False)
    parser.add_argument("--sockets", type=int, default=200)
    parser.add_argument("--inflight", type=int, default=20)
    parser.add_argument("--load", type=int, default=4, help="clients requesting in a loop")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--give-up", type=float, default=60.0, help="SIGKILL after this long")
    args = parser.parse_args()
    env = prepare_database()
    print(
        f"server={args.server} workers={args.workers} sockets={args.sockets} "
        f"inflight={args.inflight} load={args.load}"
    )
    for run in range(args.runs):
        print(run + 1, json.dumps(asyncio.run(one_run(args, env))), flush=True)


if __name__ == "__main__":
    main()
