"""Usernames that look alike: store each username's confusable skeleton, unique.

Existing users get the skeleton of their username's NFKC form. Their usernames stay as they are:
renaming could clash with the case-insensitive constraint and would change what they type to log
in. Should two existing accounts already look alike, the older one keeps the skeleton and the
newer ones keep NULL (allowed beside the constraint), so the migration never fails on existing
data; they are logged for staff to rename.
"""

import logging

from django.db import migrations, models

logger = logging.getLogger("accounts.migrations")


def fill_skeletons(apps, schema_editor):
    from accounts.usernames import username_skeleton

    User = apps.get_model("accounts", "User")
    seen: dict[str, str] = {}
    users = User.objects.using(schema_editor.connection.alias).order_by("date_joined", "pk")
    for user in users.only("pk", "username").iterator(chunk_size=2000):
        skeleton = username_skeleton(user.username)
        if skeleton in seen:
            logger.warning(
                "User %r looks like the older user %r; its skeleton is left empty. Rename it.",
                user.username,
                seen[skeleton],
            )
            skeleton = None
        else:
            seen[skeleton] = user.username
        user.username_skeleton = skeleton
        user.save(update_fields=["username_skeleton"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_skeleton",
            field=models.TextField(editable=False, null=True),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop, elidable=True),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                fields=("username_skeleton",),
                name="user_username_skeleton_unique",
                violation_error_message="A user with a username that looks the same already exists.",
            ),
        ),
    ]
