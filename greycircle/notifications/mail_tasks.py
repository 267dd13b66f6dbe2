"""The e-mail task of notifications, run by `manage.py games_worker` from the database queue.

Queued here (by the inbox, greycircle.notifications.services) and done in
greycircle.notifications.mail, so that the module that queues the task and the one that does its
work never import each other. (The notifications' own task, which keeps an inbox and so queues
this one, is in greycircle.notifications.tasks.)
"""

from __future__ import annotations

import logging

from django_tasks import task

from greycircle.notifications import mail
from greycircle.notifications.models import Notification

logger = logging.getLogger(__name__)


@task()
def notification_mail_send(notification_id: int) -> bool:
    """Mail notification `notification_id` if its recipient still wants it; True if sent."""
    return mail.notification_mail_deliver(notification_id=notification_id)


def notification_mail_enqueue(*, notification: Notification) -> None:
    """Queue the e-mail of `notification` if its recipient is to get one (checked again when sent).

    The task is a row in the caller's transaction: it is queued only if the notification is kept.
    """
    reason = mail.mail_refusal(notification)
    if reason is not None:
        logger.debug("notification %s not mailed: %s", notification.pk, reason)
        return
    notification_mail_send.enqueue(notification.pk)
