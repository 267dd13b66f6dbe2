"""The task worker: runs queued tasks, outlives database and Redis errors, and takes over the
computer turns of workers that died.

`manage.py games_worker` takes every option of django-tasks-db's `db_worker`. Run one or more per
deployment; any number may run at once (tasks are claimed with row locks). By default a worker
runs every queue (settings.TASKS), the computers' turns first; `--queue-name notifications`
makes a worker of the players' notifications alone, which never wait behind computer turns
(README, "Production"). A worker that runs the computers' turns (the "default" queue) lowers its
own CPU priority, by 10 unless `--nice N` says otherwise, so that the notifications' workers and
the web servers on the same machine get the CPU first (measured: greycircle.runtime.worker, "CPU
priority"); a worker of other queues alone keeps its own unless given `--nice`. Besides the task
loop, each worker beats a heartbeat and fails (and queues again) the tasks of workers that stopped
beating; see greycircle.runtime.worker.
"""

from __future__ import annotations

import logging
import os
import threading

from django.core.management.base import CommandError
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands import db_worker

from greycircle.runtime.priority import NICE_COMPUTER_TURNS, niceness_default, niceness_lower
from greycircle.runtime.worker import TaskWorker, supervision_start, task_queues

logger = logging.getLogger(__name__)


class Command(db_worker.Command):
    help = (
        "Run queued game tasks (computer turns, notifications, e-mail), surviving database "
        "errors; fail and queue again the tasks of dead workers and computer turns that stalled."
    )

    def add_arguments(self, parser) -> None:
        super().add_arguments(parser)
        parser.set_defaults(queue_name=",".join(task_queues()))
        parser.add_argument(
            "--nice",
            type=int,
            default=None,
            help=(
                "Lower this worker's CPU priority by N (0 or more; default: "
                f"{NICE_COMPUTER_TURNS} for a worker of the default queue, the computers' turns, "
                "else 0)."
            ),
        )

    def handle(
        self,
        *,
        verbosity: int,
        queue_name: str,
        interval: float,
        batch: bool,
        backend_name: str,
        startup_delay: bool,
        reload: bool,
        max_tasks: int | None,
        worker_id: str,
        exclude_queues: str,
        nice: int | None,
        **options,
    ) -> None:
        self.configure_logging(verbosity)
        if nice is not None and nice < 0:
            raise CommandError("--nice must be 0 or more: a worker never raises its priority")
        if reload and batch:
            logger.warning("--reload and --batch cannot be used together: not reloading.")
            reload = False
        queue_names = queue_name.split(",")
        excluded_queue_names = exclude_queues.split(",") if exclude_queues else []
        if excluded_queue_names and "*" not in queue_names:
            raise CommandError("--exclude-queues can only be used with --queue-name=*")

        # Before any thread starts: they inherit it.
        niceness = niceness_lower(
            by=niceness_default(queue_names=queue_names) if nice is None else nice
        )
        if niceness is not None:
            logger.info("Worker niceness %d", niceness)
        worker = TaskWorker(
            queue_names=queue_names,
            interval=interval,
            batch=batch,
            backend_name=backend_name,
            startup_delay=startup_delay,
            max_tasks=max_tasks,
            worker_id=worker_id,
            excluded_queue_names=excluded_queue_names,
        )
        stop = threading.Event()

        def run() -> None:
            if not batch:
                supervision_start(worker=worker, stop=stop)
            try:
                worker.run()
            finally:
                stop.set()

        if reload:
            # The reloader's parent only restarts its child: only the child runs the worker.
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()
            run_with_reloader(run)
        else:
            worker.configure_signals()
            run()
