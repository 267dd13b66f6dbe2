"""Circles' background work, run by `manage.py games_worker` from the database queue."""

from __future__ import annotations

from django_tasks import task
from django_tasks_db.compat import TaskResultStatus

from circles import analysis_runs
from greycircle.games.tasks import BACKGROUND_PRIORITY

ANALYSIS_PRIORITY = BACKGROUND_PRIORITY
"""Background work: a computer's turn never waits for a worker behind an analysis (see
greycircle.games.tasks.BACKGROUND_PRIORITY)."""


@task(priority=ANALYSIS_PRIORITY)
def analysis_run(game_id: int) -> bool:
    """Analyse the next positions of game `game_id` (circles.analysis_runs); True when done."""
    return analysis_runs.analysis_continue(game_id=game_id, queue_next=analysis_enqueue)


def analysis_enqueue(*, game_id: int) -> None:
    analysis_run.enqueue(game_id)


def analysis_queued(*, game_id: int) -> bool:
    """Whether a run of `game_id`'s analysis is queued or running (else a pending analysis has
    lost its run: its worker died, say)."""
    from django_tasks_db.models import DBTaskResult  # a model: import once apps are loaded

    return DBTaskResult.objects.filter(
        task_path=analysis_run.module_path,
        status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING],
        args_kwargs__args=[game_id],
    ).exists()
