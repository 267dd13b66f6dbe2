"""A reconnect storm: N WebSockets opened at once against a running server.

    DATABASE_URL=... REDIS_URL=... .venv/bin/python -m bench.socket_storm \\
        --port 8000 --server-pid 1234 --sockets 1000 [--runs 3]

The server runs on its own (`manage.py serve --no-tasks --no-access-log --workers N`, with the
same DATABASE_URL and REDIS_URL); this process is only the load generator. Before the storm a
child process (`--prepare`, with Django) creates the users, a session for each and a game between
the first two, on the database of DATABASE_URL (SQLite `db.sqlite3` without it).

Every socket belongs to one of `--users` users (default: half as many as sockets, as after a
restart where each page had `/ws/me/` and a game's socket open). Half the sockets go to
`/ws/me/`, half to `/ws/games/{id}/` of the one game (two of the users are its players, the rest
spectators); every other page authenticates with the session cookie (and the page's Origin), the
others with `X-Session-Token` as apps do. All are opened at once (`asyncio.gather`), offering
permessage-deflate as browsers do (`--no-deflate`: without it).

Reported per run: sockets connected (the first frame received: `hello` or `game`), dropped (by
reason: timeout, refused, closed with a code, error), the time until all were connected, the
p50/p99/max of handshake and handshake + first frame latencies, and the memory per idle socket:
the server's RSS (the process of `--server-pid` and all its descendants, from
/proc/<pid>/status) after the sockets settled minus before, divided by the sockets connected. Also
the CPU time the server processes spent from the first socket opened to the last one's outcome
(/proc/<pid>/stat), per socket: a figure that depends less on what else the machine runs.
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
from pathlib import Path

import websockets

from bench import loadkit
from bench.loadkit import BASE_DIR, HOST

USER_PREFIX = "storm-"


# --- preparation (a child process with Django) -------------------------------------------------


def prepare(users: int) -> dict:
    """Users, one new session each, and a game between the first two; what the storm needs."""
    from importlib import import_module

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "greycircle.settings")
    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.hashers import make_password

    from accounts.models import User
    from greycircle.games import invitations, services
    from greycircle.games.models import Game, GameStatus, Invitation, InvitationStatus

    names = [f"{USER_PREFIX}{index}" for index in range(users)]
    existing = set(User.objects.filter(username__in=names).values_list("username", flat=True))
    password = make_password(None)  # unusable: these users never log in with a password
    User.objects.bulk_create(
        User(username=name, email=f"{name}@example.com", password=password)
        for name in names
        if name not in existing
    )
    by_name = User.objects.in_bulk(names, field_name="username")
    players = [by_name[names[0]], by_name[names[1 % users]]]
    game = (
        Game.objects.filter(seats__user=players[0], status=GameStatus.ACTIVE)
        .filter(seats__user=players[1])
        .order_by("-pk")
        .first()
    )
    if game is None:
        User.objects.filter(pk=players[1].pk).update(accept_invitations_from_anyone=True)
        players[1].accept_invitations_from_anyone = True
        game = services.game_create(
            creator=players[0], kind="circles", opponents=[services.SeatSpec(user=players[1])]
        )
        pending = Invitation.objects.filter(game=game, status=InvitationStatus.PENDING)
        for invitation in pending.select_related("invitee"):
            invitations.invitation_accept(invitation_id=invitation.pk, user=invitation.invitee)
    backend = settings.AUTHENTICATION_BACKENDS[0]
    sessions = []
    for name in names:
        user = by_name[name]
        session = import_module(settings.SESSION_ENGINE).SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = backend
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        sessions.append(session.session_key)
    return {"game": game.pk, "sessions": sessions, "cookie": settings.SESSION_COOKIE_NAME}


# --- the storm -------------------------------------------------------------------------------


def rss_kib(pid: int) -> int:
    """VmRSS of `pid` and all its descendants (uvicorn's supervisor and its workers), in KiB."""
    total = 0
    for current in loadkit.process_tree([pid]):
        try:
            status = Path(f"/proc/{current}/status").read_text()
        except FileNotFoundError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


class Outcome:
    def __init__(self) -> None:
        self.handshake: float | None = None
        self.first_frame: float | None = None
        self.failure: str | None = None
        self.websocket = None


async def open_one(
    url: str, headers: dict[str, str], timeout: float, start: float, deflate: bool
) -> Outcome:
    outcome = Outcome()
    try:
        async with asyncio.timeout(timeout):
            websocket = await websockets.connect(
                url,
                additional_headers=headers,
                open_timeout=None,
                ping_interval=None,
                close_timeout=1,
                max_queue=None,
                compression="deflate" if deflate else None,
            )
            outcome.websocket = websocket
            outcome.handshake = time.monotonic() - start
            first = json.loads(await websocket.recv())
            if first.get("type") not in {"hello", "game"}:
                outcome.failure = f"first frame {first.get('type')}"
            else:
                outcome.first_frame = time.monotonic() - start
    except TimeoutError:
        outcome.failure = "timeout" if outcome.handshake is None else "timeout (first frame)"
    except websockets.ConnectionClosed as closed:
        outcome.failure = f"closed {closed.rcvd.code if closed.rcvd else 'without a frame'}"
    except websockets.InvalidStatus as refused:
        outcome.failure = f"refused {refused.response.status_code}"
    except OSError as error:
        outcome.failure = f"{type(error).__name__}"
    except Exception as error:
        outcome.failure = f"{type(error).__name__}: {error}"
    return outcome


def ms(value: float | None) -> int | None:
    return None if value is None else round(value * 1000)


def ms_summary(seconds: list[float]) -> dict[str, int | None]:
    """p50, p99 and max in whole milliseconds (None without values)."""
    return {
        "p50": ms(loadkit.percentile(seconds, 0.5)) if seconds else None,
        "p99": ms(loadkit.percentile(seconds, 0.99)) if seconds else None,
        "max": ms(max(seconds, default=None)),
    }


async def storm(args, prepared: dict) -> dict:
    base = f"ws://{HOST}:{args.port}"
    origin = f"http://{HOST}:{args.port}"
    targets = []
    for index in range(args.sockets):
        session = prepared["sessions"][(index // 2) % len(prepared["sessions"])]
        path = "/ws/me/" if index % 2 == 0 else f"/ws/games/{prepared['game']}/"
        if (index // 2) % 2 == 0:
            headers = {"X-Session-Token": session}
        else:
            headers = {"Cookie": f"{prepared['cookie']}={session}", "Origin": origin}
        targets.append((base + path, headers))
    before = rss_kib(args.server_pid) if args.server_pid else None
    cpu_before = loadkit.tree_cpu_seconds(args.server_pid) if args.server_pid else None
    start = time.monotonic()
    outcomes = await asyncio.gather(
        *(open_one(url, headers, args.timeout, start, args.deflate) for url, headers in targets)
    )
    cpu_after = loadkit.tree_cpu_seconds(args.server_pid) if args.server_pid else None
    connected = [outcome for outcome in outcomes if outcome.first_frame is not None]
    failures = collections.Counter(outcome.failure for outcome in outcomes if outcome.failure)
    handshakes = [outcome.handshake for outcome in outcomes if outcome.handshake is not None]
    firsts = [outcome.first_frame for outcome in connected]
    await asyncio.sleep(args.settle)
    after = rss_kib(args.server_pid) if args.server_pid else None
    result = {
        "sockets": args.sockets,
        "connected": len(connected),
        "dropped": args.sockets - len(connected),
        "failures": dict(failures),
        "all_connected_s": round(max(firsts), 2) if len(connected) == args.sockets else None,
        "connected_within_10s": sum(1 for value in firsts if value <= 10),
        "handshake_ms": ms_summary(handshakes),
        "first_frame_ms": ms_summary(firsts),
    }
    if cpu_before is not None and cpu_after is not None:
        result["server_cpu_s"] = round(cpu_after - cpu_before, 2)
        result["server_cpu_ms_per_socket"] = round(
            (cpu_after - cpu_before) * 1000 / args.sockets, 1
        )
    if before is not None and after is not None:
        result["server_rss_mib"] = {
            "before": round(before / 1024, 1),
            "after": round(after / 1024, 1),
        }
        if connected:
            result["kib_per_idle_socket"] = round((after - before) / len(connected), 1)
    for outcome in outcomes:
        if outcome.websocket is not None:
            outcome.websocket.transport.abort()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000, help="the server's port on 127.0.0.1")
    parser.add_argument("--server-pid", type=int, help="for the server's RSS (with children)")
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument("--users", type=int, help="distinct users (default: sockets / 2)")
    parser.add_argument("--timeout", type=float, default=30.0, help="per socket, to first frame")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds before reading RSS")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--pause", type=float, default=5.0, help="seconds between runs")
    parser.add_argument(
        "--no-deflate",
        dest="deflate",
        action="store_false",
        help="do not offer permessage-deflate (browsers do; it costs memory per socket)",
    )
    parser.add_argument("--prepare", type=int, metavar="USERS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.prepare is not None:
        print(json.dumps(prepare(args.prepare)))
        return
    loadkit.raise_nofile(args.sockets * 2 + 256)
    users = args.users or max(2, args.sockets // 2)
    prepared = json.loads(
        subprocess.run(
            [sys.executable, "-m", "bench.socket_storm", "--prepare", str(users)],
            cwd=BASE_DIR,
            check=True,
            capture_output=True,
            text=True,
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    print(f"sockets={args.sockets} users={users} game={prepared['game']} port={args.port}")
    for run in range(args.runs):
        if run:
            time.sleep(args.pause)
        print(run + 1, json.dumps(asyncio.run(storm(args, prepared))), flush=True)


if __name__ == "__main__":
    main()
