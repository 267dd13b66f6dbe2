"""Messages between friends in the admin: staff find a message (hidden ones too: those the
screening flagged) and review it, showing it to its recipient or keeping it hidden.

Read-only otherwise: only the conversations' services write messages. Reviewing goes through
`services.direct_message_review` (which tells the recipient of a message it shows), and needs
the permission to change messages (`conversations.change_directmessage`), not only to view them.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from greycircle.admin_base import ReadOnlyAdmin
from greycircle.conversations import services
from greycircle.conversations.models import DirectMessage


class ReviewedFilter(admin.SimpleListFilter):
    title = "review"
    parameter_name = "review"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("waiting", "Hidden, not reviewed"), ("reviewed", "Reviewed")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "waiting":
            return queryset.filter(hidden=True, reviewed_at__isnull=True)
        if self.value() == "reviewed":
            return queryset.filter(reviewed_at__isnull=False)
        return queryset


@admin.register(DirectMessage)
class DirectMessageAdmin(ReadOnlyAdmin):
    list_display = ("created", "sender", "conversation", "excerpt", "hidden", "reviewed_at")
    list_display_links = ("created",)
    list_filter = (ReviewedFilter, "hidden", "created")
    search_fields = ("sender__username", "body")
    search_help_text = "Search by the sender's username or the text."
    list_select_related = ("sender", "conversation__user_low", "conversation__user_high")
    date_hierarchy = "created"
    fields = ("created", "sender", "conversation", "body", "hidden", "flag_reason", "reviewed_at")
    actions = ("review_show", "review_keep_hidden")

    @admin.display(description="text")
    def excerpt(self, message: DirectMessage) -> str:
        return message.body if len(message.body) <= 80 else message.body[:79] + "…"

    def has_review_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("conversations.change_directmessage")

    @admin.action(description="Reviewed: show to the recipient", permissions=["review"])
    def review_show(self, request: HttpRequest, queryset: QuerySet[DirectMessage]) -> None:
        self._review(request, queryset, visible=True)

    @admin.action(description="Reviewed: hide (from all but its author)", permissions=["review"])
    def review_keep_hidden(self, request: HttpRequest, queryset: QuerySet[DirectMessage]) -> None:
        self._review(request, queryset, visible=False)

    def _review(
        self, request: HttpRequest, queryset: QuerySet[DirectMessage], *, visible: bool
    ) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        for message_id in ids:
            services.direct_message_review(message_id=message_id, visible=visible)
        shown = "shown to their recipients" if visible else "hidden from all but their authors"
        self.message_user(request, f"{len(ids)} message(s) reviewed and {shown}.", messages.SUCCESS)
