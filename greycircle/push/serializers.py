"""Web Push as the API sends and takes it: the site's VAPID key and browsers' subscriptions."""

from __future__ import annotations

from rest_framework import serializers

from greycircle.push.models import (
    APP_ID_MAX,
    ENDPOINT_MAX,
    TOKEN_MAX,
    DevicePlatform,
    PushDevice,
)
from greycircle.push.services import RENEWAL_TOKEN_MAX, USER_AGENT_MAX

ROW_ID_MAX = 2**63 - 1


class VapidKeySerializer(serializers.Serializer):
    vapid_public_key = serializers.CharField(
        help_text="The site's VAPID public key, an uncompressed P-256 point in base64url: "
        "`PushManager.subscribe`'s `applicationServerKey`."
    )


class WebPushKeysSerializer(serializers.Serializer):
    p256dh = serializers.CharField(
        max_length=100, trim_whitespace=False, help_text="base64url, 65 bytes."
    )
    auth = serializers.CharField(
        max_length=32, trim_whitespace=False, help_text="base64url, 16 bytes."
    )


class PushSubscriptionJSONSerializer(serializers.Serializer):
    """A browser's `PushSubscription.toJSON()`."""

    endpoint = serializers.CharField(
        max_length=ENDPOINT_MAX,
        trim_whitespace=False,
        help_text="The push service's URL for this browser (https).",
    )
    keys = WebPushKeysSerializer()
    expirationTime = serializers.FloatField(  # the browser's own member name
        required=False, allow_null=True, help_text="As the browser sends it; not used."
    )


class WebPushSubscribeSerializer(PushSubscriptionJSONSerializer):
    """A browser's `PushSubscription.toJSON()`, and optionally which browser it is."""

    user_agent = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=USER_AGENT_MAX,
        help_text="A label for the browser, shown to me (defaults to the User-Agent header).",
    )


class WebPushSubscriptionSerializer(serializers.Serializer):
    """A subscription as registered or renewed (services.Registered)."""

    id = serializers.IntegerField(source="subscription.pk")
    endpoint = serializers.CharField(source="subscription.endpoint")
    created = serializers.DateTimeField(source="subscription.created")
    renewal_token = serializers.CharField(
        help_text="The secret that renews this subscription when the browser's push service "
        "changes it (`POST /api/v1/push/web/subscriptions/renew/`): keep it where the service "
        "worker can read it. Given once; a new one with each registration and renewal."
    )


class WebPushRenewSerializer(serializers.Serializer):
    """What a service worker sends on `pushsubscriptionchange`: the subscription it had, with its
    renewal token, and the browser's new one (null: there is none, remove the old)."""

    old_endpoint = serializers.CharField(
        max_length=ENDPOINT_MAX, trim_whitespace=False, help_text="The endpoint registered."
    )
    renewal_token = serializers.CharField(
        max_length=RENEWAL_TOKEN_MAX,
        trim_whitespace=False,
        help_text="Its renewal token, as the registration (or the last renewal) gave it.",
    )
    subscription = PushSubscriptionJSONSerializer(
        allow_null=True, help_text="The new `PushSubscription.toJSON()`, or null to remove."
    )


class WebPushUnsubscribeQuerySerializer(serializers.Serializer):
    endpoint = serializers.CharField(
        required=False, max_length=ENDPOINT_MAX, help_text="The subscription's endpoint."
    )
    id = serializers.IntegerField(
        required=False, min_value=1, max_value=ROW_ID_MAX, help_text="The subscription's id."
    )

    def validate(self, attrs: dict) -> dict:
        if not attrs:
            raise serializers.ValidationError("Name the subscription: `endpoint` or `id`.")
        return attrs


class DeviceRegisterSerializer(serializers.Serializer):
    platform = serializers.ChoiceField(choices=DevicePlatform.choices)
    token = serializers.CharField(
        max_length=TOKEN_MAX,
        trim_whitespace=False,
        help_text="The push token the platform gave the app (FCM's registration token, APNs' "
        "device token in hexadecimal).",
    )
    app_id = serializers.CharField(
        max_length=APP_ID_MAX, trim_whitespace=False, help_text="The app's id (its package name)."
    )


class PushDeviceSerializer(serializers.ModelSerializer):
    platform = serializers.ChoiceField(choices=DevicePlatform.choices, read_only=True)

    class Meta:
        model = PushDevice
        fields = ["id", "platform", "app_id", "created"]
        read_only_fields = fields


class DeviceUnregisterQuerySerializer(serializers.Serializer):
    platform = serializers.ChoiceField(choices=DevicePlatform.choices, required=False)
    token = serializers.CharField(
        required=False, max_length=TOKEN_MAX, help_text="With `platform`."
    )
    id = serializers.IntegerField(
        required=False, min_value=1, max_value=ROW_ID_MAX, help_text="The device's id."
    )

    def validate(self, attrs: dict) -> dict:
        if "id" not in attrs and not ("platform" in attrs and "token" in attrs):
            raise serializers.ValidationError("Name the device: `platform` and `token`, or `id`.")
        return attrs


class WebPushSubscriptionDataSerializer(serializers.Serializer):
    """One of my browsers in my data: where it is pushed to, never its keys."""

    endpoint = serializers.CharField()
    user_agent = serializers.CharField(allow_blank=True)
    created = serializers.DateTimeField()
    last_success = serializers.DateTimeField(allow_null=True)
    last_failure = serializers.DateTimeField(
        allow_null=True, help_text="When a push to it last did not get through."
    )
    last_failure_status = serializers.IntegerField(
        allow_null=True, help_text="The push service's answer then; null: it gave none."
    )
    last_failure_reason = serializers.CharField(allow_blank=True)


class PushDeviceDataSerializer(serializers.Serializer):
    """One of my apps in my data: its token shortened (enough to tell devices apart)."""

    platform = serializers.ChoiceField(choices=DevicePlatform.choices)
    app_id = serializers.CharField()
    token = serializers.CharField(help_text="Its first characters and an ellipsis.")
    created = serializers.DateTimeField()
    last_success = serializers.DateTimeField(allow_null=True)
    last_failure = serializers.DateTimeField(
        allow_null=True, help_text="When a push to it last did not get through."
    )
    last_failure_status = serializers.IntegerField(
        allow_null=True, help_text="The push service's answer then; null: it gave none."
    )
    last_failure_reason = serializers.CharField(
        allow_blank=True, help_text="Why, with FCM's or APNs' own reason when it gave one."
    )
