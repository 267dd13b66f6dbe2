"""Flag precision: how late a live game ends once a clock reaches zero, with 200 live games running.

    DATABASE_URL=postgres://.../greycircle_flags REDIS_URL=redis://127.0.0.1:6397/0 \\
        .venv/bin/python -m bench.flag_precision --games 200 [--task-workers 1] \
        [--notification-workers 1] [--spread 20]

Production setup (bench/loadkit.py, README "Production"): a server (`manage.py serve --no-tasks
--workers 1`), `--task-workers` plain task workers (`manage.py games_worker`: every queue, at
niceness +10) and `--notification-workers` workers of the notifications' queue (at full
priority), each running the clocks' loop (the niced ones as the backup, behind the clock), on
PostgreSQL and Redis. It sets up `--games` live Circles games at 5+0 between people (the players
of bench.load_setup, two per game), `--moves` moves played in each, and opens both players'
`ws/games/{id}/` sockets. Then it sets the clocks, in the database as a move's commit sets them
(the seat to move's time and the start of its stretch), so that the flags fall at known moments
spread evenly over `--spread` seconds from `--lead` seconds on: every game stays in play, its
clock running, until its own flag. Nobody sends a request.

Measured from each game's `flag_at` (the server's clock; everything runs on this machine):
(a) its `finished_at`, when a worker's loop ended it (read from the database afterwards), and
(b) the frame showing the game over on each of its two players' sockets, the later of the two;
p50/p95/p99/max over the games. Also: whether every game ended on time (reason `timeout`) and
its version moved by exactly one, and the CPU the workers and the server used in the window.

The parts that need Django (setting up, setting the clocks, reading the results) run as
subprocesses of this module (`--django setup|clocks|report`), so the sockets' side stays cheap.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from datetime import datetime
from typing import Any

import websockets

from bench import loadkit

OVER = ("finished", "aborted")


# --- the Django side (subprocesses) ----------------------------------------------------------


def _django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "greycircle.settings")
    import django

    django.setup()


def django_setup(games: int, prefix: str, moves: int) -> dict[str, Any]:
    """`games` live games, `moves` moves played in each (both first moves among them, and enough
    for a loss on time to be an ordinary one, not a quick loss that the ratings look into); each
    with its two players' tokens."""
    _django()
    from bench.load_setup import bench_players, session_token_for
    from greycircle.games import invitations, registry, services
    from greycircle.games.clocks import TimeControl
    from greycircle.games.models import Game, Invitation, InvitationStatus

    users = bench_players([f"{prefix}-p{i}" for i in range(2 * games)])
    rules = registry.get("circles").rules
    made = []
    for index in range(games):
        first, second = users[2 * index], users[2 * index + 1]
        game = services.game_create(
            creator=first,
            kind="circles",
            opponents=[services.SeatSpec(user=second)],
            time_control=TimeControl(5, 0),
        )
        pending = Invitation.objects.filter(game=game, status=InvitationStatus.PENDING)
        for invitation in pending.select_related("invitee"):
            invitations.invitation_accept(invitation_id=invitation.pk, user=invitation.invitee)
        for _ in range(moves):
            game = Game.objects.with_seats().get(pk=game.pk)
            player = game.seats.all()[game.to_move].user
            move = rules.legal_moves(rules.decode(game.state))[0]
            services.move_submit(
                game_id=game.pk,
                user=player,
                move=rules.move_to_json(move),
                expected_version=game.version,
            )
        made.append(
            {"game": game.pk, "tokens": [session_token_for(first), session_token_for(second)]}
        )
    return {"games": made}


def django_clocks(game_ids: list[int], lead: float, spread: float) -> dict[str, Any]:
    """Set each game's running clock to run out at `lead` + i * `spread` / n seconds from now."""
    _django()
    from datetime import timedelta

    from django.db import transaction
    from django.utils import timezone

    from greycircle.games.clocks import lag_allowance_ms
    from greycircle.games.models import Game

    now = timezone.now()
    flags = {}
    with transaction.atomic():
        for index, game in enumerate(
            Game.objects.select_for_update().filter(pk__in=game_ids).order_by("pk")
        ):
            # What the clock shows: the flag is that and the lag allowance after its start.
            left_ms = int((lead + index * spread / len(game_ids)) * 1000) - lag_allowance_ms()
            remaining = list(game.clock_remaining_ms)
            remaining[game.to_move] = left_ms
            game.clock_remaining_ms = remaining
            game.clock_started_at = now
            game.flag_at = now + timedelta(milliseconds=left_ms + lag_allowance_ms())
            game.save(update_fields=["clock_remaining_ms", "clock_started_at", "flag_at"])
            flags[game.pk] = {"flag_at": game.flag_at.timestamp(), "version": game.version}
    return {"flags": flags}


def django_report(game_ids: list[int]) -> dict[str, Any]:
    _django()
    from greycircle.games.models import Game

    rows = Game.objects.filter(pk__in=game_ids).values_list(
        "pk", "status", "finished_at", "outcome", "version"
    )
    return {
        "games": {
            pk: {
                "status": status,
                "finished_at": finished_at.timestamp() if finished_at else None,
                "reason": (outcome or {}).get("reason"),
                "version": version,
            }
            for pk, status, finished_at, outcome, version in rows
        }
    }


def django_main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--django", choices=["setup", "clocks", "report"], required=True)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--prefix", default="bench-flags")
    parser.add_argument("--lead", type=float, default=5.0)
    parser.add_argument("--spread", type=float, default=20.0)
    parser.add_argument("--moves", type=int, default=12)
    args = parser.parse_args(argv)
    if args.django == "setup":
        out = django_setup(args.games, args.prefix, args.moves)
    else:
        ids = [int(line) for line in sys.stdin.read().split()]
        out = (
            django_clocks(ids, args.lead, args.spread)
            if args.django == "clocks"
            else django_report(ids)
        )
    json.dump(out, sys.stdout)


