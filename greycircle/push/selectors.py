"""What the site shows of a user's push registrations (my data, the admin): where they are and
when they last worked, never what would let anyone push to them (the browsers' keys, an app's
whole token)."""

from __future__ import annotations

from typing import Any

from greycircle.push.models import PushDevice, WebPushSubscription

# Enough of a token to tell one device from another, too little to push to it.
TOKEN_SHOWN = 8


def token_shortened(token: str) -> str:
    """An app's push token as shown: its first TOKEN_SHOWN characters and an ellipsis."""
    return f"{token[:TOKEN_SHOWN]}…" if len(token) > TOKEN_SHOWN else token


def push_registrations_of(*, user: Any) -> dict[str, list[dict[str, Any]]]:
    """`user`'s browsers and app devices, oldest first, without their keys (the shape of
    greycircle.push.serializers' WebPushSubscriptionDataSerializer and PushDeviceDataSerializer)."""
    return {
        "push_subscriptions": [
            {
                "endpoint": subscription.endpoint,
                "user_agent": subscription.user_agent,
                "created": subscription.created,
                "last_success": subscription.last_success,
                "last_failure": subscription.last_failure,
                "last_failure_status": subscription.last_failure_status,
                "last_failure_reason": subscription.last_failure_reason,
            }
            for subscription in WebPushSubscription.objects.filter(user=user).order_by(
                "created", "pk"
            )
        ],
        "app_devices": [
            {
                "platform": device.platform,
                "app_id": device.app_id,
                "token": token_shortened(device.token),
                "created": device.created,
                "last_success": device.last_success,
                "last_failure": device.last_failure,
                "last_failure_status": device.last_failure_status,
                "last_failure_reason": device.last_failure_reason,
            }
            for device in PushDevice.objects.filter(user=user).order_by("created", "pk")
        ],
    }
