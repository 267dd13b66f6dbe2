# Every move's UPDATE of its game is a non-HOT update (its clocks' and deadline's columns are
# indexed and change), so it writes an entry in each index of games_game, and its log entry one
# in each of games_move's. These indexes are read by no query: `kind` (plain and `LIKE`, three
# distinct values), and games_move's `game_id`, which the unique (game, number) index covers.

import django.db.models.deletion
from django.db import migrations, models

# Django's name for the foreign key's index (the same on every database).
MOVE_GAME_INDEX = "games_move_game_id_aca66fc5"


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0010_game_takebacks"),
    ]

    operations = [
        migrations.AlterField(
            model_name="game",
            name="kind",
            field=models.CharField(max_length=32),
        ),
        # Only the index: Django's AlterField would also drop and re-add the foreign key, which
        # checks every row of the log again.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="move",
                    name="game",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="moves",
                        to="games.game",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f'DROP INDEX IF EXISTS "{MOVE_GAME_INDEX}"',
                    reverse_sql=f'CREATE INDEX "{MOVE_GAME_INDEX}" ON "games_move" ("game_id")',
                ),
            ],
        ),
    ]
