"""The task worker: runs queued tasks and re-queues computer turns whose worker died.

`manage.py games_worker` takes every option of django-tasks-db's `db_worker`. Run one or more per
deployment; any number may run at once (tasks are claimed with row locks).
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections
from django_tasks_db.management.commands import db_worker

from greycircle.games import services

logger = logging.getLogger(__name__)


def recover_stalled_turns_forever(stop: threading.Event) -> None:
    stalled_for = timedelta(seconds=settings.GAMES_AI_STALL_SECONDS)
    while not stop.wait(stalled_for.total_seconds() / 2):
        close_old_connections()
        try:
            requeued = services.ai_turns_recover(stalled_for=stalled_for)
        except Exception:
            logger.exception("could not look for stalled computer turns")
        else:
            if requeued:
                logger.warning("re-queued stalled computer turns in games %s", requeued)
        finally:
            close_old_connections()


class Command(db_worker.Command):
    help = "Run queued game tasks (computer turns, e-mail) and recover stalled computer turns."

    def handle(self, *args, **options) -> None:
        stop = threading.Event()
        if not options.get("batch"):
            threading.Thread(
                target=recover_stalled_turns_forever, args=(stop,), daemon=True
            ).start()
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
