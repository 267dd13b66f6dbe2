"""Games finished before outcomes said whether they were rated get the verdict of their time;
ratings from before live games were rated apart are correspondence ratings."""

import importlib

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from greycircle.games import services
from greycircle.games.models import Game
from greycircle.games.services import SeatSpec
from greycircle.ratings.models import PlayerRating
from tests.factories import UserFactory, game_started

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


@pytest.mark.django_db(transaction=True)
def test_ratings_from_before_live_games_are_correspondence_ones():
    user = UserFactory(username="old")
    executor = MigrationExecutor(connection)
    executor.migrate([("ratings", "0002_outcome_rating")])
    old_apps = executor.loader.project_state([("ratings", "0002_outcome_rating")]).apps
    old_apps.get_model("ratings", "PlayerRating").objects.create(
        user_id=user.pk, kind="circles", rating=1720, deviation=60, volatility=0.06, games=30
    )
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())

        [rating] = PlayerRating.objects.all()
        assert (rating.kind, rating.speed, rating.rating) == ("circles", "correspondence", 1720)
        # A live rating of the same kind is a row of its own.
        PlayerRating.objects.create(user=user, kind="circles", speed="live")
        assert PlayerRating.objects.filter(user=user, kind="circles").count() == 2
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
