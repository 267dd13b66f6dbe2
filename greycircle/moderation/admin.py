"""The moderation log in the admin: searchable, filterable, and read-only for everybody — an
audit log is written by the moderation services only, never added to, edited or deleted here."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from greycircle.admin_base import ReadOnlyAdmin
from greycircle.moderation.models import ModerationAction


@admin.register(ModerationAction)
class ModerationActionAdmin(ReadOnlyAdmin):
    list_display = ("created", "actor", "action", "description", "target", "reason")
    list_display_links = ("created",)
    list_filter = ("action", "created")
    search_fields = ("actor__username", "user__username", "description", "reason")
    search_help_text = (
        "Search by the staff member's or the user's username, or words of what was done or why."
    )
    list_select_related = ("actor", "user")
    date_hierarchy = "created"
    fields = ("created", "actor", "action", "description", "target", "reason")

    @admin.display(description="acted on")
    def target(self, entry: ModerationAction) -> str:
        """Links to the user's and the game's admin pages (while they exist)."""
        links = []
        if entry.user_id is not None:
            url = reverse("admin:accounts_user_change", args=[entry.user_id])
            links.append(format_html('<a href="{}">{}</a>', url, entry.user.username))
        if entry.game_id is not None:
            url = reverse("admin:games_game_change", args=[entry.game_id])
            links.append(format_html('<a href="{}">Game #{}</a>', url, entry.game_id))
        return format_html(", ".join(["{}"] * len(links)), *links) if links else "—"
