"""Game chat in the admin: staff find a message (hidden ones too: those the screening flagged)
and review it, showing it to everyone who may read its room or keeping it hidden.

Read-only otherwise: only the chat's services write messages. Reviewing goes through
`services.game_message_review` and needs the permission to change messages
(`chat.change_gamemessage`), not only to view them.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from greycircle.admin_base import GameRecordAdmin
from greycircle.chat import services
from greycircle.chat.models import GameMessage


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


@admin.register(GameMessage)
class GameMessageAdmin(GameRecordAdmin):
    list_display = ("created", "author", "game_link", "room", "excerpt", "hidden", "reviewed_at")
    list_display_links = ("created",)
    list_filter = (ReviewedFilter, "hidden", "room", "created")
    search_fields = ("author__username", "body", "=game__id")
    search_help_text = "Search by the author's username, the text or the game's number."
    list_select_related = ("author", "game")
    date_hierarchy = "created"
    fields = (
        "created",
        "author",
        "game_link",
        "room",
        "body",
        "has_links",
        "hidden",
        "flag_reason",
        "reviewed_at",
    )
    actions = ("review_show", "review_keep_hidden")

    @admin.display(description="text")
    def excerpt(self, message: GameMessage) -> str:
        return message.body if len(message.body) <= 80 else message.body[:79] + "…"

    def has_review_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("chat.change_gamemessage")

    @admin.action(description="Reviewed: show to everyone", permissions=["review"])
    def review_show(self, request: HttpRequest, queryset: QuerySet[GameMessage]) -> None:
        self._review(request, queryset, visible=True)

    @admin.action(description="Reviewed: hide (from all but its author)", permissions=["review"])
    def review_keep_hidden(self, request: HttpRequest, queryset: QuerySet[GameMessage]) -> None:
        self._review(request, queryset, visible=False)

    def _review(
        self, request: HttpRequest, queryset: QuerySet[GameMessage], *, visible: bool
    ) -> None:
        reviewed = list(queryset)
        for message in reviewed:
            services.game_message_review(message=message, visible=visible)
        shown = "shown to everyone" if visible else "hidden from all but their authors"
        self.message_user(
            request, f"{len(reviewed)} message(s) reviewed and {shown}.", messages.SUCCESS
        )
