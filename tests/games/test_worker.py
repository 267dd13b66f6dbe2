"""The task worker outlives database and Redis faults, and dead workers' tasks are taken over.

The process tests run `manage.py games_worker` in child processes against the test database
(fixtures in tests/games/conftest.py); the PostgreSQL ones are skipped on SQLite (CI runs them).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections, transaction
from django.db.utils import InterfaceError, OperationalError
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from greycircle.games import heartbeats, services, tasks
from greycircle.games.models import Game, Move, WorkerHeartbeat
from greycircle.games.services import SeatSpec
from greycircle.runtime import worker as worker_module
from greycircle.runtime.priority import niceness_default
from greycircle.runtime.supervision import Backoff
from greycircle.runtime.worker import TaskWorker, background_worker_start
from tests.factories import game_started
from tests.games.conftest import (
    WorkerProcess,
    computer_moved,
    computer_to_move,
    database_url,
    games_worker_in_process,
    wait_for,
)

needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL (DATABASE_URL); CI has it"
)
# Seconds any wait of these tests may take: what it waits for happens in well under a second on an
# idle machine; this is for a machine whose cores are busy, and a worker that never gets there
# still fails. Claims about time are made without the clock (SLOW_POLL, the stall period).
WITHIN = 60.0


def _worker_rows(worker_id: str):
    return [row for row in DBTaskResult.objects.all() if worker_id in row.worker_ids]


def _turns():
    """The task rows of computer turns (the queue also holds the players' notifications)."""
    return DBTaskResult.objects.filter(task_path=tasks.ai_turn_run.module_path)


def _worker_turns(worker_id: str):
    return [row for row in _turns() if worker_id in row.worker_ids]


# --- worker processes ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_turn_is_replaced_by_its_heartbeat_going_silent(alice, worker_process):
    """kill -9 of the worker thinking for a computer: another worker notices its heartbeat stop and
    plays the turn (the stall period, the last resort, is an hour here: it plays no part), and the
    dead worker's task row is marked failed."""
    no_stall_recovery = {"GAMES_AI_STALL_SECONDS": "3600"}
    slow = worker_process(env={"GAMES_AI_BUDGET_MS": "60000", **no_stall_recovery})
    game = computer_to_move(alice, level="hard")
    wait_for(
        lambda: any(
            row.status == TaskResultStatus.RUNNING for row in _worker_turns(slow.worker_id)
        ),
        timeout=WITHIN,
        message=slow.log,
    )
    (dead_row,) = _worker_turns(slow.worker_id)
    other = worker_process(env=no_stall_recovery)

    slow.kill()
    took = wait_for(computer_moved(game), timeout=WITHIN, message=other.log)

    print(f"computer moved {took:.2f} s after its first worker was killed")
    dead_row.refresh_from_db()
    assert dead_row.status == TaskResultStatus.FAILED
    assert dead_row.exception_class_path == heartbeats.WORKER_DIED
    assert slow.worker_id in dead_row.traceback
    assert other.alive()
    assert Move.objects.filter(game=game).count() == 2


@pytest.mark.django_db(transaction=True)
def test_notifications_are_delivered_while_computer_turns_keep_the_workers_busy(
    alice, bob, tictactoe, worker_process
):
    """The game's worker (every queue) thinks for a computer for a minute; a move between
    people meanwhile reaches its player's inbox through the notifications' own worker (with one
    queue it waited behind the computers: issue 21's 580 s)."""
    from greycircle.notifications.models import Notification
    from greycircle.notifications.tasks import NOTIFICATIONS_QUEUE

    busy = worker_process(env={"GAMES_AI_BUDGET_MS": "60000"})
    turn = computer_to_move(alice, level="hard")
    wait_for(
        lambda: any(
            row.status == TaskResultStatus.RUNNING for row in _worker_turns(busy.worker_id)
        ),
        timeout=WITHIN,
        message=busy.log,
    )
    notifier = worker_process(args=["--queue-name", NOTIFICATIONS_QUEUE])
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    services.move_submit(
        game_id=game.pk, user=alice, move={"cell": 4}, expected_version=game.version
    )

    took = wait_for(
        Notification.objects.filter(recipient=bob, kind="your_turn", game=game).exists,
        timeout=WITHIN,
        message=notifier.log,
    )

    print(f"your turn kept {took:.2f} s after the move, the computer still thinking")
    assert not computer_moved(turn)()  # the game's worker was busy all along
    assert [row.status for row in _worker_turns(busy.worker_id)] == [TaskResultStatus.RUNNING]
    assert {row.queue_name for row in _worker_rows(notifier.worker_id)} == {NOTIFICATIONS_QUEUE}


@pytest.mark.django_db(transaction=True)
def test_a_worker_of_the_computers_turns_yields_the_cpu(worker_process):
    """A worker of every queue lowers its CPU priority by 10, so that the notifications' workers
    (which keep theirs) and the servers get the CPU first: issue 21's soak, at one priority,
    starved the notifications beside the computers (p99 96 s)."""
    from greycircle.notifications.tasks import NOTIFICATIONS_QUEUE

    own = os.getpriority(os.PRIO_PROCESS, 0)
    computers = worker_process()

    assert os.getpriority(os.PRIO_PROCESS, computers.process.pid) == min(19, own + 10)
    assert niceness_default(queue_names=[NOTIFICATIONS_QUEUE]) == 0
    with pytest.raises(CommandError, match="never raises"):
        call_command("games_worker", "--nice=-1")


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_notification_that_fails_on_a_database_error_is_delivered_again(
    alice, bob, tictactoe, worker_process
):
    """The notifications' worker cannot keep bob's "your turn" (its lock is held elsewhere and
    its connection gives up waiting: a real database error): the task queues it again after a
    pause, logs one line, and the next attempt keeps it."""
    import psycopg

    from greycircle.notifications.models import Notification
    from greycircle.notifications.services import _int4
    from greycircle.notifications.tasks import NOTIFICATIONS_QUEUE, notifications_send

    notifier = worker_process(
        env={"GAMES_WORKER_RETRY_SECONDS": "0.2"},
        url=database_url(options="-c lock_timeout=200"),
        args=["--queue-name", NOTIFICATIONS_QUEUE],
    )
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    # Bob's invitation is kept first: held up behind the lock too, it would be the one that
    # fails (the log line below is the same), and "your turn" would get through on its first try.
    wait_for(
        lambda: (
            not DBTaskResult.objects.filter(
                task_path=notifications_send.module_path,
                status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING],
            ).exists()
        ),
        timeout=WITHIN,
        message=notifier.log,
    )
    params = connection.get_connection_params()
    for key in ("cursor_factory", "context"):
        params.pop(key, None)
    with psycopg.connect(**params, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s, %s)", [_int4(bob.pk), _int4(game.pk)])
        services.move_submit(
            game_id=game.pk, user=alice, move={"cell": 4}, expected_version=game.version
        )
        wait_for(
            lambda: "failed on a database error (attempt 1 of" in notifier.log(),
            timeout=WITHIN,
            message=notifier.log,
        )
        assert not Notification.objects.filter(recipient=bob, kind="your_turn").exists()
    took = wait_for(
        Notification.objects.filter(recipient=bob, kind="your_turn", game=game).exists,
        timeout=WITHIN,
        message=notifier.log,
    )

    print(f"your turn kept {took:.2f} s after the lock was released")
    attempts = DBTaskResult.objects.filter(task_path=notifications_send.module_path).filter(
        args_kwargs__args__0__0__user_id=bob.pk, args_kwargs__args__0__0__event="your_turn"
    )
    retried = [row for row in attempts if row.args_kwargs["kwargs"].get("attempt")]
    assert retried
    assert all(row.status == TaskResultStatus.SUCCESSFUL for row in attempts)
    assert notifier.log().count("failed on a database error") == len(retried)
    assert Notification.objects.filter(recipient=bob, kind="your_turn").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_worker_keeps_playing_while_redis_is_down(alice, worker_process):
    """Live updates cannot be published (Redis refuses connections): the moves are still made."""
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        dead_port = probe.getsockname()[1]
    worker = worker_process(env={"REDIS_URL": f"redis://127.0.0.1:{dead_port}/0"})

    for _ in range(2):
        game = computer_to_move(alice)
        wait_for(computer_moved(game), timeout=WITHIN, message=worker.log)
    # The players' notifications of those moves are tasks too: they end well though not sent.
    wait_for(
        lambda: (
            not DBTaskResult.objects.filter(
                status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING]
            ).exists()
        ),
        timeout=WITHIN,
        message=worker.log,
    )

    assert worker.alive()
    assert set(_status(worker.worker_id)) == {TaskResultStatus.SUCCESSFUL}


