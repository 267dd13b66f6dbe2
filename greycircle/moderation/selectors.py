"""Reads of the moderation log, newest first."""

from __future__ import annotations

from django.db.models import QuerySet

from greycircle.moderation.models import ModerationAction


def moderation_log(*, user_id: int | None = None, game_id: int | None = None) -> QuerySet:
    """The entries about one user or one game (or all), newest first, with their actors."""
    entries = ModerationAction.objects.select_related("actor").order_by("-created", "-pk")
    if user_id is not None:
        entries = entries.filter(user_id=user_id)
    if game_id is not None:
        entries = entries.filter(game_id=game_id)
    return entries
