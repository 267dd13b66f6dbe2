"""Pushing a notification to its recipient's apps (FCM: fcm.py; APNs: apns.py), the work of
tasks.app_push_send. The same message as for browsers (webpush.webpush_payload: the inbox's text
and link) under the same rules: nothing for a notification read or gone or a recipient on the
site; a token the service says is gone is removed; 429, 5xx and no answer are tried again with
backoff, at most webpush.RETRIES_MAX times; any other refusal is logged. Each push accepted is
recorded at once, and a task run again skips the devices it reached (at least once: see
webpush). Each push that does not get through (but to a token that is gone) is kept as the
device's last failure, as a browser's is: when, the service's status (none without an answer)
and why, with the service's own reason (FCM's error code, APNs' reason word), which the admin
shows; never the token nor anything of the push."""

from __future__ import annotations

import logging
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import httpx
from django.utils import timezone

from greycircle.push import apns, fcm
from greycircle.push.models import DevicePlatform, PushDevice
from greycircle.push.webpush import (
    FAILURE_BUSY,
    FAILURE_NO_ANSWER,
    FAILURE_REFUSED,
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
# Our own credentials refused (FCM's access token, APNs' provider token): made anew.
FAILURE_CREDENTIALS = "our credentials refused: made anew, tried again later"


@dataclass(frozen=True)
class Answer:
    """What became of one push: its outcome; the service's status (None: no answer) and its
    reason (FCM's error code, APNs' reason; for no answer, the error's class); the service's
    Retry-After; and, for a push that did not get through, why in our words."""

    outcome: str
    status: int | None = None
    reason: str | None = None
    retry_after: float | None = None
    failure: str = ""

    def failure_reason(self) -> str:
        """The device's last failure's reason: ours, then the service's when it gave one (or
        the error's class, without an answer): "refused: not tried again (BadTopic)"."""
        if not self.reason:
            return self.failure
        return f"{self.failure} ({self.reason})"


def device_failure_record(device_ids: list[int], *, status: int | None, reason: str) -> None:
    """A push to the app devices `device_ids` did not get through: their last failure, now (its
    own write, as a success's: webpush.push_failure_record)."""
    PushDevice.objects.filter(pk__in=device_ids).update(
        last_failure=timezone.now(), last_failure_status=status, last_failure_reason=reason
    )


class _Pusher:
    """One task's connections to the push services, opened when first needed."""

    def __init__(self, stack: ExitStack) -> None:
        self.stack = stack
        self.fcm_client: httpx.Client | None = None
        self.apns_client: httpx.Client | None = None
        self.credentials = fcm.fcm_credentials()

    def push(self, device: PushDevice, payload: dict[str, Any], *, high: bool) -> Answer:
        if device.platform == DevicePlatform.FCM:
            return self._fcm(device, payload, high=high)
        if device.platform == DevicePlatform.APNS:
            return self._apns(device, payload, high=high)
        return Answer(SKIPPED)

    def _fcm(self, device: PushDevice, payload: dict[str, Any], *, high: bool) -> Answer:
        if self.credentials is None:
            return Answer(SKIPPED)  # kept, for when the credentials are set again
        if self.fcm_client is None:
            self.fcm_client = self.stack.enter_context(push_client(TIMEOUT))
        message = fcm.fcm_message(token=device.token, payload=payload, high=high, ttl=TTL_SECONDS)
        try:
            response = fcm.fcm_send(self.fcm_client, self.credentials, message)
        except httpx.HTTPError as error:
            return Answer(AGAIN, reason=type(error).__name__, failure=FAILURE_NO_ANSWER)
        status = response.status_code
        if 200 <= status < 300:
            return Answer(DELIVERED, status)
        code = fcm.fcm_error_code(response)
        if status in FCM_GONE:
            return Answer(GONE, status, code)
        if status == 401:
            return Answer(AGAIN, status, code, failure=FAILURE_CREDENTIALS)
        if status == 429 or status >= 500:
            retry_after = retry_after_seconds(response.headers.get("Retry-After"))
            return Answer(AGAIN, status, code, retry_after, failure=FAILURE_BUSY)
        return Answer(REFUSED, status, code, failure=FAILURE_REFUSED)

    def _apns(self, device: PushDevice, payload: dict[str, Any], *, high: bool) -> Answer:
        if not apns.apns_configured():
            return Answer(SKIPPED)
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
            return Answer(AGAIN, reason=type(error).__name__, failure=FAILURE_NO_ANSWER)
        if status == 200:
            return Answer(DELIVERED, status)
        if status == 410 or reason in apns.GONE_REASONS:
            return Answer(GONE, status, reason)
        if reason in apns.TOKEN_REASONS:
            return Answer(AGAIN, status, reason, failure=FAILURE_CREDENTIALS)
        if status == 429 or status >= 500:
            return Answer(AGAIN, status, reason, failure=FAILURE_BUSY)
        return Answer(REFUSED, status, reason, failure=FAILURE_REFUSED)


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
            answer = pusher.push(device, payload, high=high)
            if answer.outcome == DELIVERED:
                push_sent_record(notification=notification, device=device)
            elif answer.outcome == GONE:
                device.delete()
            elif answer.outcome in (AGAIN, REFUSED):
                device_failure_record(
                    [device.pk], status=answer.status, reason=answer.failure_reason()
                )
            if answer.outcome == AGAIN:
                again.append(device.pk)
                delay = max(delay, retry_delay(attempt, answer.retry_after))
            elif answer.outcome == REFUSED:
                logger.warning(
                    "app push of notification %s refused by %s with %s; not retried",
                    notification.pk,
                    device.platform,
                    " ".join(str(part) for part in (answer.status, answer.reason) if part),
                )
    if not again:
        return None
    if attempt >= RETRIES_MAX:
        logger.warning(
            "app push of notification %s given up after %s tries", notification.pk, attempt + 1
        )
        PushDevice.objects.filter(pk__in=again).update(
            last_failure_reason=f"given up after {attempt + 1} tries"
        )
        return None
    return Retry(subscription_ids=again, delay=delay)
