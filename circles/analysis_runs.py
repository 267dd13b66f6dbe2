"""One run of a Circles analysis (`circles.tasks.analysis_run`): the next positions of a game
analysed and saved, and the next run queued if some are left.

The runs are background work (greycircle.games.tasks.BACKGROUND_PRIORITY): a run gives its worker
back as soon as another task has waited a moment for a worker (none other was free), even halfway
through a position (`Interrupted`), which the next run analyses again. Each position's analysis
depends on nothing but the position (`circles.analysis`), so runs may stop anywhere, and a run
that finds its positions already saved by another drops its own.

The task module hands its own enqueue to `analysis_continue`, so that this module needs neither
the task (which calls it) nor circles.services (which queues the first run).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from time import perf_counter
from typing import Any

from django.db import transaction
from django.utils import timezone

from circles.analysis import Budget, Interrupted, game_positions, position_analyse
from circles.models import AnalysisStatus, CirclesAnalysis
from circles.rules import RULES
from greycircle.games import tasks as game_tasks
from greycircle.games.models import Game

logger = logging.getLogger(__name__)

RUN_SECONDS = 1.0
"""Each run of the task analyses positions for about this long, unless another task waits."""
YIELD_CHECK_SECONDS = 0.05
"""How often a run asks whether another task waits for its worker."""
BUDGET = Budget()
"""How hard the engine looks at each position: the defaults of circles.analysis."""


def game_moves(game: Game) -> tuple[int, ...]:
    """The squares played in `game`, in order (its record)."""
    return RULES.decode(game.state).record


class _OthersWaiting:
    """`interrupt` of `position_analyse`: true once another task has waited for a worker (asked
    of the database at most every YIELD_CHECK_SECONDS), and from then on."""

    def __init__(self) -> None:
        self.asked_at = -math.inf
        self.waiting = False

    def __call__(self) -> bool:
        if not self.waiting and perf_counter() - self.asked_at >= YIELD_CHECK_SECONDS:
            self.asked_at = perf_counter()
            self.waiting = game_tasks.foreground_waiting()
        return self.waiting


def analysis_continue(*, game_id: int, queue_next: Callable[..., object]) -> bool:
    """Analyse the next positions of `game_id`'s pending analysis for about `RUN_SECONDS` (less
    if another task waits for a worker), save them, and queue the next run if some are left
    (`queue_next(game_id=...)`, in the transaction that saves them: the task's own enqueue).
    True once the analysis is complete."""
    seconds, budget = RUN_SECONDS, BUDGET
    analysis = CirclesAnalysis.objects.select_related("game").filter(game_id=game_id).first()
    if analysis is None or analysis.status != AnalysisStatus.PENDING:
        return analysis is not None and analysis.status == AnalysisStatus.READY
    start = len(analysis.positions)
    began = perf_counter()
    others_waiting = _OthersWaiting()
    found: list[dict[str, Any]] = []
    try:
        positions = game_positions(game_moves(analysis.game))
        for number in range(start + 1, len(positions) + 1):
            position, square = positions[number - 1]
            found.append(
                position_analyse(
                    position, square, number=number, budget=budget, interrupt=others_waiting
                )
            )
            if perf_counter() - began >= seconds or others_waiting():
                break
    except Interrupted:
        pass  # the next run analyses that position again, from the start
    except Exception:
        logger.exception("the analysis of game %s failed", game_id)
        CirclesAnalysis.objects.filter(pk=analysis.pk).update(status=AnalysisStatus.FAILED)
        raise
    spent = perf_counter() - began
    with transaction.atomic():
        analysis = CirclesAnalysis.objects.select_for_update().get(pk=analysis.pk)
        if analysis.status != AnalysisStatus.PENDING or len(analysis.positions) != start:
            return analysis.status == AnalysisStatus.READY  # another run saved these first
        analysis.positions = [*analysis.positions, *found]
        analysis.seconds += spent
        done = len(analysis.positions) >= analysis.total
        if done:
            analysis.status = AnalysisStatus.READY
            analysis.completed_at = timezone.now()
        else:
            queue_next(game_id=game_id)  # with the save: pending, so queued
        analysis.save()
    return done
