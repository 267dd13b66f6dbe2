"""A computer thinks for its whole budget, or less while computer turns queue up."""

import pytest
from django.utils import timezone

from greycircle.games import tasks, thinking
from greycircle.games.models import WorkerHeartbeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def budget(settings):
    settings.GAMES_AI_BUDGET_MS = 1000
    settings.GAMES_AI_MIN_BUDGET_MS = 100


def workers_alive(count: int) -> None:
    now = timezone.now()
    for number in range(count):
        WorkerHeartbeat.objects.create(worker_id=f"w{number}", started_at=now, beat_at=now)


def turns_waiting(count: int) -> None:
    for game_id in range(count):
        tasks.ai_turn_enqueue(game_id=1000 + game_id, version=1)


def test_with_no_turn_waiting_a_computer_thinks_its_whole_budget(budget):
    workers_alive(2)
    assert thinking.ai_budget_ms() == 1000


def test_the_budget_shrinks_with_the_turns_waiting_per_worker(budget):
    workers_alive(2)
    turns_waiting(2)
    assert thinking.ai_budget_ms() == 500  # 1000 x 2 workers / (2 + 2 waiting)


def test_a_long_queue_leaves_the_least_budget(budget):
    workers_alive(1)
    turns_waiting(30)
    assert thinking.ai_budget_ms() == 100


def test_a_silent_worker_does_not_count(budget):
    workers_alive(2)
    WorkerHeartbeat.objects.filter(worker_id="w0").update(
        beat_at=timezone.now() - timezone.timedelta(seconds=60)
    )
    turns_waiting(2)
    assert thinking.ai_budget_ms() == 333  # 1000 x 1 worker / (1 + 2 waiting)


def test_time_spent_waiting_for_a_worker_comes_out_of_the_thinking(budget):
    workers_alive(2)
    assert thinking.ai_budget_ms(waited_ms=300) == 700


def test_a_turn_that_waited_its_whole_budget_thinks_the_least(budget):
    workers_alive(2)
    assert thinking.ai_budget_ms(waited_ms=5000) == 100


def test_the_smaller_of_the_time_left_and_the_queue_share_is_thought(budget):
    workers_alive(2)
    turns_waiting(2)
    assert thinking.ai_budget_ms(waited_ms=300) == 500  # the queue's share is the smaller
    assert thinking.ai_budget_ms(waited_ms=800) == 200  # the time left is the smaller


def test_the_turns_counted_are_the_rows_of_the_computers_turn_task():
    assert tasks.ai_turn_run.module_path == thinking.AI_TURN_TASK
