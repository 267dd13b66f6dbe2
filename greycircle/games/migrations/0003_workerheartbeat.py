from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0002_move_imported"),
    ]

    operations = [
        migrations.CreateModel(
            name="WorkerHeartbeat",
            fields=[
                (
                    "worker_id",
                    models.CharField(max_length=64, primary_key=True, serialize=False),
                ),
                ("hostname", models.CharField(blank=True, max_length=255)),
                ("pid", models.PositiveIntegerField(blank=True, null=True)),
                ("started_at", models.DateTimeField()),
                ("beat_at", models.DateTimeField(db_index=True)),
            ],
            options={
                "ordering": ["-beat_at"],
            },
        ),
    ]
