"""A user's app devices: registering an installed app's push token, and removing it.

As for browsers (services.py): a token is one installed app's, so registered again it moves to
whoever registered it last; at most DEVICES_MAX per user, a new one past that drops the oldest.
A device is refused unless the site can push to its platform (its credentials are set: FCM for
`fcm`, the APNs key for `apns`) and its app is one of PUSH_APP_IDS (the site's own apps). A
refused device changes nothing.
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from greycircle.push import apns, fcm
from greycircle.push.errors import PushInvalid
from greycircle.push.models import APP_ID_MAX, TOKEN_MAX, DevicePlatform, PushDevice

DEVICES_MAX = 20
# FCM registration tokens: letters, digits and `-_:`; APNs device tokens: hexadecimal (32 bytes
# today, longer allowed by Apple's documentation).
TOKEN_PATTERN = {
    DevicePlatform.FCM: re.compile(rf"[A-Za-z0-9_:-]{{20,{TOKEN_MAX}}}"),
    DevicePlatform.APNS: re.compile(r"[0-9a-fA-F]{64,200}"),
}
APP_ID_PATTERN = re.compile(rf"(?=.{{1,{APP_ID_MAX}}}$)[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+")


def platform_available(platform: str) -> bool:
    """Whether the site can push to `platform` (its credentials are set)."""
    if platform == DevicePlatform.APNS:
        return apns.apns_configured()
    return platform == DevicePlatform.FCM and fcm.fcm_credentials() is not None


def device_register(*, user: Any, platform: str, token: str, app_id: str) -> PushDevice:
    """Keep app device `token` of `platform` for `user` (see the module)."""
    if not platform_available(platform):
        raise PushInvalid("platform_unavailable", f"This site does not push to {platform} apps.")
    if not TOKEN_PATTERN[DevicePlatform(platform)].fullmatch(token):
        raise PushInvalid("invalid_token", "The token is not a push token of that platform.")
    if not APP_ID_PATTERN.fullmatch(app_id) or app_id not in settings.PUSH_APP_IDS:
        raise PushInvalid("unknown_app", "The app id is not one of this site's apps.")
    with transaction.atomic():
        device, _ = PushDevice.objects.update_or_create(
            platform=platform,
            token=token,
            defaults={
                "user": user,
                "app_id": app_id,
                "created": timezone.now(),
                "last_success": None,
            },
        )
        oldest = PushDevice.objects.filter(user=user).order_by("-created", "-pk")[DEVICES_MAX:]
        PushDevice.objects.filter(pk__in=list(oldest.values_list("pk", flat=True))).delete()
    return device


def device_unregister(
    *,
    user: Any,
    platform: str | None = None,
    token: str | None = None,
    device_id: int | None = None,
) -> int:
    """Remove `user`'s device with that platform and token, or that id; how many were removed."""
    mine = PushDevice.objects.filter(user=user)
    if token is not None:
        mine = mine.filter(platform=platform, token=token)
    if device_id is not None:
        mine = mine.filter(pk=device_id)
    deleted, _ = mine.delete()
    return deleted
