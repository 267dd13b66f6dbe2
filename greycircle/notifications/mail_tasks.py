"""The e-mail tasks of notifications, run by `manage.py games_worker` from the database queue.

Queued here (by the inbox, greycircle.notifications.services; the daily digests by their sweep,
`digests_send`) and done in greycircle.notifications.mail and .digest, so that the module that
queues a task and the one that does its work never import each other. (The notifications' own
task, which keeps an inbox and so queues the mail, is in greycircle.notifications.tasks.)
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone
from django_tasks import task

from greycircle import presence
from greycircle.notifications import digest, mail
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


@task()
def digest_mail_send(user_id: int) -> bool:
    """Mail user `user_id` their daily digest (claimed by `digests_send`); True if sent."""
    return digest.digest_mail_deliver(user_id=user_id)


def digests_send() -> int:
    """The daily digests' sweep (registered in apps.py): claim and queue the digest of each
    player it is due for and who is not on the site now, unless they want e-mail then too (up
    to digest.DIGEST_BATCH a round); how many were queued. Each claim commits with its task."""
    now = timezone.now()
    due = dict(
        digest.digests_due(now=now).values_list("pk", "email_only_away")[: digest.DIGEST_BATCH]
    )
    only_away = [user_id for user_id, away in due.items() if away]
    online = presence.users_online(only_away) if only_away else set()
    queued = 0
    for user_id in due:
        if user_id in online:
            continue  # their list is in front of them: a later round sends it
        with transaction.atomic():
            if digest.digest_claim(user_id=user_id, now=now):
                digest_mail_send.enqueue(user_id)
                queued += 1
    if queued:
        logger.info("queued %d daily digests", queued)
    return queued
