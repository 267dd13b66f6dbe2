"""Notifications under the soak of issue 21: how long "your turn" takes from the move's commit to
the inbox, `ws/me/` and the push service, the backlog of notification tasks, and (`--faults`) an
audit of every change against what each recipient got while database connections are cut.

    .venv/bin/python -m bench.notification_soak --duration 600
    .venv/bin/python -m bench.notification_soak --duration 240 --faults

It runs production's setup on this machine: PostgreSQL (`--database-url`, default the database
`greycircle_bench_soak` on the local server, created if missing, migrated; never DATABASE_URL,
whose database the faults would cut), a redis-server of its own on a free port, the site
(`--servers`, default 2, `manage.py serve --no-tasks` of one process each, as behind a load
balancer; the comment in `bench()` says why not `--workers 2`), task workers (`manage.py
games_worker`: `--task-workers`, default two per core, running every queue, and
`--notification-workers` running only the notifications' queue), and a local Web Push service
in a process of its own (tests/push/push_service.py: it checks VAPID, decrypts each push with the
browser's keys and records when it arrived).

The load (this process: the standard library, `websockets` and, for the backlog and the faults,
`psycopg`): 20 players (bench/notification_audit.py `setup`; what they do is
bench/notification_soak_players.py). Twelve play each other, two Circles pairs, two CirKis pairs and
a four-player King's Corner game: in each game half keep `ws/me/` open, the other half have no
socket (they are away: their notifications go to Web Push, a browser subscription each, registered
through the API). Eight (`--computers`) play against computers (Circles and CirKis hard, King's
Corner normal) with `ws/me/` open, so the computers' turns keep the task workers busy. Every player
polls its game (`--poll-ms`), moves after `--think-ms` (people) or `--computer-think-ms` (against
computers), and asks for a rematch when a game ends. Besides, every `--invite-every` s a player
invites another to a game, which is then declined or withdrawn, and every `--friend-every` s a
player asks another to be friends, who accepts, and the friendship is ended again.

`--faults`: 20 cuts of all the site's database connections (`pg_terminate_backend`), evenly
spread, and at the middle of the run a 5-s refusal (`ALTER DATABASE ... CONNECTION LIMIT 0` and
every connection cut; the site's role is no superuser, so the limit holds for it). After the run
it waits until no notification task is left (at most `--drain` s), then reports.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

from bench import loadkit
from bench.notification_soak_players import Person, Run, befriending, inviting

DEFAULT_DATABASE = "postgres://greycircle:greycircle@127.0.0.1:5432/greycircle_bench_soak"
# django-tasks-db keeps "no run_after" as the year 9999: such a task is due at once.
DUE = "status = 'READY' AND (run_after <= now() OR run_after >= '9999-01-01')"
BACKLOG_SQL = f"""
SELECT queue_name,
       count(*) FILTER (WHERE {DUE}),
       extract(epoch from now() - min(enqueued_at) FILTER (WHERE {DUE})),
       count(*) FILTER (WHERE status = 'READY' AND run_after > now()
                        AND run_after < '9999-01-01'),
       count(*) FILTER (WHERE status = 'RUNNING')
