"""The push tasks (browsers, apps), run by `manage.py games_worker` from the database queue.

Queued here, when the inbox keeps a notification (receivers.py), and done in
greycircle.push.webpush and greycircle.push.app_push, so that the module that queues a task and
the one that does its work never import each other.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from django_tasks import task

from greycircle.notifications.models import Notification
from greycircle.notifications.preferences import push_refusal
from greycircle.notifications.tasks import NOTIFICATIONS_PRIORITY, NOTIFICATIONS_QUEUE
from greycircle.push import app_push, webpush
from greycircle.push.models import PushDevice, WebPushSubscription
from greycircle.runtime.worker import workers_wake


# In the notifications' own queue, at their priority: a push is the same news as the inbox's, as
# urgent, so it never waits behind the computers' turns either (a push takes at most
# webpush.TIMEOUT of a worker).
@task(priority=NOTIFICATIONS_PRIORITY, queue_name=NOTIFICATIONS_QUEUE)
def webpush_send(
    notification_id: int, subscription_ids: list[int] | None = None, attempt: int = 0
) -> None:
    """Push notification `notification_id` to its recipient's browsers; queue the pushes that a
    push service asked to have again (429, 5xx, no answer) for later, with backoff."""
    retry = webpush.webpush_deliver(
        notification_id=notification_id, subscription_ids=subscription_ids, attempt=attempt
    )
    if retry is not None:
        run_after = timezone.now() + timedelta(seconds=retry.delay)
        webpush_send.using(run_after=run_after).enqueue(
            notification_id, retry.subscription_ids, attempt + 1
        )


@task(priority=NOTIFICATIONS_PRIORITY, queue_name=NOTIFICATIONS_QUEUE)
def app_push_send(
    notification_id: int, device_ids: list[int] | None = None, attempt: int = 0
) -> None:
    """Push notification `notification_id` to its recipient's app devices; queue those to try
    again for later, as webpush_send does."""
    retry = app_push.app_push_deliver(
        notification_id=notification_id, device_ids=device_ids, attempt=attempt
    )
    if retry is not None:
        run_after = timezone.now() + timedelta(seconds=retry.delay)
        app_push_send.using(run_after=run_after).enqueue(
            notification_id, retry.subscription_ids, attempt + 1
        )


def push_enqueue(*, notification: Notification) -> bool:
    """Queue the push of `notification` to its recipient's browsers and apps, if they have any
    and want it (its kind pushed, and not while they are on the site unless they asked to:
    greycircle.notifications.preferences; all checked again when it is sent); whether any was
    queued.

    The tasks are rows in the caller's transaction: queued only if the notification is kept.
    """
    user_id = notification.recipient_id
    if push_refusal(user=notification.recipient, kind=notification.kind) is not None:
        return False
    queued = False
    if WebPushSubscription.objects.filter(user_id=user_id).exists():
        webpush_send.enqueue(notification.pk)
        queued = True
    if PushDevice.objects.filter(user_id=user_id).exists():
        app_push_send.enqueue(notification.pk)
        queued = True
    if queued:
        workers_wake()
    return queued
