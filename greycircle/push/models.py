"""Where a user's notifications are pushed beyond the site: their browsers' Web Push
subscriptions, their apps' push tokens, and the embedded site's own VAPID key."""

from __future__ import annotations

from django.conf import settings
from django.db import models

# A push service's endpoint is a URL it chooses; the longest seen in the wild are a few hundred
# characters (Mozilla's autopush), so this leaves room without letting anyone store a novel.
ENDPOINT_MAX = 1024
# An FCM registration token is about 160 characters today; room for it to grow. App ids are
# reverse-DNS package names.
TOKEN_MAX = 512
APP_ID_MAX = 155


class WebPushSubscription(models.Model):
    """One browser's `PushSubscription` (RFC 8030): where to POST and the keys to encrypt to
    (RFC 8291). An endpoint belongs to one user: registered again, it moves to whoever did."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webpush_subscriptions"
    )
    endpoint = models.CharField(max_length=ENDPOINT_MAX, unique=True)
    p256dh = models.CharField(
        max_length=100, help_text="The browser's P-256 public key, base64url (65 bytes)."
    )
    auth = models.CharField(max_length=32, help_text="The auth secret, base64url (16 bytes).")
    user_agent = models.CharField(max_length=200, blank=True, help_text="Which browser, if told.")
    created = models.DateTimeField(auto_now_add=True)
    last_success = models.DateTimeField(null=True, blank=True)
    # The last push that did not get through, for the staff to see why a browser gets nothing
    # (not one the browser unsubscribed from: that removes the subscription; push.webpush).
    last_failure = models.DateTimeField(null=True, blank=True)
    last_failure_status = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The push service's answer; empty: it gave none."
    )
    last_failure_reason = models.CharField(max_length=200, blank=True)
    renewal_hash = models.CharField(
        max_length=64,
        blank=True,
        help_text="SHA-256 (hex) of the secret the browser's service worker renews this with "
        "when the push service changes the subscription; empty: not renewable.",
    )

    class Meta:
        indexes = [models.Index(fields=["user", "created"], name="webpush_of_user")]

    def __str__(self) -> str:
        return f"web push of {self.user_id} ({self.user_agent or 'a browser'})"


class VapidKey(models.Model):
    """The site's own VAPID key when WEBPUSH_VAPID_PRIVATE_KEY is not set (the embedded site):
    one row, made by the first process that needs it and read by every other, so the key the
    browsers subscribed with survives restarts (greycircle.push.keys)."""

    private_key = models.CharField(max_length=64, help_text="The P-256 private key, base64url.")
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"VAPID key of {self.created:%Y-%m-%d}"


class DevicePlatform(models.TextChoices):
    FCM = "fcm", "Firebase Cloud Messaging (Android)"
    APNS = "apns", "Apple Push Notification service (iOS)"


class PushDevice(models.Model):
    """One installed app's push token, as its platform's push service gave it to the app. A
    token belongs to one user: registered again, it moves to whoever did."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_devices"
    )
    platform = models.CharField(max_length=8, choices=DevicePlatform.choices)
    token = models.CharField(max_length=TOKEN_MAX)
    app_id = models.CharField(max_length=APP_ID_MAX, help_text="The app's id (its package).")
    created = models.DateTimeField(auto_now_add=True)
    last_success = models.DateTimeField(null=True, blank=True)
    # As a browser's (WebPushSubscription): the last push that did not get through, for the
    # staff to see why an app gets nothing (not one whose token is gone: that removes the
    # device; push.app_push). Never the token nor anything of the push.
    last_failure = models.DateTimeField(null=True, blank=True)
    last_failure_status = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The push service's answer; empty: it gave none."
    )
    last_failure_reason = models.CharField(
        max_length=200,
        blank=True,
        help_text="Why, with the service's own reason when it gave one (FCM's error code, "
        "APNs' reason).",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["platform", "token"], name="push_device_token")
        ]
        indexes = [models.Index(fields=["user", "created"], name="push_device_of_user")]

    def __str__(self) -> str:
        return f"{self.platform} device of {self.user_id} ({self.app_id})"


class PushSent(models.Model):
    """A push that a push service accepted: notification `notification`, as it read when
    `edition` (its `created`), to one browser or one app device. Written the moment the service
    accepts it, on its own, so a push task run again (a retry; games.heartbeats queueing again the
    task of a worker that lost its database connection) sends none of it twice
    (greycircle.push.webpush). A notification refreshed in place (a newer "your turn" about the
    same game) has a new `created`: it is news again. Nothing of the push itself is kept."""

    notification = models.ForeignKey(
        "notifications.Notification", on_delete=models.CASCADE, related_name="+"
    )
    subscription = models.ForeignKey(
        WebPushSubscription, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    device = models.ForeignKey(
        PushDevice, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    edition = models.DateTimeField(help_text="The notification's `created` when it was pushed.")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["notification", "subscription"], name="push_sent_to_browser"
            ),
            models.UniqueConstraint(fields=["notification", "device"], name="push_sent_to_app"),
            models.CheckConstraint(
                condition=models.Q(subscription__isnull=True) ^ models.Q(device__isnull=True),
                name="push_sent_to_one",
            ),
        ]

    def __str__(self) -> str:
        target = f"device {self.device_id}" if self.device_id else f"browser {self.subscription_id}"
        return f"push of notification {self.notification_id} to {target}"
