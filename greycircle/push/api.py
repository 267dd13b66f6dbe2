"""`/api/v1/push/web/`: the site's VAPID key, and my browsers' Web Push subscriptions;
`/api/v1/push/devices/`: my apps' push tokens.

Thin: parse, call a service (greycircle.push.services), serialise. Signed-in users only, guests
included, as for the inbox whose notifications are pushed; but for the renewal, which a service
worker sends without a CSRF token: it authenticates by the subscription's renewal token alone
(no session, so no CSRF is needed and the cookie grants nothing there).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from greycircle.api.schema import error_response
from greycircle.push import devices, keys, services
from greycircle.push.serializers import (
    DeviceRegisterSerializer,
    DeviceUnregisterQuerySerializer,
    PushDeviceSerializer,
    VapidKeySerializer,
    WebPushRenewSerializer,
    WebPushSubscribeSerializer,
    WebPushSubscriptionSerializer,
    WebPushUnsubscribeQuerySerializer,
)


class WebPushView(GenericAPIView):
    serializer_class = VapidKeySerializer

    @extend_schema(
        summary="Web Push: the site's key",
        description="The `applicationServerKey` to subscribe a browser with "
        "(`PushManager.subscribe`); then register the subscription below.",
    )
    def get(self, request: Request) -> Response:
        return Response(VapidKeySerializer({"vapid_public_key": keys.vapid_public_key()}).data)


class WebPushSubscriptionsView(GenericAPIView):
    serializer_class = WebPushSubscriptionSerializer

    @extend_schema(
        summary="Register a browser for Web Push",
        description="The browser's `PushSubscription` as `toJSON()` gives it. My notifications "
        "are then pushed to it while I am not on the site. Registering an endpoint again "
        "updates it (and moves it to me if another user had it). At most 20 per user: a new one "
        "past that removes my oldest. The answer's `renewal_token` lets the browser's service "
        "worker renew it (below).",
        request=WebPushSubscribeSerializer,
        responses={
            201: WebPushSubscriptionSerializer,
            400: error_response(
                "The endpoint or the keys are not valid.",
                "invalid",
                "invalid_endpoint",
                "invalid_keys",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        serializer = WebPushSubscribeSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        registered = services.webpush_subscribe(
            user=request.user,
            endpoint=data["endpoint"],
            p256dh=data["keys"]["p256dh"],
            auth=data["keys"]["auth"],
            user_agent=data.get("user_agent", request.headers.get("User-Agent", "")),
        )
        return Response(
            WebPushSubscriptionSerializer(registered).data, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        summary="Unregister a browser from Web Push",
        description="By `endpoint` or `id`. Answers 204 whether or not I had it (it is gone "
        "either way).",
        parameters=[WebPushUnsubscribeQuerySerializer],
        responses={
            204: None,
            400: error_response("Neither `endpoint` nor a valid `id` is given.", "invalid"),
        },
    )
    def delete(self, request: Request) -> Response:
        query = WebPushUnsubscribeQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        services.webpush_unsubscribe(
            user=request.user,
            endpoint=query.validated_data.get("endpoint"),
            subscription_id=query.validated_data.get("id"),
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebPushRenewView(GenericAPIView):
    serializer_class = WebPushSubscriptionSerializer
    authentication_classes: list = []  # the renewal token is the credential (see the module)
    permission_classes = [AllowAny]

    @extend_schema(
        summary="Renew a browser's Web Push subscription",
        description="For the service worker's `pushsubscriptionchange`: the registered "
        "`old_endpoint` with its `renewal_token`, and the browser's new subscription, which "
        "replaces it (checked as a registration is) for the user it belongs to; or "
        "`subscription: null` to remove it. Needs no session nor CSRF token: the renewal "
        "token is the credential, good once (the answer has the next).",
        request=WebPushRenewSerializer,
        responses={
            200: WebPushSubscriptionSerializer,
            204: None,
            400: error_response(
                "The new endpoint or keys are not valid.",
                "invalid",
                "invalid_endpoint",
                "invalid_keys",
            ),
            403: error_response(
                "No subscription has that endpoint and renewal token.", "renewal_refused"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        serializer = WebPushRenewSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        new = data["subscription"]
        registered = services.webpush_renew(
            old_endpoint=data["old_endpoint"],
            renewal_token=data["renewal_token"],
            **(
                {
                    "endpoint": new["endpoint"],
                    "p256dh": new["keys"]["p256dh"],
                    "auth": new["keys"]["auth"],
                }
                if new is not None
                else {}
            ),
        )
        if registered is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(WebPushSubscriptionSerializer(registered).data)


class PushDevicesView(GenericAPIView):
    serializer_class = PushDeviceSerializer

    @extend_schema(
        summary="Register an app for push",
        description="The push token the app got from its platform (`fcm`: Firebase Cloud "
        "Messaging; `apns`: Apple's), and the app's id (for `apns`, its bundle id). My "
        "notifications are then pushed to it while I am not "
        "on the site. Registering a token again updates it (and moves it to me if another user "
        "had it). At most 20 per user: a new one past that removes my oldest.",
        request=DeviceRegisterSerializer,
        responses={
            201: PushDeviceSerializer,
            400: error_response(
                "The platform, token or app is not one this site pushes to.",
                "invalid",
                "platform_unavailable",
                "invalid_token",
                "unknown_app",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        serializer = DeviceRegisterSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        device = devices.device_register(user=request.user, **serializer.validated_data)
        return Response(PushDeviceSerializer(device).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Unregister an app from push",
        description="By `platform` and `token`, or by `id`. Answers 204 whether or not I had it.",
        parameters=[DeviceUnregisterQuerySerializer],
        responses={
            204: None,
            400: error_response("Neither `platform` and `token` nor `id` is given.", "invalid"),
        },
    )
    def delete(self, request: Request) -> Response:
        query = DeviceUnregisterQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        devices.device_unregister(
            user=request.user,
            platform=query.validated_data.get("platform"),
            token=query.validated_data.get("token"),
            device_id=query.validated_data.get("id"),
        )
        return Response(status=status.HTTP_204_NO_CONTENT)
