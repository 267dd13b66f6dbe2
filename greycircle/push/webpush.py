"""Pushing a notification to its recipient's browsers (Web Push: RFC 8030, the message encrypted
for each browser as RFC 8291's aes128gcm, signed with the site's VAPID key as RFC 8292).

The work of tasks.webpush_send. What is pushed is what the inbox shows, nothing more: the
notification's text and a link to its page, `{"title", "body", "url", "tag", "notification"}`.
Its `tag` (a game's, or the notification's own) lets the browser replace an earlier push about
the same game rather than pile them up, and the same `Topic` lets the push service replace one
not yet delivered.

Nothing is pushed for a notification already read or gone, to a recipient on the site right now
(greycircle.presence: their open page or app tells them), or to an inactive one. Each answer
of a push service decides what becomes of a subscription:
- 201 (any 2xx): delivered; `last_success` is kept.
- 404 or 410: the browser unsubscribed (or the subscription expired): it is removed.
- 429, 5xx, or no answer: tried again later (tasks.webpush_send queues itself again), after the
  service's `Retry-After` or a backoff, at most RETRIES_MAX times.
- any other 4xx: our push was refused (a key the service no longer accepts, a payload too big):
  logged, not tried again.
Each push that does not get through (but for a removed subscription), and one never sent because
the browser's keys cannot be encrypted to, is kept as the subscription's last failure: when, the
service's status (none without an answer) and why, which the admin shows.

At least once, never twice but for one window: each push a service accepts is recorded at once
(models.PushSent, its own autocommit write, not at the end of the task), and a task run again (a
retry, or games.heartbeats queueing again the task of a worker that lost its database
connection) skips the browsers (app_push: the devices) already recorded for the notification as
it now reads. Only a task that dies between the service's 201 and that write pushes it again;
the same `Topic` and `tag` then make the second replace the first on the browser.

Sent with httpx, the one HTTP client of the push senders (APNs needs its HTTP/2; apns.py, fcm.py):
one client per task, HTTP/2 where the push service offers it, no redirects followed. pywebpush
does the encryption only: `WebPusher(subscription).encode(data, "aes128gcm")`, a public method
but not the one its documentation leads with, whose answer's `body` is the aes128gcm message
(the record size and salt its own; see UPGRADING.md, pywebpush). The VAPID header is py-vapid's
`Vapid02.sign` (keys.vapid_signer) of `sub`, `aud` (the push service's origin) and `exp`.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.db import models
from django.utils import timezone
from pywebpush import WebPusher, WebPushException

from greycircle.notifications.mail import site_url
from greycircle.notifications.models import Notification, NotificationKind
from greycircle.notifications.preferences import push_refusal
from greycircle.push.keys import vapid_signer, vapid_subject
from greycircle.push.models import PushDevice, PushSent, WebPushSubscription

logger = logging.getLogger(__name__)

TITLE = "Grey Circle Games"
# How long a push service keeps a push for a browser that is offline. Games between friends are
# slow: a day-old "your turn" is still news; older than that, the inbox has it.
TTL_SECONDS = 24 * 60 * 60
# RFC 8030 Urgency: a turn waiting on someone wakes their phone; the rest may wait for it.
URGENCY_OF_KIND = {
    NotificationKind.YOUR_TURN: "high",
    NotificationKind.TIME_RUNNING_OUT: "high",
}
# Connect and read timeouts (s) of one push: a hung push service holds a notifications worker no
# longer than this (push services answer in well under a second).
TIMEOUT = (3, 5)
# How long a push's VAPID signature is good for (RFC 8292: at most a day), as pywebpush signed.
VAPID_LIFETIME_SECONDS = 12 * 60 * 60
RETRIES_MAX = 5
RETRY_BASE_SECONDS = 10  # then 20, 40, ...
RETRY_MAX_SECONDS = 60 * 60
GONE = frozenset({404, 410})
# Why a push did not get through, as the subscription's last failure tells the staff.
FAILURE_NO_ANSWER = "no answer: tried again later"
FAILURE_BUSY = "busy or failing: tried again later"
FAILURE_REFUSED = "refused: not tried again"
FAILURE_NOT_ENCRYPTED = "not sent: the browser's keys cannot be encrypted to"


@dataclass(frozen=True)
class Retry:
    """The subscriptions to try again, and in how many seconds."""

    subscription_ids: list[int]
    delay: float


def webpush_payload(notification: Notification) -> dict[str, Any]:
    """What a browser is told of `notification`: the inbox's text and a link, nothing else."""
    return {
        "title": TITLE,
        "body": notification.text,
        "url": site_url(notification.link),
        "tag": _topic(notification),
        "notification": notification.pk,
    }


