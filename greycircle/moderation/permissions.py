"""The `Moderators` group: what staff who handle reports may do in the admin without being
superusers (a moderator is a staff account in this group).

The group is kept by a `post_migrate` receiver (apps.py): after every migration it has at least
MODERATOR_PERMISSIONS, so a release that adds one to the list gives it to every moderator. It is
run after each app's migrations, since the permissions of apps migrated later (reports) exist
only then; a permission not there yet is added on a later round.
"""

from __future__ import annotations

from typing import Any

MODERATORS_GROUP = "Moderators"
# "app_label.codename" each. Viewing users and games is the evidence; the sanctions are imposed
# and lifted through their services (add, change), flags reviewed (change).
MODERATOR_PERMISSIONS = [
    "accounts.view_user",
    "games.view_game",
    "moderation.view_moderationaction",
    "moderation.view_flag",
    "moderation.change_flag",
    "moderation.view_sanction",
    "moderation.add_sanction",
    "moderation.change_sanction",
    # The moderation desk (greycircle.reports.admin): see the queue and cases; assign, resolve.
    "reports.view_report",
    "reports.change_report",
    # The messages themselves, flagged ones included: read them, show or keep them hidden.
    "chat.view_gamemessage",
    "chat.change_gamemessage",
    "conversations.view_directmessage",
    "conversations.change_directmessage",
]


def moderators_group_ensure(**kwargs: Any) -> None:
    """Create the group if needed and give it every permission of MODERATOR_PERMISSIONS that
    exists (a `post_migrate` receiver; safe to run any number of times)."""
    from django.contrib.auth.models import Group, Permission
    from django.db.models import Q

    using = kwargs.get("using", "default")
    wanted = Q(pk__in=[])
    for name in MODERATOR_PERMISSIONS:
        app_label, codename = name.split(".", 1)
        wanted |= Q(content_type__app_label=app_label, codename=codename)
    permissions = list(Permission.objects.using(using).filter(wanted))
    if not permissions:
        return  # before auth's own tables and permissions exist
    group, _ = Group.objects.using(using).get_or_create(name=MODERATORS_GROUP)
    group.permissions.add(*permissions)
