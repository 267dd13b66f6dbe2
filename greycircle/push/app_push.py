"""Pushing a notification to its recipient's apps (FCM for now: fcm.py), the work of
tasks.app_push_send. The same message as for browsers (webpush.webpush_payload: the inbox's text
and link) under the same rules: nothing for a notification read or gone or a recipient on the
site; a token the service says is gone is removed; 429, 5xx and no answer are tried again with
backoff, at most webpush.RETRIES_MAX times; any other refusal is logged."""

from __future__ import annotations

import logging

import requests
from django.utils import timezone

from greycircle.push import fcm
from greycircle.push.models import DevicePlatform, PushDevice
from greycircle.push.webpush import (
    RETRIES_MAX,
    TIMEOUT,
    TTL_SECONDS,
    URGENCY_OF_KIND,
    Retry,
    notification_pushable,
    retry_after_seconds,
    retry_delay,
    webpush_payload,
)

logger = logging.getLogger(__name__)

# FCM's answers that say the token is no longer the app's, or not ours to push to.
FCM_GONE = frozenset({404, 403})


def app_push_deliver(
    *, notification_id: int, device_ids: list[int] | None = None, attempt: int = 0
) -> Retry | None:
    """Push notification `notification_id` to its recipient's app devices (or those of
    `device_ids` still theirs); what to try again, if anything."""
    notification = notification_pushable(notification_id)
    if notification is None:
        return None
    devices = PushDevice.objects.filter(user=notification.recipient).order_by("pk")
    if device_ids is not None:
        devices = devices.filter(pk__in=device_ids)
    credentials = fcm.fcm_credentials()
    payload = webpush_payload(notification)
    high = URGENCY_OF_KIND.get(notification.kind) == "high"
    again: list[int] = []
    delay = retry_delay(attempt)
    with requests.Session() as session:
        session.max_redirects = 0
        for device in devices:
            if device.platform != DevicePlatform.FCM or credentials is None:
                continue  # no credentials now: kept, for when they are set again
            message = fcm.fcm_message(
                token=device.token, payload=payload, high=high, ttl=TTL_SECONDS
            )
            try:
                response = fcm.fcm_send(session, credentials, message, timeout=TIMEOUT)
            except requests.RequestException as error:
                logger.info("app push of notification %s got no answer: %s", notification.pk, error)
                again.append(device.pk)
                continue
            status = response.status_code
            if 200 <= status < 300:
                PushDevice.objects.filter(pk=device.pk).update(last_success=timezone.now())
            elif status in FCM_GONE:
                device.delete()
            elif status in (401, 429) or status >= 500:
                again.append(device.pk)
                retry_after = retry_after_seconds(response.headers.get("Retry-After"))
                delay = max(delay, retry_delay(attempt, retry_after))
            else:
                logger.warning(
                    "app push of notification %s refused by FCM with %s; not retried",
                    notification.pk,
                    status,
                )
    if not again:
        return None
    if attempt >= RETRIES_MAX:
        logger.warning(
            "app push of notification %s given up after %s tries", notification.pk, attempt + 1
        )
        return None
    return Retry(subscription_ids=again, delay=delay)
