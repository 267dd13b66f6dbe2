"""Admin classes for records staff look up but never write.

`ReadOnlyAdmin`: staff may find and view the rows, never add, change or delete them (their own
services write them: an audit log, friendships, ...). `GameRecordAdmin` adds what the records
about a game share (invitations, notifications): a link to the game's admin page with its number,
kind and status, and a queryset that never reads the game's state (every hand, the deck), so
nothing hidden can appear.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows to search and look at, nothing more; every field of the page is read-only."""

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.fields or super().get_readonly_fields(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class GameRecordAdmin(ReadOnlyAdmin):
    """Read-only records that belong to a game (`game`, maybe null): `game_link` shows it."""

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        # The game's number, kind and status are shown; its state (every hand) is not even read.
        # All of list_select_related here: the change list adds it only to a queryset with none.
        return (
            super()
            .get_queryset(request)
            .select_related(*self.list_select_related)
            .defer("game__state")
        )

    @admin.display(description="game", ordering="game_id")
    def game_link(self, record: Model) -> str:
        game = record.game
        if game is None:
            return "—"
        url = reverse(f"{self.admin_site.name}:games_game_change", args=[game.pk])
        return format_html(
            '<a href="{}">Game #{}</a> ({}, {})', url, game.pk, game.kind, game.get_status_display()
        )
