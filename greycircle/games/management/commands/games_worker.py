"""The task worker: runs queued tasks and re-queues computer turns whose worker died.

`manage.py games_worker` takes every option of django-tasks-db's `db_worker`. Run one or more per
deployment; any number may run at once (tasks are claimed with row locks).
"""

from __future__ import annotations

import threading

from django_tasks_db.management.commands import db_worker

from greycircle.games.worker import stalled_turns_recover_forever


class Command(db_worker.Command):
    help = "Run queued game tasks (computer turns, e-mail) and recover stalled computer turns."

    def handle(self, *args, **options) -> None:
        stop = threading.Event()
        if not options.get("batch"):
            threading.Thread(
                target=stalled_turns_recover_forever, args=(stop,), daemon=True
            ).start()
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
