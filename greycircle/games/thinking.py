"""How long a computer player may think now: its whole budget, or less while computer turns queue.

A turn waits for a free task worker, then thinks for its budget (GAMES_AI_BUDGET_MS). Two things
take that budget down, never below GAMES_AI_MIN_BUDGET_MS; under load the computers play faster,
and a little weaker, rather than keep people waiting:
- The move is due one budget after the move that made it the computer's turn, so the time the
  turn already waited for a worker comes out of its thinking.
- With more turns waiting than workers, each waits for the thinking of those ahead of it:
  twenty-five hard turns on two workers would keep the last waiting some twelve seconds. So the
  budget shrinks with the queue, to `budget * workers / (workers + waiting)`.

In a live game the computer plays on a clock like anyone (its move is charged as a person's is,
greycircle.games.clocks), so it also thinks within its own time: at most a twentieth of what its
clock shows plus half its increment (as a chess player budgets a move), never below the floor
above, and in any case never past its flag: a move thought for as long as the clock shows still
arrives within the lag allowance. A computer's first turn has the first-turn limit, far above
any budget.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models.functions import Now
from django.utils import timezone

from greycircle.games import clocks
from greycircle.games.models import Game, WorkerHeartbeat

AI_TURN_TASK = "greycircle.games.tasks.ai_turn_run"
"""The queue rows of computer turns (`task_path`): a name, not an import, since the turn's task
plays through the services that call this module."""


def ai_budget_ms(
    *, waited_ms: float = 0, game: Game | None = None, now: datetime | None = None
) -> int:
    """The thinking time of the computer's turn about to be played, which has waited
    `waited_ms` since the move that made it the computer's turn (at most two queries), in
    `game` if it is live: within its clock as of `now`."""
    least = int(settings.GAMES_AI_MIN_BUDGET_MS)
    budget = _queue_budget_ms(waited_ms=waited_ms, least=least)
    clock = clock_budget_ms(game, least=least, now=now or timezone.now()) if game else None
    return budget if clock is None else min(budget, clock)


def clock_budget_ms(game: Game, *, least: int, now: datetime) -> int | None:
    """The most the computer to move in the live `game` may think now (see the module); None
    when no clock runs."""
    if game.flag_at is None or game.to_move is None:
        return None
    to_flag = clocks.elapsed_ms(now, game.flag_at)  # 0 once past it
    if clocks.is_first_turn(game, game.to_move):
        return max(1, to_flag - clocks.lag_allowance_ms())
    shown = max(0, to_flag - clocks.lag_allowance_ms())  # what its clock shows now
    share = max(least, shown // 20 + game.clock_increment_ms // 2)
    return max(1, min(share, shown))


def _queue_budget_ms(*, waited_ms: float, least: int) -> int:
    from django_tasks_db.models import DBTaskResult  # a model: import once apps are loaded

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
