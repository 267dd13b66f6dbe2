"""Fixtures and helpers of the games tests: real task worker processes, refusals, live events.

`worker_process` starts `manage.py games_worker` in a child process. The child reaches the test
database through DATABASE_URL (a file for SQLite, the test database of the PostgreSQL server), so
tests that use it need `@pytest.mark.django_db(transaction=True)`: the worker only sees committed
data. Every child is killed before the test's database is flushed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote

import pytest
from django.db import connection
from django.utils.crypto import get_random_string

from greycircle.games import registry, services
from greycircle.games.errors import GameError
from greycircle.games.models import Game
from greycircle.games.services import SeatSpec
from greycircle.runtime.worker import TaskWorker
from tests.factories import accept_invitations, game_started, let_anyone_invite

BASE_DIR = Path(__file__).resolve().parents[2]
WORKER_START_TIMEOUT = 60.0


def database_url(*, host: str | None = None, port: int | None = None, **options: str) -> str:
    """DATABASE_URL of the test database, as a child process must see it.

    `host`/`port` reroute a PostgreSQL connection (through a proxy); `options` become connection
    options (`application_name=...`).
    """
    params = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{params['NAME']}"
    assert connection.vendor == "postgresql", connection.vendor
    user = quote(params["USER"] or "", safe="")
    password = quote(params["PASSWORD"] or "", safe="")
    url = (
        f"postgres://{user}:{password}@{host or params['HOST'] or '127.0.0.1'}:"
        f"{port or params['PORT'] or 5432}/{params['NAME']}"
    )
    if options:
        url += "?" + "&".join(f"{key}={quote(value)}" for key, value in options.items())
    return url


@dataclass
class WorkerProcess:
    worker_id: str
    process: subprocess.Popen
    log_path: Path
    started_at: float = field(default_factory=time.monotonic)

    def alive(self) -> bool:
        return self.process.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_started(self, timeout: float = WORKER_START_TIMEOUT) -> None:
        """Wait until the worker's loop runs (it logs "Starting worker")."""
        deadline = time.monotonic() + timeout
        while "Starting worker" not in self.log():
            assert self.alive(), f"worker {self.worker_id} exited:\n{self.log()}"
            assert time.monotonic() < deadline, f"worker did not start:\n{self.log()}"
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: the worker dies without a chance to record anything."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


@pytest.fixture
def worker_process(transactional_db, tmp_path) -> Iterator[Callable[..., WorkerProcess]]:
    """A factory: `worker_process(env={...}, url=..., interval=..., args=[...])` starts `manage.py
    games_worker` (polling every `interval` seconds, 0.1 by default; `args` adds to its options).

    `env` adds to the child's environment (settings are read from it: GAMES_AI_BUDGET_MS, ...).
    Depends on `transactional_db`, so the children are gone before the database is flushed.
    """
    started: list[WorkerProcess] = []

    def start(
        *,
        env: dict[str, str] | None = None,
        url: str | None = None,
        wait: bool = True,
        interval: float = 0.1,
        args: Sequence[str] = (),
    ) -> WorkerProcess:
        worker_id = f"test-{len(started)}-{get_random_string(8)}"
        child_env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "greycircle.settings",
            "DATABASE_URL": url or database_url(),
            "PYTHONUNBUFFERED": "1",
            "GAMES_AI_BUDGET_MS": "50",
            **(env or {}),
        }
        log_path = tmp_path / f"{worker_id}.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "manage.py",
                    "games_worker",
                    "--no-reload",
                    "--no-startup-delay",
                    f"--interval={interval}",
                    f"--worker-id={worker_id}",
                    *args,
                ],
                cwd=BASE_DIR,
                env=child_env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        worker = WorkerProcess(worker_id=worker_id, process=process, log_path=log_path)
        started.append(worker)
        if wait:
            worker.wait_started()
        return worker

    yield start

    for worker in started:  # nothing to wait for: a test's workers may die any way they like
        if worker.alive():
            worker.kill()


