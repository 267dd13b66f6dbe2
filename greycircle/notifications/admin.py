"""Notifications in the admin, to look up what a player was told and when.

Read-only: only the notification services write them. A notification is text written for its
recipient (never a card of anybody's hand) and the game's number, kind and status; no state.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from greycircle.notifications.models import Notification


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ("created", "recipient", "kind", "text", "game_link", "read")
    list_display_links = ("created",)
    list_filter = ("kind", "read", "created")
    search_fields = ("recipient__username",)
    search_help_text = "Search by the recipient's username."
    list_select_related = ("recipient", "game")
    date_hierarchy = "created"
    fields = ("created", "recipient", "kind", "text", "link", "game_link", "read")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Notification]:
        # The game's number, kind and status are shown; its state (every hand) is not even read.
        # All of list_select_related here: the change list adds it only to a queryset with none.
        return (
            super()
            .get_queryset(request)
            .select_related(*self.list_select_related)
            .defer("game__state")
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Notification | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Notification | None = None) -> bool:
        return False

    @admin.display(description="game", ordering="game_id")
    def game_link(self, notification: Notification) -> str:
        game = notification.game
        if game is None:
            return "—"
        url = reverse(f"{self.admin_site.name}:games_game_change", args=[game.pk])
        return format_html(
            '<a href="{}">Game #{}</a> ({}, {})', url, game.pk, game.kind, game.get_status_display()
        )
