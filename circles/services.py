"""The hard engine's analysis of finished Circles games: asked for, computed by a task, kept.

The platform reaches these through the kind's `GameAnalysis` (registered in `CirclesConfig`),
after checking that the game is over (greycircle.games.replays).

`analysis_request` creates the `CirclesAnalysis` of a game once and queues `analysis_run`. Each
run analyses positions for about `RUN_SECONDS`, saves them and, if the game is not done, queues
the next run: the one task queue also plays the computers' turns, which therefore never wait
behind a whole game's analysis (analysis runs have a lower priority, too). Each position's
analysis depends on nothing but the position (`circles.analysis`), so runs may stop anywhere,
and a run that finds its positions already saved by another drops its own.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from time import perf_counter
from typing import Any

from django.db import transaction
from django.utils import timezone

from circles import tasks
from circles.analysis import Budget, analysis_summary, game_positions, position_analyse
from circles.models import AnalysisStatus, CirclesAnalysis
from circles.rules import RULES
from greycircle.games.models import Game

logger = logging.getLogger(__name__)

RUN_SECONDS = 2.0
"""Each run of the task analyses positions for about this long (at least one position)."""
STALLED_AFTER = timedelta(minutes=2)
"""A pending analysis that has not moved for this long is queued again when asked for."""
NOT_REQUESTED = "not_requested"
BUDGET = Budget()
"""How hard the engine looks at each position: the defaults of circles.analysis."""


def _game_moves(game: Game) -> tuple[int, ...]:
    """The squares played in `game`, in order (its record)."""
    return RULES.decode(game.state).record


def analysis_json(*, game: Game, analysis: CirclesAnalysis | None) -> dict[str, Any]:
    """The analysis as the API shows it (`CirclesAnalysisSerializer`); None: not asked for."""
    if analysis is None:
        return {
            "kind": game.kind,
            "status": NOT_REQUESTED,
            "analysed": 0,
            "total": len(_game_moves(game)),
            "requested_at": None,
            "completed_at": None,
            "positions": [],
            "seats": analysis_summary([]),
        }
    return {
        "kind": game.kind,
        "status": analysis.status,
        "analysed": len(analysis.positions),
        "total": analysis.total,
        "requested_at": analysis.requested_at,
        "completed_at": analysis.completed_at,
        "positions": analysis.positions,
        "seats": analysis_summary(analysis.positions),
    }


def analysis_get(*, game: Game) -> dict[str, Any]:
    """The analysis of `game` as it stands."""
    return analysis_json(game=game, analysis=CirclesAnalysis.objects.filter(game=game).first())


def analysis_request(*, game: Game) -> dict[str, Any]:
    """Ask for the analysis of `game` (over): queue it once; again if it failed or stalled."""
    with transaction.atomic():
        analysis, created = CirclesAnalysis.objects.get_or_create(
            game=game, defaults={"total": len(_game_moves(game))}
        )
        stalled = (
            analysis.status == AnalysisStatus.PENDING
            and analysis.updated_at < timezone.now() - STALLED_AFTER
        )
        if created or stalled or analysis.status == AnalysisStatus.FAILED:
            if not created:
                # What was analysed stays: the task goes on from there.
                CirclesAnalysis.objects.filter(pk=analysis.pk).update(
                    status=AnalysisStatus.PENDING, updated_at=timezone.now()
                )
                analysis.refresh_from_db()
            game_id = game.pk
            transaction.on_commit(lambda: tasks.analysis_enqueue(game_id=game_id))
    return analysis_json(game=game, analysis=analysis)


def analysis_continue(*, game_id: int) -> bool:
    """Analyse the next positions of `game_id`'s pending analysis for about `RUN_SECONDS`, save
    them, and queue the next run if some are left. True once the analysis is complete."""
    seconds, budget = RUN_SECONDS, BUDGET
    analysis = CirclesAnalysis.objects.select_related("game").filter(game_id=game_id).first()
    if analysis is None or analysis.status != AnalysisStatus.PENDING:
        return analysis is not None and analysis.status == AnalysisStatus.READY
    start = len(analysis.positions)
    began = perf_counter()
    found: list[dict[str, Any]] = []
    try:
        positions = game_positions(_game_moves(analysis.game))
        for number in range(start + 1, len(positions) + 1):
            position, square = positions[number - 1]
            found.append(position_analyse(position, square, number=number, budget=budget))
            if perf_counter() - began >= seconds:
                break
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
            transaction.on_commit(lambda: tasks.analysis_enqueue(game_id=game_id))
        analysis.save()
    return done
