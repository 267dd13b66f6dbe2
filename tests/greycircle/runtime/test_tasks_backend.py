"""The task queue's backend queues the row django-tasks' own database backend queues."""

import pytest
from django_tasks import TaskResultStatus, task
from django_tasks.signals import task_enqueued
from django_tasks_db.models import DBTaskResult

pytestmark = pytest.mark.django_db


@task(priority=7, queue_name="default")
def greet(name: str, *, times: int) -> str:
    return f"hello {name}" * times


def test_a_queued_task_is_the_row_django_tasks_writes():
    result = greet.enqueue("ada", times=2)

    row = DBTaskResult.objects.get(id=result.id)
    assert row.status == TaskResultStatus.READY
    assert row.args_kwargs == {"args": ["ada"], "kwargs": {"times": 2}}
    assert (row.priority, row.queue_name, row.backend_name) == (7, "default", "default")
    assert row.task_path == greet.module_path
    assert row.enqueued_at is not None
    assert row.task_result.args == result.args == ["ada"]
    assert result.status == TaskResultStatus.READY


def test_queuing_tells_the_enqueued_signal_once_with_the_result_it_returns():
    heard = []

    def listen(sender, task_result, **kwargs):
        heard.append(task_result)

    task_enqueued.connect(listen)
    try:
        result = greet.enqueue("ada", times=1)
    finally:
        task_enqueued.disconnect(listen)

    assert heard == [result]
    assert heard[0] is result


def test_a_task_with_arguments_json_cannot_hold_is_refused_and_nothing_is_queued():
    with pytest.raises(TypeError):
        greet.enqueue(object(), times=1)
    assert not DBTaskResult.objects.exists()
