"""How long a computer player may think now: its whole budget, or less while computer turns queue.

A turn waits for a free task worker, then thinks for its budget (GAMES_AI_BUDGET_MS). Two things
take that budget down, never below GAMES_AI_MIN_BUDGET_MS; under load the computers play faster,
and a little weaker, rather than keep people waiting:
- The move is due one budget after the move that made it the computer's turn, so the time the
  turn already waited for a worker comes out of its thinking.
- With more turns waiting than workers, each waits for the thinking of those ahead of it:
  twenty-five hard turns on two workers would keep the last waiting some twelve seconds. So the
  budget shrinks with the queue, to `budget * workers / (workers + waiting)`.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models.functions import Now

from greycircle.games.models import WorkerHeartbeat

AI_TURN_TASK = "greycircle.games.tasks.ai_turn_run"
"""The queue rows of computer turns (`task_path`): a name, not an import, since the turn's task
plays through the services that call this module."""


def ai_budget_ms(*, waited_ms: float = 0) -> int:
    """The thinking time of the computer's turn about to be played, which has waited
    `waited_ms` since the move that made it the computer's turn (at most two queries)."""
    from django_tasks_db.models import DBTaskResult  # a model: import once apps are loaded

    least = int(settings.GAMES_AI_MIN_BUDGET_MS)
    budget = int(settings.GAMES_AI_BUDGET_MS)
    left = budget - max(0, int(waited_ms))
    if left <= least:
        return least
    waiting = DBTaskResult.objects.ready().filter(task_path=AI_TURN_TASK).count()
    if not waiting:
        return left
    alive_since = Now() - timedelta(seconds=float(settings.GAMES_WORKER_DEAD_SECONDS))
    workers = max(1, WorkerHeartbeat.objects.filter(beat_at__gte=alive_since).count())
    return max(least, min(left, budget * workers // (workers + waiting)))
