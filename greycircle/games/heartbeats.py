"""Which task workers are alive, and what happens to the tasks of those that are not.

Every worker process (`manage.py games_worker`, or the embedded worker of `manage.py serve`) keeps
a `WorkerHeartbeat` row and sets its `beat_at` to the database's clock every
GAMES_WORKER_HEARTBEAT_SECONDS (so clocks of different machines never matter). django-tasks-db
records the claiming worker's id as the last entry of a task row's `worker_ids`. A task row
still RUNNING whose worker has not beaten for GAMES_WORKER_DEAD_SECONDS belonged to a worker that
died (killed, machine lost, frozen): any live worker marks it FAILED with `WorkerDied` and queues
its computer turn again (`tasks.task_retry`), so another worker plays it within seconds.

Failing a row is a conditional update (`status` still RUNNING), so when several workers notice
the same dead one, exactly one of them fails each row and queues its turn again.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models.functions import Now
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from greycircle.games import tasks
from greycircle.games.models import WorkerHeartbeat

logger = logging.getLogger(__name__)


class WorkerDied(Exception):
    """Recorded as the error of a task whose worker stopped while running it."""


WORKER_DIED = f"{WorkerDied.__module__}.{WorkerDied.__qualname__}"


def heartbeat_beat(*, worker_id: str) -> None:
    """Record that the worker `worker_id` (this process) is alive now."""
    if WorkerHeartbeat.objects.filter(pk=worker_id).update(beat_at=Now()):
        return
    try:
        WorkerHeartbeat.objects.create(
            worker_id=worker_id,
            hostname=socket.gethostname()[:255],
            pid=os.getpid(),
            started_at=Now(),
            beat_at=Now(),
        )
    except IntegrityError:  # created meanwhile (a retried first beat): beat again
        WorkerHeartbeat.objects.filter(pk=worker_id).update(beat_at=Now())


def dead_workers_reap(*, dead_after: timedelta) -> list[str]:
    """Fail the running tasks of workers silent for `dead_after`, then forget those workers.

    Returns the ids of the task rows this call failed.
    """
    silent = set(
        WorkerHeartbeat.objects.filter(beat_at__lt=Now() - dead_after).values_list(
            "worker_id", flat=True
        )
    )
    if not silent:
        return []
    failed = _running_tasks_fail(
        lambda row, worker_id: worker_id in silent,
        reason=lambda worker_id: (
            f"worker {worker_id} stopped sending heartbeats for more than "
            f"{dead_after.total_seconds():g} s while running this task"
        ),
    )
    # A worker that was only frozen beats again and gets a new row.
    WorkerHeartbeat.objects.filter(worker_id__in=silent, beat_at__lt=Now() - dead_after).delete()
    return failed


def unattended_tasks_fail(*, running_for: timedelta, dead_after: timedelta) -> list[str]:
    """Fail the tasks running for `running_for` on workers with no recent heartbeat at all.

    The last resort for rows whose worker never beat (one that predates heartbeats, or one that
    claimed a task and died before its first beat); returns the ids of the rows failed.
    """
    started_before = timezone.now() - running_for
    alive = set(
        WorkerHeartbeat.objects.filter(beat_at__gte=Now() - dead_after).values_list(
            "worker_id", flat=True
        )
    )
    return _running_tasks_fail(
        lambda row, worker_id: (
            worker_id not in alive
            and row.started_at is not None
            and row.started_at < started_before
        ),
        reason=lambda worker_id: (
            f"worker {worker_id or '?'} has not been seen for {running_for.total_seconds():g} s "
            "while running this task"
        ),
    )


def worker_tasks_release(*, worker_id: str) -> list[str]:
    """Fail the rows still marked RUNNING by `worker_id`, which is running none of them.

    A worker calls this for itself after losing its database in the middle of a task: the task's
    row could not be marked finished, and nobody else would ever see it as dead.
    """
    return _running_tasks_fail(
        lambda row, running_on: running_on == worker_id,
        reason=lambda running_on: (
            f"worker {running_on} lost its database connection while running this task"
        ),
    )


def _running_tasks_fail(
    abandoned: Callable[[DBTaskResult, str], bool], *, reason: Callable[[str], str]
) -> list[str]:
    running = list(
        DBTaskResult.objects.running().only(
            "id", "status", "worker_ids", "started_at", "task_path", "args_kwargs"
        )
    )
    failed = []
    for row in running:
        worker_id = row.worker_ids[-1] if row.worker_ids else ""
        if not abandoned(row, worker_id):
            continue
        message = reason(worker_id)
        with transaction.atomic():
            won = (
                DBTaskResult.objects.filter(pk=row.pk, status=TaskResultStatus.RUNNING).update(
                    status=TaskResultStatus.FAILED,
                    finished_at=timezone.now(),
                    return_value=None,
                    exception_class_path=WORKER_DIED,
                    traceback=f"{WORKER_DIED}: {message}\n",
                )
                == 1
            )
            retried = won and tasks.task_retry(row)
        if won:
            failed.append(str(row.pk))
            logger.warning(
                "task %s (%s %s) failed: %s; %s",
                row.pk,
                row.task_path.rsplit(".", 1)[-1],
                row.args_kwargs.get("args", []),
                message,
                "queued again" if retried else "not retried",
            )
    return failed
