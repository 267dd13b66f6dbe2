"""The push app's API paths, under `/api/v1/` (included by greycircle.urls)."""

from django.urls import path

from greycircle.push import api

urlpatterns = [
    path("push/web/", api.WebPushView.as_view(), name="push-web"),
    path(
        "push/web/subscriptions/",
        api.WebPushSubscriptionsView.as_view(),
        name="push-web-subscriptions",
    ),
    path(
        "push/web/subscriptions/renew/",
        api.WebPushRenewView.as_view(),
        name="push-web-subscriptions-renew",
    ),
    path("push/devices/", api.PushDevicesView.as_view(), name="push-devices"),
]
