"""Running the durable task queue: in worker processes (`manage.py games_worker`), or in
background threads of the one server process of an embedded site (`manage.py serve`).

The embedded form exists because live updates travel through the channel layer: without Redis
that layer lives in one process's memory, so the computer's moves must be played in the process
that holds the players' sockets.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections
from django.utils.crypto import get_random_string
from django_tasks_db.management.commands.db_worker import Worker

from greycircle.games import services

logger = logging.getLogger(__name__)


def stalled_turns_recover_forever(stop: threading.Event) -> None:
    """Every half stall period, queue again the computer turns that have waited too long."""
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


def tasks_run_forever(worker: Worker) -> None:
    """Run `worker`, starting it again if it ever stops on an error.

    django-tasks-db's worker leaves its loop when bookkeeping fails (for example when a task's
    row vanished while it ran); in a thread nobody would restart it, and computer turns would stop.
    """
    while True:
        try:
            worker.run()
        except Exception:
            logger.exception("the task worker stopped on an error; starting it again")
        close_old_connections()
        time.sleep(1)


def background_worker_start(*, interval: float = 0.2) -> threading.Event:
    """Run the task queue and stalled-turn recovery in daemon threads of this process.

    Returns the event that stops the recovery loop; the task thread ends with the process.
    """
    stop = threading.Event()
    worker = Worker(
        queue_names=["default"],
        interval=interval,
        batch=False,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id=f"embedded-{get_random_string(12)}",
        excluded_queue_names=[],
    )
    threading.Thread(
        target=tasks_run_forever, args=(worker,), name="task-worker", daemon=True
    ).start()
    threading.Thread(
        target=stalled_turns_recover_forever, args=(stop,), name="turn-recovery", daemon=True
    ).start()
    return stop