def run_django(step: str, *, stdin: str = "", **options: Any) -> dict[str, Any]:
    command = [sys.executable, "-m", "bench.flag_precision", "--django", step]
    for name, value in options.items():
        command += [f"--{name}", str(value)]
    done = subprocess.run(
        command,
        cwd=loadkit.APP_DIR,
        env=loadkit.server_env(),
        input=stdin.encode(),
        check=True,
        stdout=subprocess.PIPE,
    )
    return json.loads(done.stdout)


# --- the players' side -----------------------------------------------------------------------


async def watch(port: int, game: int, token: str, over_at: dict[int, list[float]]) -> None:
    """One player's socket on `game`: note when a frame shows it over, then close. A socket the
    server closes (4503: it lost Redis for a moment) is opened again, as an app does, and the
    envelope it gets on opening counts; `reopened` says how often."""
    first = True
    while True:
        try:
            async with loadkit.open_socket(
                port, f"/ws/games/{game}/", token, max_queue=None
            ) as socket:
                if first:
                    opened.append(game)
                    first = False
                async for text in socket:
                    envelope = json.loads(text).get("envelope") or {}
                    if envelope.get("status") in OVER:
                        over_at[game].append(time.time())
                        return
        except websockets.ConnectionClosed as closed:
            reopened.append(f"{game}: {closed}")
            await asyncio.sleep(0.1)


opened: list[int] = []
reopened: list[str] = []


async def run(args: argparse.Namespace) -> dict[str, Any]:
    loadkit.raise_nofile()
    processes = loadkit.Processes()
    try:
        print(f"setting up {args.games} live games...", flush=True)
        setup = run_django("setup", games=args.games, prefix=args.prefix, moves=args.moves)
        port, server_pids = await loadkit.use_or_start_server(args, processes)
        worker = [sys.executable, "manage.py", "games_worker", "--no-reload", "--no-startup-delay"]
        workers = [processes.start(worker) for _ in range(args.task_workers)] + [
            processes.start([*worker, "--queue-name", "notifications"])
            for _ in range(args.notification_workers)
        ]
        over_at: dict[int, list[float]] = {entry["game"]: [] for entry in setup["games"]}
        watchers = [
            asyncio.create_task(watch(port, entry["game"], token, over_at))
            for entry in setup["games"]
            for token in entry["tokens"]
        ]
        deadline = time.monotonic() + 120
        while len(opened) < len(watchers):
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {len(opened)} of {len(watchers)} sockets opened")
            await asyncio.sleep(0.1)
        ids = "\n".join(str(entry["game"]) for entry in setup["games"])
        pids = {"server": server_pids, "task workers": [worker.pid for worker in workers]}
        cpu_before = {
            name: sum(loadkit.tree_cpu_seconds(pid) for pid in group)
            for name, group in pids.items()
        }
        loadavg_before = loadkit.loadavg()
        window_start = time.monotonic()
        clocks = run_django("clocks", stdin=ids, lead=args.lead, spread=args.spread)["flags"]
        await asyncio.wait_for(
            asyncio.gather(*watchers), timeout=args.lead + args.spread + args.timeout
        )
        window = time.monotonic() - window_start
        cpu = {
            name: round(sum(loadkit.tree_cpu_seconds(pid) for pid in group) - cpu_before[name], 2)
            for name, group in pids.items()
        }
        loadavg_after = loadkit.loadavg()
        report = run_django("report", stdin=ids)["games"]
    finally:
        processes.stop()

    ended, frames, wrong = [], [], []
    for game, flag in clocks.items():
        row = report[game]
        if (
            row["status"] != "finished"
            or row["reason"] != "timeout"
            or row["version"] != flag["version"] + 1
        ):
            wrong.append({"game": game, **row})
            continue
        ended.append(row["finished_at"] - flag["flag_at"])
        frames.append(max(over_at[int(game)]) - flag["flag_at"])
    return {
        "games": args.games,
        "task_workers": args.task_workers,
        "notification_workers": args.notification_workers,
        "spread_s": args.spread,
        "moves_before": args.moves,
        "poll_s": float(os.environ.get("GAMES_TIMERS_POLL_SECONDS", "0.2")),
        "backup_s": float(os.environ.get("GAMES_TIMERS_BACKUP_SECONDS", "0.15")),
        "flag_to_finished_at": loadkit.latency_summary(ended),
        "flag_to_both_players_frames": loadkit.latency_summary(frames),
        "early": sum(1 for value in ended if value < 0),
        "not_ended_once_on_time": wrong,
        "sockets_reopened": reopened,
        "window_s": round(window, 1),
        "cpu_s": cpu,
        "loadavg_before": loadavg_before,
        "loadavg_after": loadavg_after,
        "started_at": datetime.now().isoformat(timespec="seconds"),
    }


def main() -> None:
    if "--django" in sys.argv:
        django_main(sys.argv[1:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    loadkit.add_server_arguments(parser, daphne=False, prefix="bench-flags")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--task-workers", type=int, default=1, help="plain games_worker")
    parser.add_argument(
        "--notification-workers",
        type=int,
        default=1,
        help="games_worker --queue-name notifications",
    )
    parser.add_argument("--lead", type=float, default=5.0, help="seconds before the first flag")
    parser.add_argument("--spread", type=float, default=20.0, help="seconds the flags spread over")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds after the last flag")
    parser.add_argument("--moves", type=int, default=12, help="moves played before the flags")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args)), indent=2))


if __name__ == "__main__":
    main()