def _status(worker_id: str) -> list[str]:
    return [row.status for row in _worker_rows(worker_id)]


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_survives_its_database_connections_being_killed(alice, worker_process):
    """pg_terminate_backend on every connection of the worker, again and again for 2 s."""
    application_name = f"gc-worker-test-{time.monotonic_ns()}"
    worker = worker_process(
        env={"CONN_MAX_AGE": "60"},
        url=database_url(application_name=application_name),
    )
    game = computer_to_move(alice)
    wait_for(computer_moved(game), timeout=WITHIN, message=worker.log)

    terminated = 0
    until = time.monotonic() + 2
    while time.monotonic() < until and worker.alive():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = %s",
                [application_name],
            )
            terminated += sum(1 for (done,) in cursor.fetchall() if done)
        time.sleep(0.02)

    assert terminated > 0
    assert worker.alive(), worker.log()
    game = computer_to_move(alice)
    wait_for(computer_moved(game), timeout=WITHIN, message=worker.log)
    assert worker.alive()
    assert "database error" in worker.log()


class TcpProxy:
    """A TCP proxy in a thread (asyncio) that can refuse connections: `down()` closes the
    listening socket and cuts every open connection, `up()` listens again on the same port."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server: asyncio.AbstractServer | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        self.port = 0

    def _call(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=WITHIN)

    def up(self) -> None:
        async def listen() -> None:
            self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
            self.port = self.server.sockets[0].getsockname()[1]

        self._call(listen())

    def down(self) -> None:
        async def close() -> None:
            self.server.close()
            for writer in list(self.writers):
                writer.transport.abort()
            await self.server.wait_closed()

        self._call(close())

    def stop(self) -> None:
        if self.server is not None and self.server.is_serving():
            self.down()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=WITHIN)

    async def _serve(self, client_reader, client_writer) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection(*self.target)
        except OSError:
            client_writer.transport.abort()
            return
        self.writers |= {client_writer, server_writer}

        async def pipe(reader, writer) -> None:
            try:
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                writer.transport.abort()
                self.writers.discard(writer)

        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))


@pytest.fixture
def postgres_proxy():
    params = connection.settings_dict
    proxy = TcpProxy(params["HOST"] or "127.0.0.1", int(params["PORT"] or 5432))
    proxy.up()
    yield proxy
    proxy.stop()


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_survives_the_database_refusing_connections(alice, worker_process, postgres_proxy):
    """The database goes away for 5 s (connections cut, new ones refused), then comes back."""
    worker = worker_process(
        env={"CONN_MAX_AGE": "60"},
        url=database_url(host="127.0.0.1", port=postgres_proxy.port),
    )
    game = computer_to_move(alice)
    wait_for(computer_moved(game), timeout=WITHIN, message=worker.log)

    postgres_proxy.down()
    outage_ends = time.monotonic() + 5
    while time.monotonic() < outage_ends:
        assert worker.alive(), worker.log()
        time.sleep(0.1)
    postgres_proxy.up()

    game = computer_to_move(alice)
    took = wait_for(computer_moved(game), timeout=WITHIN, message=worker.log)
    print(f"computer moved {took:.2f} s after the database came back")
    assert worker.alive()
    log = worker.log()
    assert "database error" in log
    assert "working again" in log
    assert "Traceback" not in log


# --- in-process ------------------------------------------------------------------------------


def test_backoff_doubles_up_to_the_maximum_and_resets(settings):
    settings.GAMES_WORKER_RETRY_SECONDS = 0.5
    settings.GAMES_WORKER_RETRY_MAX_SECONDS = 10
    backoff = Backoff()
    assert [backoff.next_delay() for _ in range(7)] == [0.5, 1, 2, 4, 8, 10, 10]
    assert backoff.succeeded() is True
    assert backoff.next_delay() == 0.5


def _in_thread(worker: TaskWorker) -> threading.Thread:
    def run() -> None:
        try:
            worker.run()
        finally:
            connections.close_all()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _stop(worker: TaskWorker, thread: threading.Thread) -> None:
    worker.running = False
    worker.wake.set()
    thread.join(timeout=WITHIN)
    assert not thread.is_alive()


@pytest.mark.django_db(transaction=True)
def test_the_task_loop_outlives_database_errors(alice, tictactoe, settings, monkeypatch, caplog):
    settings.GAMES_WORKER_RETRY_SECONDS = 0.01
    failures = [OperationalError("server closed the connection"), InterfaceError("gone")] * 2
    claim_next = TaskWorker.claim_next

    def flaky(self):
        if failures:
            raise failures.pop()
        return claim_next(self)

    monkeypatch.setattr(TaskWorker, "claim_next", flaky)
    worker = games_worker_in_process()
    caplog.set_level(logging.WARNING, logger="greycircle.runtime.worker")
    thread = _in_thread(worker)
    try:
        game = computer_to_move(alice, kind="tictactoe", level="first")
        wait_for(computer_moved(game), timeout=WITHIN)
        assert thread.is_alive()
    finally:
        _stop(worker, thread)
    errors = [record for record in caplog.records if "database error" in record.getMessage()]
    assert len(errors) == 4
    assert not any(record.exc_info for record in errors)
    assert any("working again" in record.getMessage() for record in caplog.records)


@pytest.mark.django_db(transaction=True)
def test_a_task_whose_end_could_not_be_recorded_is_failed_and_its_turn_queued_again(
    alice, tictactoe, settings, monkeypatch
):
    """The database goes away just as a computer turn finishes: its row cannot be marked done.
    Once the database is back, the worker fails that row and queues the turn again."""
    settings.GAMES_WORKER_RETRY_SECONDS = 0.01
    outage = [OperationalError("the database system is shutting down")] * 2

    def recorder(record):
        def flaky(self, *args):
            if outage and self.task_path == tasks.ai_turn_run.module_path:
                raise outage.pop()
            return record(self, *args)

        return flaky

    monkeypatch.setattr(DBTaskResult, "set_successful", recorder(DBTaskResult.set_successful))
    monkeypatch.setattr(DBTaskResult, "set_failed", recorder(DBTaskResult.set_failed))
    game = computer_to_move(alice, kind="tictactoe", level="first")
    (first,) = _turns()
    worker = games_worker_in_process()
    thread = _in_thread(worker)
    try:
        wait_for(computer_moved(game), timeout=WITHIN)
        retried = _turns().exclude(pk=first.pk)
        wait_for(
            lambda: retried.filter(status=TaskResultStatus.SUCCESSFUL).exists(), timeout=WITHIN
        )
    finally:
        _stop(worker, thread)
    first.refresh_from_db()
    assert first.status == TaskResultStatus.FAILED
    assert "lost its database connection" in first.traceback
    assert _turns().count() == 2
    assert Move.objects.filter(game=game).count() == 2, "the turn queued again found it played"


@pytest.mark.django_db(transaction=True)
def test_tasks_of_a_silent_worker_are_failed_and_queued_again(alice, tictactoe):
    games = [
        computer_to_move(alice, kind="tictactoe", level="first"),
        computer_to_move(alice, kind="tictactoe", level="first"),
        computer_to_move(alice, kind="tictactoe", level="first"),
    ]
    rows = {row.args_kwargs["args"][0]: row for row in _turns()}
    dead, alive, unknown = (rows[game.pk] for game in games)
    for row, worker_id in ((dead, "dead"), (alive, "alive"), (unknown, "unknown")):
        row.claim(worker_id)
    long_ago = timezone.now() - timedelta(minutes=5)
    WorkerHeartbeat.objects.create(worker_id="dead", started_at=long_ago, beat_at=long_ago)
    heartbeats.heartbeat_beat(worker_id="alive")

    failed = heartbeats.dead_workers_reap(dead_after=timedelta(seconds=3))

    assert failed == [str(dead.pk)]
    dead.refresh_from_db()
    assert dead.status == TaskResultStatus.FAILED
    assert dead.exception_class_path == heartbeats.WORKER_DIED
    assert tasks.ai_turns_queued() == {(games[0].pk, games[0].version)}
    assert list(WorkerHeartbeat.objects.values_list("worker_id", flat=True)) == ["alive"]
    # Noticed twice (by two workers): failed and queued once.
    assert heartbeats.dead_workers_reap(dead_after=timedelta(seconds=3)) == []

    # A worker never seen: only after the stall period.
    stall = timedelta(seconds=30)
    assert heartbeats.unattended_tasks_fail(running_for=stall, dead_after=stall) == []
    DBTaskResult.objects.filter(pk=unknown.pk).update(started_at=long_ago)
    DBTaskResult.objects.filter(pk=alive.pk).update(started_at=long_ago)
    assert heartbeats.unattended_tasks_fail(running_for=stall, dead_after=stall) == [
        str(unknown.pk)
    ]
    assert DBTaskResult.objects.get(pk=alive.pk).status == TaskResultStatus.RUNNING


@pytest.mark.django_db(transaction=True)
def test_a_stalled_turn_still_in_the_queue_is_not_queued_again(alice, tictactoe):
    game = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )
    game = services.move_submit(
        game_id=game.pk, user=alice, move={"cell": 4}, expected_version=game.version
    )
    Game.objects.filter(pk=game.pk).update(updated_at=timezone.now() - timedelta(minutes=1))

    assert tasks.ai_turns_recover(stalled_for=timedelta(seconds=30)) == []
    assert _turns().count() == 1
    _turns().update(status=TaskResultStatus.FAILED)
    assert tasks.ai_turns_recover(stalled_for=timedelta(seconds=30)) == [game.pk]
    assert _turns().count() == 2


@pytest.mark.django_db(transaction=True)
def test_the_embedded_worker_plays_beats_and_stops(alice, tictactoe):
    """`manage.py serve` runs the same supervised worker in threads; its stop event ends them."""
    before = set(threading.enumerate())
    stop = background_worker_start(interval=0.02)
    started = set(threading.enumerate()) - before
    try:
        game = computer_to_move(alice, kind="tictactoe", level="first")
        wait_for(computer_moved(game), timeout=WITHIN)
        wait_for(
            lambda: WorkerHeartbeat.objects.filter(worker_id__startswith="embedded-").count() == 2,
            timeout=WITHIN,
        )
        # One worker for every queue, and the notifications' own (they never wait behind turns).
        assert sorted(worker.queue_names for worker in worker_module._running_workers) == [
            ["default", "notifications"],
            ["notifications"],
        ]
    finally:
        stop.set()
    for thread in started:
        thread.join(timeout=WITHIN)
        assert not thread.is_alive(), thread.name


# --- waking idle workers ---------------------------------------------------------------------

# Seconds between a worker's polls in these tests: longer than any test, so a turn that starts at
# all (within WITHIN) was started by a wake, never by a poll, however slow the machine.
SLOW_POLL = 3600.0


def _settle() -> None:
    """Leave an idle worker a moment to finish its last look at the queue and go into its pause,
    so that the next task must wake it. On a busy machine the moment may be too short: then that
    look finds the task and the test passes without the wake; it cannot fail because of it."""
    time.sleep(0.3)


@pytest.fixture
def slow_poll_worker(worker_process):
    """A factory: `slow_poll_worker(url=..., env=...)` starts `manage.py games_worker` polling
    every SLOW_POLL seconds, and waits until it runs. Killed before the database is flushed."""

    def start(*, url: str | None = None, env: dict[str, str] | None = None) -> WorkerProcess:
        return worker_process(url=url, env=env, interval=SLOW_POLL)

    return start


def _turn_started_after(game: Game) -> float:
    """Seconds from the queuing of `game`'s last computer turn to its start (database times)."""
    row = _turns().filter(args_kwargs__args=[game.pk, game.version]).get()
    return (row.started_at - row.enqueued_at).total_seconds()


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_an_idle_worker_is_woken_by_a_new_task(alice, slow_poll_worker):
    """The task table's trigger notifies the workers: a worker that polls once an hour starts a
    new computer turn at once (after its first look at the queue, every turn waits for a wake)."""
    worker = slow_poll_worker()
    wait_for(lambda: "listening on greycircle_tasks" in worker.log(), timeout=WITHIN)

    for _ in range(3):
        _settle()
        game = computer_to_move(alice)
        took = wait_for(computer_moved(game), timeout=WITHIN, interval=0.01, message=worker.log)
        started_after = _turn_started_after(game)
        print(
            f"turn started {started_after * 1000:.0f} ms after it was queued, moved in {took:.2f} s"
        )
        assert started_after < SLOW_POLL, worker.log()
    assert worker.alive()


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_the_listener_outlives_a_database_outage(alice, slow_poll_worker, postgres_proxy):
    """The database goes away for 3 s: the listener logs one line, listens again once it is
    back, and wakes its worker as before."""
    worker = slow_poll_worker(
        url=database_url(host="127.0.0.1", port=postgres_proxy.port),
        env={"GAMES_WORKER_RETRY_SECONDS": "0.1", "GAMES_WORKER_RETRY_MAX_SECONDS": "0.5"},
    )
    listener = f"task listener of worker {worker.worker_id}"
    wait_for(lambda: "listening on greycircle_tasks" in worker.log(), timeout=WITHIN)

    postgres_proxy.down()
    time.sleep(3)
    postgres_proxy.up()
    wait_for(
        lambda: f"{listener}: working again" in worker.log(), timeout=WITHIN, message=worker.log
    )

    _settle()
    game = computer_to_move(alice)
    took = wait_for(computer_moved(game), timeout=WITHIN, interval=0.01, message=worker.log)
    print(f"computer moved {took:.2f} s after its turn was queued, after the outage")
    log = worker.log()
    outage = [line for line in log.splitlines() if listener in line and "retrying" in line]
    assert len(outage) == 1, log
    assert "database error" in outage[0]
    assert "Traceback" not in log
    assert worker.alive()
    worker.kill()  # before the proxy stops: its connections end with the worker


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_the_listener_stops_with_its_worker():
    worker = games_worker_in_process("listening")
    thread = _in_thread(worker)

    def listeners() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "task-listener-listening"]

    try:
        wait_for(listeners, timeout=WITHIN)
        (listener,) = listeners()
    finally:
        _stop(worker, thread)
    listener.join(timeout=WITHIN)
    assert not listener.is_alive()


@pytest.mark.django_db(transaction=True)
def test_the_embedded_worker_is_woken_by_a_task_queued_in_its_process(
    alice, tictactoe, monkeypatch
):
    """In one process (any database, no notifications: the listener is off here), queuing a task
    wakes the process's own worker, which polls once an hour."""
    monkeypatch.setattr(TaskWorker, "listener_start", lambda self: None)
    stop = background_worker_start(interval=SLOW_POLL)
    try:
        wait_for(lambda: worker_module._running_workers, timeout=WITHIN)
        for _ in range(2):
            _settle()
            game = computer_to_move(alice, kind="tictactoe", level="first")
            took = wait_for(computer_moved(game), timeout=WITHIN, interval=0.01)
            print(f"computer moved {took * 1000:.0f} ms after its turn was queued")
    finally:
        stop.set()
    wait_for(lambda: not worker_module._running_workers, timeout=WITHIN)


def test_waking_without_a_worker_in_the_process_does_nothing(monkeypatch):
    monkeypatch.setattr(
        transaction, "on_commit", lambda *args, **kwargs: pytest.fail("no worker to wake")
    )
    assert not worker_module._running_workers
    worker_module.workers_wake()
