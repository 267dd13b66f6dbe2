import secrets

from django.db import migrations, models


def keys_for_unlisted_games(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    for game in Game.objects.filter(unlisted=True, link_key="").only("pk"):
        Game.objects.filter(pk=game.pk).update(link_key=secrets.token_urlsafe(16))


class Migration(migrations.Migration):
    dependencies = [("games", "0007_tasks_notify")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="link_key",
            field=models.CharField(blank=True, default="", editable=False, max_length=32),
        ),
        migrations.RunPython(keys_for_unlisted_games, migrations.RunPython.noop),
    ]
