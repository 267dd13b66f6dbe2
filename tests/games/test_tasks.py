"""Background work (`greycircle.games.tasks.BACKGROUND_PRIORITY`, the game apps' analyses): it
comes after every other task, takes one worker at most, gives way to a task no worker took, and a
dead worker's is queued again."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks import task
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from greycircle.games import heartbeats, tasks
from greycircle.games.models import Game, WorkerHeartbeat
from greycircle.notifications import tasks as notification_tasks
from tests.games.conftest import computer_to_move, games_worker_in_process


@task(priority=tasks.BACKGROUND_PRIORITY)
def background_work(number: int) -> int:
    """Background work for the tests below (like the game apps' analyses)."""
    return number


def _notifications_drop() -> None:
    """Leave only computer turns and background work in the queue (not players' notifications)."""
    DBTaskResult.objects.filter(
        task_path=notification_tasks.notifications_send.module_path
    ).delete()


@pytest.mark.django_db(transaction=True)
def test_background_work_takes_one_worker_at_most_and_comes_after_everything_else(alice, tictactoe):
    first, second = games_worker_in_process("first"), games_worker_in_process("second")
    for number in range(3):
        background_work.enqueue(number)
    game = computer_to_move(alice, kind="tictactoe", level="first")
    _notifications_drop()

    turn, _ = first.claim_next()
    assert turn.task_path == tasks.ai_turn_run.module_path, "the computer's turn first"
    running, _ = first.claim_next()
    assert running.args_kwargs["args"] == [0]
    # One background task is running: another worker leaves the rest queued.
    assert second.claim_next() == (None, True)
    computer_to_move(alice, kind="tictactoe", level="first")
    _notifications_drop()
    assert second.claim_next()[0].task_path == tasks.ai_turn_run.module_path
    assert second.claim_next() == (None, True)

    first.run_task(running)
    following, _ = second.claim_next()
    assert following.args_kwargs["args"] == [1]
    assert Game.objects.get(pk=game.pk).version == game.version, "claimed, not run"


@pytest.mark.django_db(transaction=True)
def test_background_work_of_a_silent_worker_is_queued_again():
    background_work.enqueue(7)
    (row,) = DBTaskResult.objects.all()
    row.claim("dead")
    long_ago = timezone.now() - timedelta(minutes=5)
    WorkerHeartbeat.objects.create(worker_id="dead", started_at=long_ago, beat_at=long_ago)

    assert heartbeats.dead_workers_reap(dead_after=timedelta(seconds=3)) == [str(row.pk)]

    again = DBTaskResult.objects.get(status=TaskResultStatus.READY)
    assert (again.task_path, again.args_kwargs["args"]) == (row.task_path, [7])


@pytest.mark.django_db(transaction=True)
def test_background_work_gives_way_to_a_task_that_no_worker_took(alice, tictactoe):
    background_work.enqueue(0)
    assert tasks.foreground_waiting() is False, "background work waits for nobody"
    computer_to_move(alice, kind="tictactoe", level="first")
    waiting = DBTaskResult.objects.exclude(priority__lte=tasks.BACKGROUND_PRIORITY)
    # Just queued: an idle worker takes it at once, if there is one.
    waiting.update(enqueued_at=timezone.now() + timedelta(hours=1))
    assert tasks.foreground_waiting() is False
    waited = timedelta(seconds=tasks.BACKGROUND_YIELD_SECONDS + 1)
    waiting.update(enqueued_at=timezone.now() - waited)
    assert tasks.foreground_waiting() is True
