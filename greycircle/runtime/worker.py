"""The task worker: runs the durable task queue, in worker processes (`manage.py games_worker`) or
in background threads of the one server process of an embedded site (`manage.py serve`). It knows
no game: what it asks of the project (which failed tasks to queue again, what background work is,
where workers' heartbeats are kept) is registered as a `WorkerPolicy` from an app's `ready()`
(greycircle.games.worker), and its periodic sweeps as well (greycircle.runtime.sweeps).

Library seam (UPGRADING.md, "django-tasks-db"): django-tasks-db==0.13.0. `TaskWorker` subclasses
`django_tasks_db.management.commands.db_worker.Worker`: `_tasks_run` and `claim_next` are
near-copies of its loop and claim, using its attributes `batch`, `running`, `startup_delay`,
`interval`, `queue_names`, `process_all_queues`, `excluded_queue_names`, `max_tasks`, `_run_tasks`,
`backend_name`, `worker_id`, `run_task`, with `DBTaskResult.objects.ready()`, `get_locked()`,
`claim()`, and `django_tasks_db.utils.exclusive_transaction` / `is_locked_database_exception`. Why:
the library's loop ends on any database error (commit 1772493: workers now outlive PostgreSQL
restarts and refused connections), and background work claimed last by one worker at most kept
computer turns at 20 to 36 ms (median) instead of 1.2 to 1.8 s while 36 analyses ran
(bench/README.md, "Engine analyses and computer turns").

The embedded form exists because live updates travel through the channel layer: without Redis
that layer lives in one process's memory, so the computer's moves must be played in the process
that holds the players' sockets.

Supervision. A worker process runs four loops, each of which outlives any error
(greycircle.runtime.supervision):

- the task loop (`TaskWorker.run`) claims and runs queued tasks;
- the heartbeat loop (`heartbeat_forever`) records every GAMES_WORKER_HEARTBEAT_SECONDS that this
  worker is alive, and fails (and queues again) the tasks of workers that stopped beating (the
  policy's `heartbeat_beat` and `dead_workers_reap`: greycircle.games.heartbeats);
- the sweep loop (`sweeps_forever`) runs the periodic sweeps the apps registered from their
  `ready()` (greycircle.runtime.sweeps: the games' last resort for stalled computer turns,
  expired invitations and the time per move, greycircle.games.sweeps; the players gone from
  live games, greycircle.games.abandonment; the removal of idle guests);
- the clocks' loop (`timers_forever`) runs the timers the apps registered
  (greycircle.runtime.timers: the flags of live games' clocks, greycircle.games.flags) as each
  comes due, sleeping until then but never longer than GAMES_TIMERS_POLL_SECONDS. Every worker
  runs it: several loops racing for the same flag are made safe by the game's row lock (the
  first ends the game, the others find it ended), and a flag falls as long as any one worker is
  alive; on time if one of them kept its full CPU priority (a worker that lowered it is the
  backup, GAMES_TIMERS_BACKUP_SECONDS behind).

When the database (or anything else) fails, a loop logs one line, drops its connections and
tries again after a pause that starts at GAMES_WORKER_RETRY_SECONDS and doubles up to
GAMES_WORKER_RETRY_MAX_SECONDS; the first success logs that it is back and resets the pause.

Waking. An idle worker looks at the queue every `interval` seconds, and is woken at once when a
task is queued: on PostgreSQL a trigger on the task table sends NOTIFY greycircle_tasks (games
migration 0007), which each worker hears on a connection of its own (`TaskListener`); in any
database, a process that queues a task wakes its own running workers (`workers_wake`, called
where tasks are queued: the embedded site). The poll stays as the fallback: a missed notification
costs at most one interval.

Queues. Tasks are claimed by priority within the queues a worker runs (computer turns first). A
worker runs every queue by default (`manage.py games_worker`); a worker of one queue
(`--queue-name notifications`) runs nothing else, so that queue's tasks never wait behind
another's: the embedded site runs one worker for all queues and one for each queue besides
"default" (settings.TASKS's QUEUES).

Background work (the policy's `task_is_background`) is claimed last, and only when the policy's
`background_slot_free` says so (`TaskWorker.claim_next`); the rest of the workers stay free for
the computers' turns.

CPU priority: a worker of the computers' turns lowers its own (greycircle.runtime.priority;
`manage.py games_worker --nice N`).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connections, router, transaction
from django.db.utils import OperationalError
from django.utils import timezone
from django.utils.crypto import get_random_string
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import exclusive_transaction, is_locked_database_exception

from greycircle.runtime.priority import niceness_lowered
from greycircle.runtime.supervision import (
    Backoff,
    connections_drop,
    failure_log,
    supervised_forever,
)
from greycircle.runtime.sweeps import SweepSchedule, sweeps_round
from greycircle.runtime.timers import TimerRound

logger = logging.getLogger(__name__)


# --- settings, read when used ----------------------------------------------------------------


def heartbeat_interval() -> float:
    return float(settings.GAMES_WORKER_HEARTBEAT_SECONDS)


def dead_after() -> timedelta:
    """How long a worker may stay silent before its tasks are taken for dead."""
    # Never less than two beats: one late beat must not kill a live worker's task.
    return timedelta(
        seconds=max(float(settings.GAMES_WORKER_DEAD_SECONDS), 2 * heartbeat_interval())
    )


# --- what the project tells the worker ---------------------------------------------------------


def _never(*args: Any, **kwargs: Any) -> bool:
    return False


def _always(*args: Any, **kwargs: Any) -> bool:
    return True


def _nothing(*args: Any, **kwargs: Any) -> list[str]:
    return []


@dataclass(frozen=True)
class WorkerPolicy:
    """What the worker asks of the project, each a keyword-only function; by default it retries
    nothing, sees no background work and keeps no heartbeat."""

    task_retry: Callable[..., bool] = _never
    """`(row, *, delay)`: queue again the task of a row that failed on a database error, to run
    after `delay` seconds, if running it twice is harmless; True if queued."""
    task_is_background: Callable[..., bool] = _never
    """`(row)`: whether the row is background work, claimed only when `background_slot_free`."""
    background_slot_free: Callable[..., bool] = _always
    """`(*, using)`: whether a background task may start now, asked in the claim's transaction."""
    heartbeat_beat: Callable[..., object] = _nothing
    """`(*, worker_id)`: record that this worker is alive now."""
    dead_workers_reap: Callable[..., list[str]] = _nothing
    """`(*, dead_after)`: fail (and queue again) the tasks of workers silent for `dead_after`;
    the ids of the rows failed."""
    worker_tasks_release: Callable[..., object] = _nothing
    """`(*, worker_id)`: fail the rows still marked running by this worker, which runs none (its
    database went away before a task's end was recorded)."""


