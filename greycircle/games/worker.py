"""The games' policy for the task worker (greycircle.runtime.worker), registered by
`GamesConfig.ready()`: a computer turn that failed, or whose worker died, is queued again, and so
is background work; background work (the game apps' engine analyses) is claimed last, by
`tasks.BACKGROUND_RUNNING_MAX` workers at most (greycircle.games.tasks); the workers' heartbeats
are rows of this app (greycircle.games.heartbeats)."""

from __future__ import annotations

from greycircle.games import heartbeats, tasks
from greycircle.runtime.worker import WorkerPolicy

POLICY = WorkerPolicy(
    task_retry=tasks.task_retry,
    task_is_background=tasks.task_is_background,
    background_slot_free=tasks.background_slot_free,
    heartbeat_beat=heartbeats.heartbeat_beat,
    dead_workers_reap=heartbeats.dead_workers_reap,
    worker_tasks_release=heartbeats.worker_tasks_release,
)
