"""Pushing a notification to its recipient's apps (FCM: fcm.py; APNs: apns.py), the work of
tasks.app_push_send. The same message as for browsers (webpush.webpush_payload: the inbox's text
and link) under the same rules: nothing for a notification read or gone or a recipient on the
site; a token the service says is gone is removed; 429, 5xx and no answer are tried again with
backoff, at most webpush.RETRIES_MAX times; any other refusal is logged. Each push accepted is
recorded at once, and a task run again skips the devices it reached (at least once: see
webpush)."""

from __future__ import annotations

import logging
from contextlib import ExitStack
from typing import Any

import httpx

from greycircle.push import apns, fcm
from greycircle.push.models import DevicePlatform, PushDevice
from greycircle.push.webpush import (
    RETRIES_MAX,
    TIMEOUT,
    TTL_SECONDS,
    URGENCY_OF_KIND,
    Retry,
    notification_pushable,
    push_client,
    push_sent_record,
    pushes_sent,
    retry_after_seconds,
    retry_delay,
    webpush_payload,
)

logger = logging.getLogger(__name__)

# FCM's answers that say the token is no longer the app's, or not ours to push to.
FCM_GONE = frozenset({404, 403})
DELIVERED, GONE, AGAIN, REFUSED, SKIPPED = "delivered", "gone", "again", "refused", "skipped"


class _Pusher:
    """One task's connections to the push services, opened when first needed."""

    def __init__(self, stack: ExitStack) -> None:
        self.stack = stack
        self.fcm_client: httpx.Client | None = None
        self.apns_client: httpx.Client | None = None
        self.credentials = fcm.fcm_credentials()

    def push(
        self, device: PushDevice, payload: dict[str, Any], *, high: bool
    ) -> tuple[str, float | None, Any]:
        """What became of one push: an outcome, the service's Retry-After, and its status."""
        if device.platform == DevicePlatform.FCM:
            return self._fcm(device, payload, high=high)
        if device.platform == DevicePlatform.APNS:
            return self._apns(device, payload, high=high)
        return SKIPPED, None, None

    def _fcm(self, device, payload, *, high):
        if self.credentials is None:
            return SKIPPED, None, None  # kept, for when the credentials are set again
        if self.fcm_client is None:
            self.fcm_client = self.stack.enter_context(push_client(TIMEOUT))
        message = fcm.fcm_message(token=device.token, payload=payload, high=high, ttl=TTL_SECONDS)
        try:
            response = fcm.fcm_send(self.fcm_client, self.credentials, message)
        except httpx.HTTPError as error:
            return AGAIN, None, type(error).__name__
        status = response.status_code
        retry_after = retry_after_seconds(response.headers.get("Retry-After"))
        if 200 <= status < 300:
            return DELIVERED, None, status
        if status in FCM_GONE:
            return GONE, None, status
        if status in (401, 429) or status >= 500:
            return AGAIN, retry_after, status
        return REFUSED, None, status

    def _apns(self, device, payload, *, high):
        if not apns.apns_configured():
            return SKIPPED, None, None
        if self.apns_client is None:
            self.apns_client = self.stack.enter_context(apns.apns_client(TIMEOUT))
        headers, body = apns.apns_request(
            payload=payload, topic=device.app_id, high=high, ttl=TTL_SECONDS
        )
        try:
            status, reason = apns.apns_send(
                self.apns_client, token=device.token, headers=headers, body=body
            )
        except httpx.HTTPError as error:
            return AGAIN, None, type(error).__name__
        if status == 200:
            return DELIVERED, None, status
        if status == 410 or reason in apns.GONE_REASONS:
            return GONE, None, status
        if status == 429 or status >= 500 or reason in apns.TOKEN_REASONS:
            return AGAIN, None, status
        return REFUSED, None, f"{status} {reason}"


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
    devices = devices.exclude(pk__in=pushes_sent(notification, to="device"))
    payload = webpush_payload(notification)
    high = URGENCY_OF_KIND.get(notification.kind) == "high"
    again: list[int] = []
    delay = retry_delay(attempt)
    with ExitStack() as stack:
        pusher = _Pusher(stack)
        for device in devices:
            outcome, retry_after, status = pusher.push(device, payload, high=high)
            if outcome == DELIVERED:
                push_sent_record(notification=notification, device=device)
            elif outcome == GONE:
                device.delete()
            elif outcome == AGAIN:
                again.append(device.pk)
                delay = max(delay, retry_delay(attempt, retry_after))
            elif outcome == REFUSED:
                logger.warning(
                    "app push of notification %s refused by %s with %s; not retried",
                    notification.pk,
                    device.platform,
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
