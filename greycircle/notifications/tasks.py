"""Background work for notifications, run by `manage.py games_worker` from the database queue."""

from __future__ import annotations

from django_tasks import task


@task()
def notification_mail_send(notification_id: int) -> bool:
    """Mail notification `notification_id` if its recipient still wants it; True if sent."""
    from greycircle.notifications import mail  # mail enqueues this task: import at call time

    return mail.notification_mail_deliver(notification_id=notification_id)