class Refusal(NamedTuple):
    """Why a service refused: compares equal to `(code, detail)`."""

    code: str
    detail: str


def refusal(error_class: type[GameError], call: Callable[..., object], **kwargs) -> Refusal:
    """`call(**kwargs)` must raise `error_class`; its code and detail."""
    with pytest.raises(error_class) as refused:
        call(**kwargs)
    return Refusal(refused.value.code, refused.value.detail)


@pytest.fixture
def notifications(monkeypatch) -> list[tuple[int, str, dict]]:
    """The live events the games services send, as (user id, event, data), which the task
    worker sends (`delivery.notifications_publish`: run `deliver_notifications()` first)."""
    sent: list[tuple[int, str, dict]] = []
    monkeypatch.setattr(
        "greycircle.notifications.delivery.notifications_publish",
        lambda *, news: sent.extend(
            (item["user_id"], item["event"], item["data"]) for item in news
        ),
    )
    return sent


def computer_to_move(user, *, kind: str = "circles", level: str = "easy", ai_seat: int = 1) -> Game:
    """A new game of `user` against a computer, with the computer to move (its turn queued)."""
    game = services.game_create(creator=user, kind=kind, opponents=[SeatSpec(ai_level=level)])
    if game.to_move != ai_seat:
        rules = registry.get(kind).rules
        move = rules.legal_moves(rules.decode(game.state))[0]
        game = services.move_submit(
            game_id=game.pk,
            user=user,
            move=rules.move_to_json(move),
            expected_version=game.version,
        )
    assert game.to_move == ai_seat
    return game


def wait_for(
    condition: Callable[[], object],
    *,
    timeout: float,
    interval: float = 0.05,
    message: Callable[[], str] = lambda: "",
) -> float:
    """Poll `condition` until it is true; the seconds it took. Fails after `timeout`."""
    start = time.monotonic()
    while not condition():
        elapsed = time.monotonic() - start
        if elapsed > timeout:
            pytest.fail(f"not within {timeout} s. {message()}")
        time.sleep(interval)
    return time.monotonic() - start


def computer_moved(game: Game) -> Callable[[], bool]:
    """A condition: the computer has played its turn in `game` (the game moved past it)."""
    version = game.version
    return lambda: Game.objects.filter(pk=game.pk, version__gt=version).exists()


@pytest.fixture
def game(alice, bob, client_for) -> dict:
    """A tic-tac-toe game in play between alice (seat 0, to move) and bob, as alice's envelope
    from the API. Modules with a game of their own override it."""
    let_anyone_invite(bob)
    response = client_for(alice).post(
        "/api/v1/games/", {"kind": "tictactoe", "seats": [{"user": "bob"}]}, format="json"
    )
    assert response.status_code == 201, response.json()
    accept_invitations(response.json()["id"])
    return client_for(alice).get(f"/api/v1/games/{response.json()['id']}/").json()


def games_worker_in_process(worker_id: str = "in-process") -> TaskWorker:
    """A task worker to run in the test's own process (every queue, as `games_worker` by default):
    polls every 20 ms, one task at a time."""
    return TaskWorker(
        queue_names=["*"],
        interval=0.02,
        batch=False,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id=worker_id,
        excluded_queue_names=[],
    )


def live_past_first_turns(*, creator, opponent, time_control) -> Game:
    """A tic-tac-toe game between `creator` and `opponent` at `time_control` (a
    `clocks.TimeControl`), both players' first moves played (cells 0 and 4): `creator` is to
    move, its clock running."""
    game = game_started(
        creator=creator,
        kind="tictactoe",
        opponents=[SeatSpec(user=opponent)],
        time_control=time_control,
    )
    for user, cell in ((creator, 0), (opponent, 4)):
        game = services.move_submit(
            game_id=game.pk, user=user, move={"cell": cell}, expected_version=game.version
        )
    return Game.objects.with_seats().get(pk=game.pk)