def _topic(notification: Notification) -> str:
    if notification.game_id is not None:
        return f"game-{notification.game_id}"
    return f"notification-{notification.pk}"


def notification_pushable(notification_id: int) -> Notification | None:
    """Notification `notification_id` with its recipient, if it is still to be pushed: not read
    nor gone, its recipient active and wanting it (greycircle.notifications.preferences: its
    kind pushed, not while they are on the site unless they asked to)."""
    notification = (
        Notification.objects.select_related("recipient").filter(pk=notification_id).first()
    )
    if notification is None or notification.read:
        return None
    recipient = notification.recipient
    if not recipient.is_active or push_refusal(user=recipient, kind=notification.kind):
        return None
    return notification


def pushes_sent(notification: Notification, *, to: str) -> models.QuerySet:
    """The ids of the targets (`to`: "subscription" or "device") already pushed `notification`
    as it now reads (refreshed in place, it has a new `created`: it is pushed again)."""
    # Only the rows of that kind of target: a NULL in a NOT IN list would exclude every row.
    return PushSent.objects.filter(
        notification=notification, edition=notification.created, **{f"{to}__isnull": False}
    ).values(to)


def push_sent_record(
    *,
    notification: Notification,
    subscription: WebPushSubscription | None = None,
    device: PushDevice | None = None,
) -> None:
    """A push service accepted `notification` for `subscription` (or the app `device`): record
    it at once, each its own write (the task runs in autocommit), and its target's last
    success."""
    now = timezone.now()
    target = {"subscription": subscription} if device is None else {"device": device}
    PushSent.objects.update_or_create(
        notification=notification, **target, defaults={"edition": notification.created}
    )
    model = WebPushSubscription if device is None else PushDevice
    model.objects.filter(pk=(subscription or device).pk).update(last_success=now)


def push_failure_record(subscription_ids: list[int], *, status: int | None, reason: str) -> None:
    """A push to the browsers `subscription_ids` did not get through: their last failure, now,
    with the push service's `status` (None: no answer) and `reason` (its own write, as a
    success's)."""
    WebPushSubscription.objects.filter(pk__in=subscription_ids).update(
        last_failure=timezone.now(), last_failure_status=status, last_failure_reason=reason
    )


def retry_delay(attempt: int, retry_after: float | None = None) -> float:
    """How long to wait before try `attempt + 1`: doubling from RETRY_BASE_SECONDS, or what
    the service asked if longer, at most RETRY_MAX_SECONDS."""
    delay = RETRY_BASE_SECONDS * 2**attempt
    if retry_after is not None:
        delay = max(delay, retry_after)
    return float(min(delay, RETRY_MAX_SECONDS))


