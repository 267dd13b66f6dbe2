"""The browsers and apps notifications are pushed to, in the admin: to find a player's, see
whether they still work (`last_success`, and the last failure: when, the push service's status
and why; for an app, with FCM's or APNs' own reason), and delete one (a player who lost a phone
asks).

Staff never see what would let anyone push to them: not a browser's keys (p256dh, auth) nor its
whole endpoint (a capability URL: the push service's origin is shown), and an app's token only
shortened (greycircle.push.selectors). Nobody adds or edits a registration here: only a browser
or an app registers itself. Deleting needs the model's delete permission, as anywhere in the
admin.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery
from django.http import HttpRequest

from greycircle.admin_base import ReadOnlyAdmin
from greycircle.push.models import PushDevice, WebPushSubscription
from greycircle.push.selectors import token_shortened
from greycircle.push.webpush import origin_of


def _per_user(model: type) -> Subquery:
    """How many rows of `model` the row's user has: a subquery, so deleting the results works."""
    return Subquery(
        model.objects.filter(user=OuterRef("user"))
        .order_by()
        .values("user")
        .annotate(count=Count("pk"))
        .values("count"),
        output_field=IntegerField(),
    )


class PushRegistrationAdmin(ReadOnlyAdmin):
    """Read-only but for deleting; listed by user, newest first within each."""

    list_display_links = ("created",)
    list_filter = ("created", "last_success", "last_failure")
    search_fields = ("user__username",)
    search_help_text = "Search by the username."
    list_select_related = ("user",)
    ordering = ("user__username", "-created")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).annotate(user_count=_per_user(self.model))

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return admin.ModelAdmin.has_delete_permission(self, request, obj)

    @admin.display(description="the user's", ordering="user_count")
    def user_count(self, registration: Any) -> int:
        return registration.user_count

    @admin.display(description="why it failed")
    def failure(self, registration: Any) -> str:
        """The last failure's status, if the service answered, and why: "503: busy or failing:
        tried again later", "no answer: tried again later"."""
        if registration.last_failure is None:
            return "—"
        status, reason = registration.last_failure_status, registration.last_failure_reason
        return reason if status is None else f"{status}: {reason}"


@admin.register(WebPushSubscription)
class WebPushSubscriptionAdmin(PushRegistrationAdmin):
    list_display = (
        "created",
        "user",
        "user_count",
        "push_service",
        "user_agent",
        "last_success",
        "last_failure",
        "failure",
    )
    fields = (
        "user",
        "push_service",
        "user_agent",
        "created",
        "last_success",
        "last_failure",
        "failure",
    )

    @admin.display(description="push service")
    def push_service(self, subscription: WebPushSubscription) -> str:
        return origin_of(subscription.endpoint)


@admin.register(PushDevice)
class PushDeviceAdmin(PushRegistrationAdmin):
    list_display = (
        "created",
        "user",
        "user_count",
        "platform",
        "app_id",
        "token_start",
        "last_success",
        "last_failure",
        "failure",
    )
    list_filter = ("platform", *PushRegistrationAdmin.list_filter)
    fields = (
        "user",
        "platform",
        "app_id",
        "token_start",
        "created",
        "last_success",
        "last_failure",
        "failure",
    )

    @admin.display(description="token")
    def token_start(self, device: PushDevice) -> str:
        return token_shortened(device.token)