FROM django_tasks_database_dbtaskresult WHERE status IN ('READY', 'RUNNING') GROUP BY queue_name
"""


# --- the database: backlog and faults (psycopg, in threads) ----------------------------------


def admin_url(database_url: str) -> str:
    """The same server's `postgres` database, from which the bench database is created, altered
    and its connections cut (never from inside it)."""
    return urlunparse(urlparse(database_url)._replace(path="/postgres"))


def database_name(database_url: str) -> str:
    return urlparse(database_url).path.lstrip("/")


def sample_backlog(database_url: str, stop: threading.Event, out: list[dict[str, Any]]) -> None:
    import psycopg

    connection = None
    while not stop.wait(2.0):
        try:
            if connection is None or connection.closed:
                connection = psycopg.connect(database_url, autocommit=True, connect_timeout=2)
            rows = connection.execute(BACKLOG_SQL).fetchall()
        except psycopg.Error:
            connection = None
            out.append({"at": time.time(), "error": True})
            continue
        sample: dict[str, Any] = {"at": time.time()}
        for queue, due, oldest, later, running in rows:
            sample[queue] = {
                "due": due,
                "oldest_s": round(float(oldest), 2) if oldest is not None else 0.0,
                "retry_later": later,
                "running": running,
            }
        out.append(sample)


def cut(admin: Any, name: str) -> int:
    rows = admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE datname = %s AND usename = current_user",
        [name],
    ).fetchall()
    return sum(1 for (done,) in rows if done)


def faults(database_url: str, duration: float, stop: threading.Event, out: list) -> None:
    """20 cuts of every connection to the bench database, evenly spread over the run, and a
    5-s refusal at its middle."""
    import psycopg
    from psycopg import sql

    name = database_name(database_url)
    started = time.monotonic()
    gap = duration / 22
    with psycopg.connect(admin_url(database_url), autocommit=True) as admin:
        for index in range(1, 22):
            if stop.wait(max(0.0, started + index * gap - time.monotonic())):
                return
            if index == 11:
                limit = sql.SQL("ALTER DATABASE {} CONNECTION LIMIT {}")
                admin.execute(limit.format(sql.Identifier(name), sql.Literal(0)))
                at = time.time()
                cuts = cut(admin, name)
                stop.wait(5.0)
                admin.execute(limit.format(sql.Identifier(name), sql.Literal(-1)))
                out.append({"at": at, "refused_s": round(time.time() - at, 2), "cut": cuts})
            else:
                out.append({"at": time.time(), "cut": cut(admin, name)})


def database_ready(database_url: str) -> None:
    """Create the bench database if missing (and lift a connection limit a killed run left)."""
    import psycopg
    from psycopg import sql

    name = database_name(database_url)
    with psycopg.connect(admin_url(database_url), autocommit=True) as admin:
        if not admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        admin.execute(sql.SQL("ALTER DATABASE {} CONNECTION LIMIT -1").format(sql.Identifier(name)))


def notifications_left(database_url: str) -> int:
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as connection:
        (left,) = connection.execute(
            "SELECT count(*) FROM django_tasks_database_dbtaskresult WHERE queue_name = "
            "'notifications' AND status IN ('READY', 'RUNNING')"
        ).fetchone()
    return left


# --- the push service (a process of its own) -------------------------------------------------


def push_service(count: int, out: Path) -> None:
    """The local Web Push service: `count` browsers' subscriptions as one JSON line on stdout,
    then every push received as a line of `out` (arrival time, decrypted message) until SIGTERM."""
    sys.path.insert(0, str(loadkit.BASE_DIR))
    from tests.push.push_service import PushService

    log = out.open("a", buffering=1)

    class Recording(PushService):
        """Checks and decrypts each push as PushService does, and records when it came rather
        than keeping it."""

        def _receive(self, path: str, headers: dict[str, str], body: bytes):
            arrived = time.time()
            browser = self.browsers.get(path.rsplit("/", 1)[1])
            if browser is None:
                return 404, {}
            try:
                self._vapid(headers)
                message = self._decrypt(browser, headers, body)
            except Exception as error:
                print(f"push refused: {type(error).__name__}: {error}", file=sys.stderr)
                return 400, {}
            with self.lock:
                log.write(json.dumps({"at": arrived, "token": browser.token, "message": message}))
                log.write("\n")
            return 201, {}

    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    with Recording() as service:
        browsers = [service.browser().subscription() for _ in range(count)]
        print(json.dumps(browsers), flush=True)
        stopped.wait()
    log.close()


# --- the run ---------------------------------------------------------------------------------


def django_script(command: list[str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(loadkit.BASE_DIR / "bench" / "notification_audit.py"), *command],
        cwd=loadkit.APP_DIR,
        env=loadkit.server_env(),
        check=True,
        stdout=subprocess.PIPE,
    )
    return json.loads(done.stdout)


def summary(samples: list[dict[str, Any]], start: float, end: float) -> dict[str, Any]:
    """The notifications' backlog over the window: by minute, the most tasks due and the oldest
    wait seen."""
    minutes: dict[int, dict[str, float]] = {}
    for sample in samples:
        if not start <= sample["at"] <= end or sample.get("error"):
            continue
        queue = sample.get("notifications", {"due": 0, "oldest_s": 0.0})
        default = sample.get("default", {"due": 0})
        minute = int((sample["at"] - start) // 60)
        row = minutes.setdefault(
            minute, {"due_max": 0, "oldest_max_s": 0.0, "computers_due_max": 0}
        )
        row["due_max"] = max(row["due_max"], queue["due"])
        row["oldest_max_s"] = max(row["oldest_max_s"], queue["oldest_s"])
        row["computers_due_max"] = max(row["computers_due_max"], default["due"])
    return {f"minute {minute + 1}": row for minute, row in sorted(minutes.items())}


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    sys.path.insert(0, str(loadkit.BASE_DIR))
    from tests.redis_server import RedisServer

    loadkit.raise_nofile()
    database_url = args.database_url
    if database_name(database_url) == "greycircle":
        sys.exit("Not the shared database greycircle: the faults cut its connections.")
    os.environ["DATABASE_URL"] = database_url
    database_ready(database_url)
    redis = RedisServer()
    redis.start()
    os.environ["REDIS_URL"] = redis.url
    os.environ["WEBPUSH_INSECURE_HOSTS"] = "127.0.0.1"
    os.environ.setdefault("GAMES_AI_BUDGET_MS", str(args.budget_ms))
    run_dir = Path(tempfile.mkdtemp(prefix="bench-soak-"))
    processes = loadkit.Processes()
    stop = threading.Event()
    samples: list[dict[str, Any]] = []
    fault_log: list[dict[str, Any]] = []
    threads: list[threading.Thread] = []
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=loadkit.APP_DIR,
            env=loadkit.server_env(),
            check=True,
        )
        setup = django_script(
            ["setup", "--prefix", args.prefix, "--computers", str(args.computers)]
        )
        away = [p for p in setup["players"] if p["channel"] == "push"]
        push = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.notification_soak",
                "--push-service",
                str(len(away)),
                "--run-dir",
                str(run_dir),
            ],
            cwd=loadkit.BASE_DIR,
            stdout=subprocess.PIPE,
        )
        processes.started.append(push)
        subscriptions = json.loads(push.stdout.readline())
        # Several single-process servers, as behind a load balancer: with `--workers N` uvicorn's
        # supervisor kills a process that misses its 5-s health check, which at this machine's
        # load average (10-16) a starting or busy one does (it never came up at all once).
        ports, servers = [], []
        for _ in range(args.servers):
            ports.append(loadkit.free_port())
            servers.append(processes.start(loadkit.server_command("serve", ports[-1], 1)))
        for port, server in zip(ports, servers, strict=True):
            await loadkit.wait_ready(port, server, timeout=180)
        task_workers = args.task_workers or 2 * os.cpu_count()
        worker_pids, notification_pids = [], []
        for _ in range(task_workers):
            nice = ["nice", "-n", str(args.nice_workers)] if args.nice_workers else []
            worker = processes.start(
                [*nice, sys.executable, "manage.py", "games_worker", "--no-startup-delay"]
            )
            worker_pids.append(worker.pid)
        for _ in range(args.notification_workers):
            worker = processes.start(
                [
                    sys.executable,
                    "manage.py",
                    "games_worker",
                    "--no-startup-delay",
                    "--queue-name",
                    "notifications",
                ]
            )
            notification_pids.append(worker.pid)
        run = Run(args, ports, run_dir)
        people = [Person(info, run, index) for index, info in enumerate(setup["players"])]
        away_people = [p for p in people if p.info["channel"] == "push"]
        for person, subscription in zip(away_people, subscriptions, strict=True):
            status, answer = await person.request(
                "POST", "/api/v1/push/web/subscriptions/", subscription
            )
            if status not in (200, 201):
                raise RuntimeError(f"push subscription: {status} {answer}")
        sockets = [
            asyncio.create_task(p.me_socket()) for p in people if p.info["channel"] == "socket"
        ]
        threads.append(threading.Thread(target=sample_backlog, args=(database_url, stop, samples)))
        meter = loadkit.CpuMeter(
            {
                "server": [server.pid for server in servers],
                "workers": worker_pids,
                "notification_workers": notification_pids,
            }
        )
        tasks = [asyncio.create_task(p.main()) for p in people]
        tasks += [asyncio.create_task(inviting(run, people))]
        tasks += [asyncio.create_task(befriending(run, people))]
        for thread in threads:
            thread.start()
        loadavg_before = loadkit.loadavg()
        await asyncio.sleep(args.warmup)
        meter.start()
        start = time.time()
        if args.faults:
            fault = threading.Thread(
                target=faults, args=(database_url, args.duration, stop, fault_log)
            )
            fault.start()
            threads.append(fault)
        await asyncio.sleep(args.duration)
        end = time.time()
        cpu = meter.stop()
        loadavg_after = loadkit.loadavg()
        run.stop = True
        await asyncio.wait(tasks, timeout=15)
        for task in tasks:
            task.cancel()
        # Until every notification queued has been delivered (or given up): at least once.
        drain_deadline = time.monotonic() + args.drain
        while time.monotonic() < drain_deadline:
            try:
                if notifications_left(database_url) == 0:
                    break
            except Exception:
                pass
            await asyncio.sleep(1)
        await asyncio.sleep(1)  # the last frames on their way
        stopped = time.time()
        drained = stopped - end
        for task in [*tasks, *sockets]:
            task.cancel()
        await asyncio.gather(*tasks, *sockets, return_exceptions=True)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        processes.stop()
        redis.stop()
    run.frames.close()
    run.client.close()
    (run_dir / "run.json").write_text(
        json.dumps({"start": start, "end": end, "stopped": stopped, "players": setup["players"]})
    )
    figures = django_script(["report", "--run-dir", str(run_dir)])
    return {
        "app_dir": str(loadkit.APP_DIR),
        "players": len(people),
        "duration_s": round(end - start, 1),
        "faults": fault_log,
        "servers": args.servers,
        "task_workers": task_workers,
        "notification_workers": args.notification_workers,
        "nice_workers": args.nice_workers,
        "budget_ms": args.budget_ms,
        **figures,
        "backlog": summary(samples, start, end),
        "drained_after_s": round(drained, 1),
        "ws_me_reconnects": run.reconnects,
        "failures": run.failures,
        "cpu_s": {name: round(value, 1) for name, value in cpu.items()},
        "loadavg_before": loadavg_before,
        "loadavg_after": loadavg_after,
        "run_dir": str(run_dir),
        "log": processes.log.name,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=600.0)
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument(
        "--database-url", default=DEFAULT_DATABASE, help="created if missing (not DATABASE_URL)"
    )
    parser.add_argument("--faults", action="store_true", help="cut connections: the audit")
    parser.add_argument("--servers", type=int, default=2, help="`serve` processes (one each)")
    parser.add_argument("--task-workers", type=int, default=0, help="default: two per core")
    parser.add_argument("--notification-workers", type=int, default=1)
    parser.add_argument(
        "--nice-workers", type=int, default=0, help="run the every-queue workers under nice -n"
    )
    parser.add_argument("--budget-ms", type=int, default=1000)
    parser.add_argument("--computers", type=int, default=8, help="games against computers")
    parser.add_argument("--think-ms", type=float, default=1500.0)
    parser.add_argument("--computer-think-ms", type=float, default=200.0)
    parser.add_argument("--poll-ms", type=float, default=300.0)
    parser.add_argument("--invite-every", type=float, default=4.0)
    parser.add_argument("--friend-every", type=float, default=5.0)
    parser.add_argument("--drain", type=float, default=120.0)
    parser.add_argument("--prefix", default="bench-soak")
    parser.add_argument("--push-service", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--run-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.push_service is not None:
        push_service(args.push_service, Path(args.run_dir) / "pushes.jsonl")
        return
    result = asyncio.run(bench(args))
    print(json.dumps(result, indent=1), flush=True)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
