"""Circles' background work, run by `manage.py games_worker` from the database queue."""

from __future__ import annotations

from django_tasks import task

ANALYSIS_PRIORITY = -10
"""Below the computers' turns (priority 0): a player never waits on somebody's analysis."""


@task(priority=ANALYSIS_PRIORITY)
def analysis_run(game_id: int) -> bool:
    """Analyse the next positions of game `game_id` (see circles.services); True when done."""
    from circles import services  # services enqueue this task: import at call time

    return services.analysis_continue(game_id=game_id)


def analysis_enqueue(*, game_id: int) -> None:
    analysis_run.enqueue(game_id)
