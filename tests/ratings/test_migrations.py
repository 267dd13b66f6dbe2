"""Games finished before outcomes said whether they were rated get the verdict of their time."""

import importlib

import pytest
from django.apps import apps

from greycircle.games import services
from greycircle.games.models import Game
from greycircle.games.services import SeatSpec
from tests.factories import game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

migration = importlib.import_module("greycircle.ratings.migrations.0002_outcome_rating")


def test_old_outcomes_get_the_verdict_they_were_finished_under(alice, bob):
    rated = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    for version, (player, cell) in enumerate(zip([alice, bob] * 2, [0, 3, 1, 4], strict=True)):
        services.move_submit(
            game_id=rated.pk,
            user=player,
            move={"cell": cell},
            expected_version=rated.version + version,
        )
    services.game_resign(game_id=rated.pk, user=bob)
    computer = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])
    services.game_resign(game_id=computer.pk, user=alice)
    verdicts = {}
    for game in Game.objects.all():
        verdicts[game.pk] = game.outcome.pop("rating")
        Game.objects.filter(pk=game.pk).update(outcome=game.outcome)

    migration.outcomes_fill(apps, None)

    assert {game.pk: game.outcome["rating"] for game in Game.objects.all()} == verdicts
