"""Reads of notifications: the inbox and its unread count."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from greycircle.notifications.models import Notification


def _id(user: Any) -> int:
    return user if isinstance(user, int) else user.pk


def notifications_for(*, user: Any, unread_only: bool = False) -> QuerySet[Notification]:
    """`user`'s notifications in their inbox (a user or a user id), newest first (those of kinds
    they keep out of it are not: greycircle.notifications.preferences)."""
    notifications = Notification.objects.filter(recipient_id=_id(user), in_inbox=True).order_by(
        "-created", "-pk"
    )
    if unread_only:
        notifications = notifications.filter(read=False)
    return notifications


def notifications_unread_count(*, user: Any) -> int:
    """How many of `user`'s notifications in their inbox are unread (one query, on a partial
    index)."""
    return Notification.objects.filter(recipient_id=_id(user), read=False, in_inbox=True).count()
