"""Durable background work for games, run by `manage.py games_worker` from the database queue."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from django.db import connections
from django.db.models import F
from django.utils import timezone
from django.utils.module_loading import import_string
from django_tasks import task
from django_tasks_db.compat import TaskResultStatus

from greycircle.games import services
from greycircle.games.models import Game, GameStatus
from greycircle.runtime.worker import workers_wake

if TYPE_CHECKING:
    from django_tasks_db.models import DBTaskResult


@task()
def ai_turn_run(game_id: int, version: int) -> bool:
    """Play the computer's turn in `game_id` if the game is still at `version`."""
    return services.ai_take_turn(game_id=game_id, expected_version=version)


def ai_turn_enqueue(*, game_id: int, version: int) -> None:
    ai_turn_run.enqueue(game_id, version)
    # This process's task workers (the embedded site's), if it runs any, claim it now rather than
    # at their next poll; those of other processes are woken by the database (PostgreSQL's
    # NOTIFY) or poll.
    workers_wake()


def computer_to_move_received(
    sender: object, *, game_id: int, version: int, **kwargs: object
) -> None:
    """`changes.computer_to_move`'s receiver: queue the computer's turn."""
    ai_turn_enqueue(game_id=game_id, version=version)


def ai_turns_recover(*, stalled_for: timedelta) -> list[int]:
    """Queue again every computer turn that has waited longer than `stalled_for`.

    The last resort when a turn's task was lost (its row deleted, a worker that died before
    heartbeats noticed it, a publish that hung). A turn whose task still waits in the queue is
    left alone: queuing it again would only pile up copies while no worker runs.
    """
    cutoff = timezone.now() - stalled_for
    stalled = list(
        Game.objects.filter(
            status=GameStatus.ACTIVE,
            updated_at__lt=cutoff,
            seats__index=F("to_move"),
            seats__ai_level__gt="",
        ).values_list("pk", "version")
    )
    if not stalled:
        return []
    queued = ai_turns_queued()
    requeued = []
    for game_id, version in stalled:
        if (game_id, version) not in queued:
            ai_turn_enqueue(game_id=game_id, version=version)
            requeued.append(game_id)
    return requeued


def ai_turns_queued() -> set[tuple[int, int]]:
    """`(game_id, version)` of every computer turn waiting in the queue (not yet started)."""
    from django_tasks_db.models import DBTaskResult  # a model: import once apps are loaded

    rows = DBTaskResult.objects.filter(
        status=TaskResultStatus.READY, task_path=ai_turn_run.module_path
    ).values_list("args_kwargs", flat=True)
    return {tuple(row["args"]) for row in rows if len(row.get("args", ())) == 2}


def task_retry(row: DBTaskResult, *, delay: float = 0) -> bool:
    """Queue again the task of `row` (to run after `delay` seconds), if running it twice is
    harmless; True if queued.

    Computer turns are retried (`ai_turn_run` checks the game's version, so a turn that was in
    fact played is not played again), background work, which must be harmless to run twice
    (an analysis run that finds its positions saved by another drops its own), and the tasks of
    the notifications queue, which apply each event at most once and count their `attempt`s
    (greycircle.notifications.tasks: bounded, it gives up past its last). Other tasks (e-mail)
    are left failed.
    """
    kwargs = dict(row.args_kwargs["kwargs"])
    if row.task_path == ai_turn_run.module_path:
        task = ai_turn_run
    elif row.priority <= BACKGROUND_PRIORITY:
        task = import_string(row.task_path)
    elif row.queue_name == NOTIFICATIONS_QUEUE:
        task = import_string(row.task_path)
        kwargs["attempt"] = kwargs.get("attempt", 0) + 1
    else:
        return False
    if delay:
        task = task.using(run_after=timezone.now() + timedelta(seconds=delay))
    task.enqueue(*row.args_kwargs["args"], **kwargs)
    return True


# The queue of the players' notifications (greycircle.notifications.tasks, which this app may not
# import: named, not imported).
NOTIFICATIONS_QUEUE = "notifications"


# --- background work -------------------------------------------------------------------------

BACKGROUND_PRIORITY = -10
"""Tasks at this priority or below are background work (the game apps' engine analyses): each
must be harmless to run twice (a dead worker's is queued again, `task_retry`), and none keeps a
computer's turn waiting for a worker: a worker takes one only when no other task is ready (the
queue's order), at most `BACKGROUND_RUNNING_MAX` run at once across all workers
(`background_slot_free`, checked as a worker claims one), and each gives its worker back once
another task has waited `BACKGROUND_YIELD_SECONDS` (`foreground_waiting`: no other worker took
it), queueing itself again to go on later. Under more load than the workers can take, background
work waits (bench/README.md, "Engine analyses")."""
BACKGROUND_RUNNING_MAX = 1
"""Background tasks running at once across all workers: the others stay free for the computers'
turns, and the cores mostly so."""
BACKGROUND_YIELD_SECONDS = 0.1
"""A task waiting this long found no idle worker: a background task then gives its worker up. (A
task just queued is taken at once by an idle worker, if there is one: yielding to it at once would
starve background work whenever anybody plays.)"""
# The PostgreSQL advisory lock that makes claiming background tasks one at a time, so two
# workers cannot both take the last free slot.
_BACKGROUND_LOCK = 0x6763_6267  # "gcbg"


def task_is_background(row: DBTaskResult) -> bool:
    return row.priority <= BACKGROUND_PRIORITY


def background_slot_free(*, using: str) -> bool:
    """Whether a background task may start now; call it in the transaction that claims one (the
    slot is held once the claim commits, and nobody else counts until then)."""
    from django_tasks_db.models import DBTaskResult  # a model: import once apps are loaded

    connection = connections[using]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_BACKGROUND_LOCK])
    # (SQLite: the claim's transaction is exclusive already.)
    running = (
        DBTaskResult.objects.using(using)
        .filter(status=TaskResultStatus.RUNNING, priority__lte=BACKGROUND_PRIORITY)
        .count()
    )
    return running < BACKGROUND_RUNNING_MAX


def foreground_waiting() -> bool:
    """Whether a task above the background's priority (a computer's turn, notifications) has
    waited `BACKGROUND_YIELD_SECONDS` for a worker: a running background task then stops and
    queues itself again."""
    from django_tasks_db.models import DBTaskResult  # a model: import once apps are loaded

    waited = timezone.now() - timedelta(seconds=BACKGROUND_YIELD_SECONDS)
    return (
        DBTaskResult.objects.ready()
        .filter(priority__gt=BACKGROUND_PRIORITY, enqueued_at__lte=waited)
        .exists()
    )
