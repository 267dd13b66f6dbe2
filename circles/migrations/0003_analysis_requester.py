import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("circles", "0002_analysis"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="circlesanalysis",
            name="requested_by",
            field=models.ForeignKey(
                blank=True,
                help_text="Who asked for it (last), if their account still exists.",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddIndex(
            model_name="circlesanalysis",
            index=models.Index(fields=["requested_by", "requested_at"], name="analysis_requester"),
        ),
    ]