_policy = WorkerPolicy()


def worker_policy_register(policy: WorkerPolicy) -> None:
    """Set what every worker of this process asks of the project (from an app's `ready()`)."""
    global _policy
    _policy = policy


def worker_policy() -> WorkerPolicy:
    return _policy


# --- the task loop ---------------------------------------------------------------------------


class TaskWorker(Worker):
    """django-tasks-db's worker, made to outlive database errors.

    The library's loop ends on any database error (a restarted server, a dropped connection,
    a database refusing connections for a few seconds). This loop logs it, drops its connection,
    waits (backoff) and goes on. Should a task's result fail to be recorded, the worker fails its
    own leftover rows once the database is back (the policy's `worker_tasks_release`), and their
    computer turns are queued again. A task that itself failed on a database error is queued
    again if the policy's `task_retry` takes it, to run after GAMES_WORKER_RETRY_SECONDS.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        # Set to cut the pause between polls short (a task was queued, or a dead worker's task
        # was queued again).
        self.wake = threading.Event()

    def run(self) -> None:
        """Run tasks until stopped, woken by new tasks (`TaskListener`, `workers_wake`)."""
        listener = None if self.batch else self.listener_start()
        with _running_lock:
            _running_workers.add(self)
        try:
            self._tasks_run()
        finally:
            with _running_lock:
                _running_workers.discard(self)
            if listener is not None:
                listener.stop.set()

    def listener_start(self) -> TaskListener | None:
        """Listen for new tasks in a thread, on PostgreSQL; None on other databases."""
        alias = router.db_for_read(DBTaskResult)
        if connections[alias].vendor != "postgresql":
            return None
        listener = TaskListener(worker_id=self.worker_id, wake=self.wake, alias=alias)
        listener.start()
        return listener

    def _tasks_run(self) -> None:
        logger.info(
            "Starting worker worker_id=%s queues=%s", self.worker_id, ",".join(self.queue_names)
        )
        if self.startup_delay and self.interval:
            time.sleep(random.random())
        backoff = Backoff()
        release_needed = False
        while self.running:
            try:
                if release_needed:
                    _policy.worker_tasks_release(worker_id=self.worker_id)
                    release_needed = False
                task_result, retrieved = self.claim_next()
                if backoff.succeeded():
                    logger.warning("task worker %s: working again", self.worker_id)
                if task_result is not None:
                    release_needed = True  # until its result is recorded
                    self.run_task(task_result)
                    release_needed = False
            except Exception as error:
                if self.batch:
                    raise
                delay = backoff.next_delay()
                failure_log(
                    f"task worker {self.worker_id}", error, delay=delay, failures=backoff.failures
                )
                connections_drop()
                self.pause(delay)
                continue

            if self.batch and retrieved and task_result is None:
                logger.info("No more tasks to run for worker_id=%s - exiting.", self.worker_id)
                return
            if self.max_tasks is not None and self._run_tasks >= self.max_tasks:
                logger.info(
                    "Ran %d tasks on worker_id=%s - exiting.", self._run_tasks, self.worker_id
                )
                return
            close_old_connections()
            if self.running and task_result is None:
                self.pause(self.interval)

    def pause(self, seconds: float) -> None:
        # Event.wait, like time.sleep, lets a signal handler (shutdown) run in the main thread.
        if self.wake.wait(seconds):
            self.wake.clear()

    def claim_next(self) -> tuple[DBTaskResult | None, bool]:
        """Claim the next ready task; `(task or None, whether the queue could be read)`."""
        close_old_connections()
        ready = DBTaskResult.objects.ready().filter(backend_name=self.backend_name)
        if not self.process_all_queues:
            ready = ready.filter(queue_name__in=self.queue_names)
        if self.excluded_queue_names:
            ready = ready.exclude(queue_name__in=self.excluded_queue_names)
        with exclusive_transaction(ready.db):
            try:
                task_result = ready.get_locked()
            except OperationalError as error:
                if is_locked_database_exception(error):  # SQLite busy: try again next time
                    return None, False
                raise
            if (
                task_result is not None
                and _policy.task_is_background(task_result)
                and not _policy.background_slot_free(using=ready.db)
            ):
                # The queue's order puts background work last: nothing else is ready either.
                task_result = None
            if task_result is not None:
                task_result.claim(self.worker_id)
        return task_result, True

    def run_task(self, db_task_result: DBTaskResult) -> None:
        super().run_task(db_task_result)
        if (
            db_task_result.status == TaskResultStatus.FAILED
            and db_task_result.exception_class_path in CONNECTION_ERRORS
        ):
            # The database failed under the task and is back (its failure was recorded): run it
            # again soon (a computer's turn) rather than leave it to the stall sweep.
            delay = float(settings.GAMES_WORKER_RETRY_SECONDS)
            if _policy.task_retry(db_task_result, delay=delay):
                logger.warning(
                    "task %s failed on a database error; queued again", db_task_result.pk
                )


# Errors of the connection rather than of the query: running the task again may well succeed.
CONNECTION_ERRORS = frozenset(
    f"django.db.utils.{name}" for name in ("OperationalError", "InterfaceError")
)


# --- waking idle workers ---------------------------------------------------------------------

# The channel of games migration 0007's trigger: every insert into the task table notifies it.
TASKS_CHANNEL = "greycircle_tasks"

# This process's running workers (`TaskWorker.run`), woken by `workers_wake`.
_running_workers: set[TaskWorker] = set()
_running_lock = threading.Lock()


def workers_wake() -> None:
    """Wake this process's running workers (the embedded site's) once the current transaction,
    if any, commits: they claim a task just queued at once rather than at their next poll.

    Costs one set lookup in a process that runs no worker.
    """
    if not _running_workers:
        return
    transaction.on_commit(_running_workers_wake, using=router.db_for_write(DBTaskResult))


def _running_workers_wake() -> None:
    with _running_lock:
        workers = list(_running_workers)
    for worker in workers:
        worker.wake.set()


class TaskListener:
    """Sets a worker's `wake` on every NOTIFY greycircle_tasks, in a daemon thread, on a
    PostgreSQL connection of its own (autocommit, outside Django's connection handling), until
    `stop` is set.

    It outlives database outages like the other loops: one line when its connection fails,
    reconnection with backoff, one line when it listens again. Each time it starts listening it
    wakes the worker once, for the tasks queued while it was not listening. Behind a pooler in
    transaction mode (pgbouncer) LISTEN hears nothing and the worker falls back to its poll.
    """

    # How often the wait for notifications looks whether to stop.
    STOP_CHECK_SECONDS = 0.5

    def __init__(self, *, worker_id: str, wake: threading.Event, alias: str = "default") -> None:
        self.worker_id = worker_id
        self.wake = wake
        self.stop = threading.Event()
        params = connections[alias].get_connection_params()
        for key in ("cursor_factory", "context"):  # Django's, for its own connections
            params.pop(key, None)
        params.setdefault("connect_timeout", 10)
        # A connection cut without a word (a host gone) is noticed within about a minute.
        for key, value in (
            ("keepalives", 1),
            ("keepalives_idle", 30),
            ("keepalives_interval", 10),
            ("keepalives_count", 3),
        ):
            params.setdefault(key, value)
        self.params = params
        self.thread = threading.Thread(
            target=self.run, name=f"task-listener-{worker_id}", daemon=True
        )

    def start(self) -> None:
        self.thread.start()

    def run(self) -> None:
        import psycopg

        what = f"task listener of worker {self.worker_id}"
        backoff = Backoff()
        listened = False
        while not self.stop.is_set():
            try:
                with psycopg.connect(**self.params, autocommit=True) as conn:
                    conn.execute(f"LISTEN {TASKS_CHANNEL}")
                    self.wake.set()  # for the tasks queued while nobody listened
                    if backoff.succeeded():
                        logger.warning("%s: working again", what)
                    elif not listened:
                        logger.info("%s: listening on %s", what, TASKS_CHANNEL)
                    listened = True
                    while not self.stop.is_set():
                        for _notify in conn.notifies(timeout=self.STOP_CHECK_SECONDS):
                            self.wake.set()
            except Exception as error:
                if self.stop.is_set():
                    break
                delay = backoff.next_delay()
                if backoff.failures == 1:  # one line per outage
                    failure_log(what, error, delay=delay, failures=backoff.failures)
                self.stop.wait(delay)


# --- the heartbeat and stall loops -----------------------------------------------------------


def heartbeat_forever(
    *, worker_id: str, stop: threading.Event, wake: threading.Event | None = None
) -> None:
    """Beat for `worker_id` and fail the tasks of dead workers, until `stop`.

    `wake` is set when a dead worker's task was queued again, so this process's worker looks at
    the queue at once.
    """

    def step() -> None:
        _policy.heartbeat_beat(worker_id=worker_id)
        if _policy.dead_workers_reap(dead_after=dead_after()) and wake is not None:
            wake.set()

    supervised_forever(
        f"heartbeat of worker {worker_id}", step, interval=heartbeat_interval, stop=stop
    )


def sweeps_forever(stop: threading.Event) -> None:
    """Run the apps' registered sweeps (`greycircle.runtime.sweeps`) as each falls due, until
    `stop`; a round that fails is tried again with backoff."""
    schedule = SweepSchedule()

    def step() -> None:
        close_old_connections()
        sweeps_round(schedule)
        close_old_connections()

    stop.wait(schedule.wait())
    supervised_forever("periodic sweeps", step, interval=schedule.wait, stop=stop)


def timers_poll() -> float:
    return float(settings.GAMES_TIMERS_POLL_SECONDS)


def timers_behind() -> timedelta:
    """How far behind the clock this process runs its timers: GAMES_TIMERS_BACKUP_SECONDS if it
    lowered its priority, so that workers at full priority take them first (timers.py)."""
    if not niceness_lowered():
        return timedelta(0)
    return timedelta(seconds=float(settings.GAMES_TIMERS_BACKUP_SECONDS))


def timers_forever(stop: threading.Event) -> None:
    """Run the apps' registered timers (`greycircle.runtime.timers`) as each comes due, until
    `stop`; a round that fails is tried again with backoff."""
    behind = timers_behind()
    timers = TimerRound(now=lambda: timezone.now() - behind, poll=timers_poll)

    def step() -> None:
        close_old_connections()
        timers.step()

    supervised_forever("clocks", step, interval=lambda: timers.wait, stop=stop)


def supervision_start(*, worker: TaskWorker, stop: threading.Event) -> None:
    """Start the heartbeat, sweep and clock loops of `worker`'s process in daemon threads."""
    heartbeat_start(worker=worker, stop=stop)
    threading.Thread(target=sweeps_forever, args=(stop,), name="worker-sweeps", daemon=True).start()
    threading.Thread(target=timers_forever, args=(stop,), name="worker-clocks", daemon=True).start()


def heartbeat_start(*, worker: TaskWorker, stop: threading.Event) -> None:
    """Start the heartbeat loop of `worker` in a daemon thread (each worker beats its own)."""
    threading.Thread(
        target=heartbeat_forever,
        kwargs={"worker_id": worker.worker_id, "stop": stop, "wake": worker.wake},
        name="worker-heartbeat",
        daemon=True,
    ).start()


def tasks_run_forever(worker: Worker) -> None:
    """Run `worker` until it is stopped (`worker.running` False), starting it again should it
    ever leave its loop on an error."""
    backoff = Backoff()
    while worker.running:
        try:
            worker.run()
        except Exception as error:
            delay = backoff.next_delay()
            failure_log("task worker", error, delay=delay, failures=backoff.failures)
        else:
            backoff.succeeded()
            delay = 1.0
        connections_drop()
        if worker.running:
            time.sleep(delay)
    connections.close_all()


def task_queues() -> list[str]:
    """The queues of the task backend (settings.TASKS), "default" first."""
    queues = list(settings.TASKS["default"].get("QUEUES") or ["default"])
    return sorted(queues, key=lambda name: name != "default")


def background_worker_start(*, interval: float = 0.2) -> threading.Event:
    """Run the task queue, heartbeats, the periodic sweeps and the clocks' loop in daemon threads
    of this process: one worker for every queue, and one of its own for each queue besides
    "default" (see "Queues" in the module).

    Returns the event that stops them: setting it lets a task being run finish, and then no
    other starts (the threads are daemons: a process that exits without setting it leaves its
    task to the other workers, who see its heartbeat stop).
    """
    stop = threading.Event()
    queues = task_queues()
    pools = [queues] + [[name] for name in queues if name != "default"]
    workers = [
        TaskWorker(
            queue_names=names,
            interval=interval,
            batch=False,
            backend_name="default",
            startup_delay=False,
            max_tasks=None,
            worker_id=f"embedded-{get_random_string(12)}",
            excluded_queue_names=[],
        )
        for names in pools
    ]

    def stop_workers() -> None:
        stop.wait()
        for worker in workers:
            worker.running = False
            worker.wake.set()

    for worker in workers:
        threading.Thread(
            target=tasks_run_forever, args=(worker,), name="task-worker", daemon=True
        ).start()
    threading.Thread(target=stop_workers, name="task-worker-stop", daemon=True).start()
    supervision_start(worker=workers[0], stop=stop)
    for worker in workers[1:]:
        heartbeat_start(worker=worker, stop=stop)
    return stop
