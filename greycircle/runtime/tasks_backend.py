"""The task queue's backend: django-tasks' database backend, queuing a task in one prepared INSERT.

Library seam (UPGRADING.md, "django-tasks-db"): django-tasks-db==0.13.0. It replaces
`DatabaseBackend.enqueue` and `_task_to_db_task`, using `validate_task`, `_get_id`, `alias`,
`compat.normalize_json` and `compat.task_enqueued`, and writes the `DBTaskResult` row itself. Why:
part of the move's 5.1 ms of CPU on PostgreSQL + Redis (commit 8615f55).

Every move queues a task (its players' notifications), and `DBTaskResult.objects.create` spent
more CPU compiling its INSERT than the INSERT itself (bench/README.md, "Server CPU per request").
The row is the one django-tasks writes; only the way it is written differs. The library also
builds the queued task's `TaskResult` twice (for the `task_enqueued` signal and for the
caller); this backend builds it once.
"""

from __future__ import annotations

from typing import Any

from django_tasks_db.backend import DatabaseBackend as LibraryDatabaseBackend
from django_tasks_db.compat import normalize_json, task_enqueued

from greycircle.runtime.db_rows import row_insert


class DatabaseBackend(LibraryDatabaseBackend):
    def enqueue(self, task: Any, args: Any, kwargs: Any) -> Any:
        self.validate_task(task)
        task_result = self._task_to_db_task(task, args, kwargs).task_result
        task_enqueued.send(type(self), task_result=task_result)
        return task_result

    def _task_to_db_task(self, task: Any, args: Any, kwargs: Any) -> Any:
        from django_tasks_db.models import DBTaskResult  # a model: import once apps are loaded

        row = DBTaskResult(
            id=self._get_id(),
            args_kwargs=normalize_json({"args": args, "kwargs": kwargs}),
            priority=task.priority,
            task_path=task.module_path,
            queue_name=task.queue_name,
            run_after=task.run_after,
            backend_name=self.alias,
        )
        row_insert(row)
        return row
