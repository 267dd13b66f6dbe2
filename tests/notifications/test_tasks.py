"""The notifications' task: queued on its own queue, tried again (bounded) after database errors.

(The retry after a real database error, in a worker process: tests/games/test_worker.py.)"""

from __future__ import annotations

import logging

import pytest
from django_tasks_db.models import DBTaskResult

from greycircle.games import tasks as game_tasks
from greycircle.notifications.models import Notification
from greycircle.notifications.tasks import (
    NOTIFICATIONS_ATTEMPTS,
    NOTIFICATIONS_QUEUE,
    notifications_send,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("tictactoe")]


def _news(game, user) -> list[dict]:
    about = {"game": game.pk, "kind": "tictactoe", "version": game.version}
    return [{"user_id": user.pk, "event": "your_turn", "data": about}]


def test_a_task_that_failed_on_the_database_is_queued_again_counting_its_attempt(bob, people_game):
    notifications_send.enqueue(_news(people_game, bob), attempt=2)
    row = DBTaskResult.objects.get(task_path=notifications_send.module_path)
    assert row.queue_name == NOTIFICATIONS_QUEUE

    assert game_tasks.task_retry(row, delay=0.5)

    again = DBTaskResult.objects.exclude(pk=row.pk).get()
    assert again.args_kwargs == {"args": [_news(people_game, bob)], "kwargs": {"attempt": 3}}
    assert again.queue_name == NOTIFICATIONS_QUEUE
    assert again.run_after is not None


def test_past_its_last_attempt_the_task_gives_up_with_one_error(bob, people_game, caplog):
    caplog.set_level(logging.WARNING, logger="greycircle.notifications.tasks")

    notifications_send.call(_news(people_game, bob), attempt=NOTIFICATIONS_ATTEMPTS)

    assert not Notification.objects.filter(recipient=bob, kind="your_turn").exists()
    [record] = caplog.records
    assert record.levelno == logging.ERROR
    assert f"your_turn for user {bob.pk}" in record.getMessage()
    assert not DBTaskResult.objects.filter(task_path=notifications_send.module_path).exists()
