"""Ratings per speed: live and correspondence games are rated apart. Every rating and rating change
so far came from a correspondence game (there were no live ones), so each becomes correspondence."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0009_game_clocks'),
        ('ratings', '0002_outcome_rating'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='playerrating',
            name='rating_one_per_user_and_kind',
        ),
        migrations.RemoveIndex(
            model_name='playerrating',
            name='rating_leaderboard',
        ),
        migrations.RemoveIndex(
            model_name='ratingchange',
            name='rating_history',
        ),
        migrations.AddField(
            model_name='playerrating',
            name='speed',
            field=models.CharField(choices=[('correspondence', 'Correspondence'), ('live', 'Live')], default='correspondence', max_length=16),
        ),
        migrations.AddField(
            model_name='ratingchange',
            name='speed',
            field=models.CharField(choices=[('correspondence', 'Correspondence'), ('live', 'Live')], default='correspondence', max_length=16),
        ),
        migrations.AddIndex(
            model_name='playerrating',
            index=models.Index(fields=['kind', 'speed', '-rating'], name='rating_leaderboard'),
        ),
        migrations.AddIndex(
            model_name='ratingchange',
            index=models.Index(fields=['user', 'kind', 'speed', '-created_at'], name='rating_history'),
        ),
        migrations.AddConstraint(
            model_name='playerrating',
            constraint=models.UniqueConstraint(fields=('user', 'kind', 'speed'), name='rating_one_per_user_kind_and_speed'),
        ),
    ]
