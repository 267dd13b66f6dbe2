"""Seeks in the admin, to look up who waited in which pool and what became of it.

Read-only: only the lobby's services write them (a seek made by staff would pair a player with
nobody who asked). The game is shown by its number, kind and status; never its state.
"""

from __future__ import annotations

from django.contrib import admin

from greycircle.admin_base import GameRecordAdmin
from greycircle.lobby.models import Seek


@admin.register(Seek)
class SeekAdmin(GameRecordAdmin):
    list_display = ("created_at", "user", "pool", "rating", "status", "game_link")
    list_display_links = ("created_at",)
    list_filter = ("status", "kind", "rated", "created_at")
    search_fields = ("user__username",)
    search_help_text = "Search by the seeker's username."
    list_select_related = ("user", "game")
    date_hierarchy = "created_at"
    fields = (
        "created_at",
        "user",
        "pool",
        "rating",
        "rating_min",
        "rating_max",
        "status",
        "ended_at",
        "game_link",
    )
