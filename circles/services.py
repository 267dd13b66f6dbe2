"""The hard engine's analysis of finished Circles games: asked for, computed by a task, kept.

The platform reaches these through the kind's `GameAnalysis` (registered in `CirclesConfig`),
after checking that the game is over and that whoever asks may (greycircle.games.replays).

`analysis_request` creates the `CirclesAnalysis` of a game once and queues `analysis_run`, within
each player's limits: `ANALYSES_IN_PROGRESS` at a time and `ANALYSES_PER_DAY` in any 24 hours
(asking for an analysis somebody already asked for is free). Each run analyses positions for
about `RUN_SECONDS`, saves them and, if the game is not done, queues the next run. The runs are
background work (greycircle.games.tasks.BACKGROUND_PRIORITY): a run gives its worker back as
soon as another task has waited a moment for a worker (none other was free), even halfway
through a position (`Interrupted`), which the next run analyses again. Each position's analysis
depends on nothing but the position (`circles.analysis`), so runs may stop anywhere, and a run
that finds its positions already saved by another drops its own.
"""

from __future__ import annotations

import logging
import math
from datetime import timedelta
from time import perf_counter
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from circles import tasks
from circles.analysis import (
    Budget,
    Interrupted,
    analysis_summary,
    game_positions,
    position_analyse,
)
from circles.models import AnalysisStatus, CirclesAnalysis
from circles.rules import RULES
from greycircle.games import tasks as game_tasks
from greycircle.games.errors import GameInvalid
from greycircle.games.models import Game

logger = logging.getLogger(__name__)

RUN_SECONDS = 1.0
"""Each run of the task analyses positions for about this long, unless another task waits."""
YIELD_CHECK_SECONDS = 0.05
"""How often a run asks whether another task waits for its worker."""
ANALYSES_IN_PROGRESS = 2
"""Analyses a player may have waiting or being computed at once."""
ANALYSES_PER_DAY = 10
"""Analyses a player may ask for in any 24 hours."""
DAY = timedelta(days=1)
SECONDS_PER_MOVE = 0.3
"""About how long a move's analysis takes (for the `retry_after` of a player at the limit)."""
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
            "seats": None,
        }
    return {
        "kind": game.kind,
        "status": analysis.status,
        "analysed": len(analysis.positions),
        "total": analysis.total,
        "requested_at": analysis.requested_at,
        "completed_at": analysis.completed_at,
        "positions": analysis.positions,
        # No totals before the end: "0 mistakes" after 3 moves of 60 would say what is not known.
        "seats": (
            analysis_summary(analysis.positions)
            if analysis.status == AnalysisStatus.READY
            else None
        ),
    }


def analysis_get(*, game: Game) -> dict[str, Any]:
    """The analysis of `game` as it stands."""
    return analysis_json(game=game, analysis=CirclesAnalysis.objects.filter(game=game).first())


def analysis_request(*, game: Game, user: Any) -> dict[str, Any]:
    """Ask for the analysis of `game` (over) for `user` (whom the platform let ask): queue it
    once; again if it failed, or lost its run (its worker died). Raises GameInvalid
    `too_many_analyses` (with `retry_after` seconds) past `user`'s limits."""
    with transaction.atomic():
        # One request at a time per player and per game, so that neither a player's limits nor
        # "one analysis per game, one run at a time" can be raced past.
        _lock(get_user_model(), user.pk)
        _lock(Game, game.pk)
        analysis = CirclesAnalysis.objects.filter(game=game).first()
        if analysis is not None and not _needs_run(analysis):
            return analysis_json(game=game, analysis=analysis)
        _limits_check(user=user, again=analysis)
        if analysis is None:
            analysis = CirclesAnalysis.objects.create(
                game=game, total=len(_game_moves(game)), requested_by=user
            )
        else:
            # What was analysed stays: the task goes on from there.
            analysis.status = AnalysisStatus.PENDING
            analysis.requested_by = user
            analysis.requested_at = timezone.now()
            analysis.save(update_fields=["status", "requested_by", "requested_at", "updated_at"])
        # In the same transaction: an analysis is pending exactly while a run of it is queued.
        tasks.analysis_enqueue(game_id=game.pk)
    return analysis_json(game=game, analysis=analysis)


def _lock(model: Any, pk: int) -> None:
    list(model.objects.select_for_update().filter(pk=pk).values_list("pk", flat=True))


def _needs_run(analysis: CirclesAnalysis) -> bool:
    if analysis.status == AnalysisStatus.FAILED:
        return True
    return analysis.status == AnalysisStatus.PENDING and not tasks.analysis_queued(
        game_id=analysis.game_id
    )


def _limits_check(*, user: Any, again: CirclesAnalysis | None) -> None:
    """Refuse a new run past `user`'s limits; `again`: the analysis asked for again, which
    counts once."""
    mine = CirclesAnalysis.objects.filter(requested_by=user)
    if again is not None:
        mine = mine.exclude(pk=again.pk)
    pending = list(mine.filter(status=AnalysisStatus.PENDING).only("total", "positions"))
    if len(pending) >= ANALYSES_IN_PROGRESS:
        left = min(analysis.total - len(analysis.positions) for analysis in pending)
        raise GameInvalid(
            "too_many_analyses",
            f"You have {len(pending)} analyses in progress, the most at once: ask again when "
            "one is done.",
            retry_after=max(1, math.ceil(left * SECONDS_PER_MOVE)),
        )
    now = timezone.now()
    today = list(mine.filter(requested_at__gt=now - DAY).values_list("requested_at", flat=True))
    if len(today) >= ANALYSES_PER_DAY:
        wait = max(1, math.ceil((min(today) + DAY - now).total_seconds()))
        raise GameInvalid(
            "too_many_analyses",
            f"You asked for {len(today)} analyses in the last 24 hours, the most in a day: the "
            f"next one in {_in_words(wait)}.",
            retry_after=wait,
        )


def _in_words(seconds: int) -> str:
    if seconds >= 3600:
        hours = math.ceil(seconds / 3600)
        return f"{hours} hour{'s' if hours != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


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


def analysis_continue(*, game_id: int) -> bool:
    """Analyse the next positions of `game_id`'s pending analysis for about `RUN_SECONDS` (less
    if another task waits for a worker), save them, and queue the next run if some are left.
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
        positions = game_positions(_game_moves(analysis.game))
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
            tasks.analysis_enqueue(game_id=game_id)  # with the save: pending, so queued
        analysis.save()
    return done
