"""What the push app does when the inbox keeps a notification (connected in apps.py)."""

from __future__ import annotations

from typing import Any

from greycircle.notifications.models import Notification
from greycircle.push import tasks


def notification_kept_received(sender: Any, *, notification: Notification, **kwargs: Any) -> None:
    """`greycircle.notifications.signals.notification_kept`: push it to the recipient's browsers
    and apps."""
    tasks.push_enqueue(notification=notification)
