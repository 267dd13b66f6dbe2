"""Notifications in the admin, to look up what a player was told and when.

Read-only: only the notification services write them. A notification is text written for its
recipient (never a card of anybody's hand) and the game's number, kind and status; no state.
"""

from __future__ import annotations

from django.contrib import admin

from greycircle.admin_base import GameRecordAdmin
from greycircle.notifications.models import Notification


@admin.register(Notification)
class NotificationAdmin(GameRecordAdmin):
    list_display = ("created", "recipient", "kind", "text", "game_link", "read", "in_inbox")
    list_display_links = ("created",)
    list_filter = ("kind", "read", "in_inbox", "created")
    search_fields = ("recipient__username",)
    search_help_text = "Search by the recipient's username."
    list_select_related = ("recipient", "game")
    date_hierarchy = "created"
    fields = ("created", "recipient", "kind", "text", "link", "game_link", "read", "in_inbox")
