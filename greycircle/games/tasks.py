"""Durable background work for games, run by `manage.py games_worker` from the database queue."""

from __future__ import annotations

from django_tasks import task


@task()
def ai_turn_run(game_id: int, version: int) -> bool:
    """Play the computer's turn in `game_id` if the game is still at `version`."""
    from greycircle.games import services  # services enqueue this task: import at call time

    return services.ai_take_turn(game_id=game_id, expected_version=version)


def ai_turn_enqueue(*, game_id: int, version: int) -> None:
    ai_turn_run.enqueue(game_id, version)
