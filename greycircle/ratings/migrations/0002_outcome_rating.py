"""Every finished game's outcome says whether it was rated (`outcome["rating"]`): games finished
before it did get the verdict of the rules they were finished under — rated when two or more
people played it, with each seat's rating before and after; else not, as a game of computers."""

from django.db import migrations

BATCH = 500


def outcomes_fill(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    Seat = apps.get_model("games", "Seat")
    RatingChange = apps.get_model("ratings", "RatingChange")
    games = Game.objects.filter(status="finished", outcome__isnull=False).only("pk", "outcome")
    batch = []
    for game in games.iterator(chunk_size=BATCH):
        if "rating" in game.outcome:
            continue
        seats = dict(Seat.objects.filter(game_id=game.pk).values_list("user_id", "index"))
        changes = [
            {"seat": seats[user_id], "before": round(before), "after": round(after)}
            for user_id, before, after in RatingChange.objects.filter(game_id=game.pk)
            .values_list("user_id", "rating_before", "rating_after")
            .order_by("pk")
            if user_id in seats
        ]
        game.outcome["rating"] = (
            {"rated": True, "reason": None, "detail": "Rated.", "changes": sorted(
                changes, key=lambda change: change["seat"]
            )}
            if changes
            else {
                "rated": False,
                "reason": "computers",
                "detail": "Not rated: only games between people are rated.",
                "changes": [],
            }
        )
        batch.append(game)
        if len(batch) == BATCH:
            Game.objects.bulk_update(batch, ["outcome"])
            batch = []
    Game.objects.bulk_update(batch, ["outcome"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_invitations"),
        ("ratings", "0001_initial"),
    ]

    operations = [migrations.RunPython(outcomes_fill, migrations.RunPython.noop, elidable=True)]
