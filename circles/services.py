"""The hard engine's analysis of finished Circles games: asked for, computed by a task, kept.

The platform reaches these through the kind's `GameAnalysis` (registered in `CirclesConfig`),
after checking that the game is over and that whoever asks may (greycircle.games.replays).

`analysis_request` creates the `CirclesAnalysis` of a game once and queues `analysis_run`, within
each player's limits: `ANALYSES_IN_PROGRESS` at a time and `ANALYSES_PER_DAY` in any 24 hours
(asking for an analysis somebody already asked for is free). Each run analyses positions for
about `RUN_SECONDS`, saves them and, if the game is not done, queues the next run
(`circles.analysis_runs`, where the runs are described).
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from circles import tasks
from circles.analysis import analysis_summary
from circles.analysis_runs import game_moves
from circles.models import AnalysisStatus, CirclesAnalysis
from greycircle.games.errors import GameInvalid
from greycircle.games.models import Game

ANALYSES_IN_PROGRESS = 2
"""Analyses a player may have waiting or being computed at once."""
ANALYSES_PER_DAY = 10
"""Analyses a player may ask for in any 24 hours."""
DAY = timedelta(days=1)
SECONDS_PER_MOVE = 0.3
"""About how long a move's analysis takes (for the `retry_after` of a player at the limit)."""
NOT_REQUESTED = "not_requested"


def analysis_json(*, game: Game, analysis: CirclesAnalysis | None) -> dict[str, Any]:
    """The analysis as the API shows it (`CirclesAnalysisSerializer`); None: not asked for."""
    if analysis is None:
        return {
            "kind": game.kind,
            "status": NOT_REQUESTED,
            "analysed": 0,
            "total": len(game_moves(game)),
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
                game=game, total=len(game_moves(game)), requested_by=user
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