def webpush_deliver(
    *, notification_id: int, subscription_ids: list[int] | None = None, attempt: int = 0
) -> Retry | None:
    """Push notification `notification_id` to its recipient's browsers (or to those of
    `subscription_ids` that are still theirs); what to try again, if anything (see the module)."""
    notification = notification_pushable(notification_id)
    if notification is None:
        return None
    subscriptions = WebPushSubscription.objects.filter(user=notification.recipient).order_by("pk")
    if subscription_ids is not None:
        subscriptions = subscriptions.filter(pk__in=subscription_ids)
    subscriptions = subscriptions.exclude(pk__in=pushes_sent(notification, to="subscription"))
    data = json.dumps(webpush_payload(notification), separators=(",", ":"))
    headers = {
        "Urgency": URGENCY_OF_KIND.get(notification.kind, "normal"),
        "Topic": _topic(notification),
    }
    again: list[int] = []
    delay = retry_delay(attempt)
    with push_client(TIMEOUT) as client:
        for subscription in subscriptions:
            body = _encrypted(subscription, data)
            if body is None:
                push_failure_record([subscription.pk], status=None, reason=FAILURE_NOT_ENCRYPTED)
                continue
            status, retry_after = _push(client, subscription, body=body, headers=headers)
            if status is not None and 200 <= status < 300:
                push_sent_record(notification=notification, subscription=subscription)
            elif status in GONE:
                subscription.delete()
            elif status is None or status == 429 or status >= 500:
                reason = FAILURE_NO_ANSWER if status is None else FAILURE_BUSY
                push_failure_record([subscription.pk], status=status, reason=reason)
                again.append(subscription.pk)
                delay = max(delay, retry_delay(attempt, retry_after))
            else:
                push_failure_record([subscription.pk], status=status, reason=FAILURE_REFUSED)
                logger.warning(
                    "web push of notification %s refused by %s with %s; not retried",
                    notification.pk,
                    origin_of(subscription.endpoint),
                    status,
                )
    if not again:
        return None
    if attempt >= RETRIES_MAX:
        logger.warning(
            "web push of notification %s given up after %s tries (%s subscriptions)",
            notification.pk,
            attempt + 1,
            len(again),
        )
        WebPushSubscription.objects.filter(pk__in=again).update(
            last_failure_reason=f"given up after {attempt + 1} tries"
        )
        return None
    return Retry(subscription_ids=again, delay=delay)


def push_client(timeout: tuple[float, float]) -> httpx.Client:
    """The HTTP client of one task's pushes: HTTP/2 where the service offers it (else 1.1), and
    no redirect followed (a push service answers; it never sends us elsewhere)."""
    return httpx.Client(
        http2=True,
        timeout=httpx.Timeout(timeout[1], connect=timeout[0]),
        follow_redirects=False,
    )


def _encrypted(subscription: WebPushSubscription, data: str) -> bytes | None:
    """`data` encrypted for the browser of `subscription` (RFC 8291 aes128gcm); None, logged, for
    keys it cannot be (registration checks them, so only a row written otherwise)."""
    try:
        encoded = WebPusher(
            {
                "endpoint": subscription.endpoint,
                "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
            }
        ).encode(data.encode(), content_encoding="aes128gcm")
    except (WebPushException, ValueError) as error:
        logger.warning("web push to %s not encrypted: %s", origin_of(subscription.endpoint), error)
        return None
    return encoded["body"]


def _push(
    client: httpx.Client,
    subscription: WebPushSubscription,
    *,
    body: bytes,
    headers: dict[str, str],
) -> tuple[int | None, float | None]:
    """POST one push; the push service's status (None if it did not answer) and Retry-After."""
    claims = {
        "sub": vapid_subject(),
        "aud": origin_of(subscription.endpoint),
        "exp": int(time.time()) + VAPID_LIFETIME_SECONDS,
    }
    try:
        response = client.post(
            subscription.endpoint,
            content=body,
            headers={
                **headers,
                **vapid_signer().sign(claims),
                "Content-Encoding": "aes128gcm",
                "Content-Type": "application/octet-stream",
                "TTL": str(TTL_SECONDS),
            },
        )
    except httpx.HTTPError as error:
        logger.info("web push to %s got no answer: %s", origin_of(subscription.endpoint), error)
        return None, None
    return response.status_code, retry_after_seconds(response.headers.get("Retry-After"))


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds from a Retry-After header given in seconds (a date is taken as no advice)."""
    if value is None or not value.strip().isdigit():
        return None
    return float(value.strip())


def origin_of(endpoint: str) -> str:
    """The push service an endpoint is at, for the log: the rest of it is the browser's secret."""
    parts = urlsplit(endpoint)
    return f"{parts.scheme}://{parts.netloc}"
