"""Raising flags for staff: called by the apps that notice a pattern (ratings), inside their own
transaction. Imports nothing of the game platform, so any app may call it.

`flag_raised` is sent once that transaction commits, with `flag=` (the open flag, raised or
brought up to date), for the apps above that follow the patterns (greycircle.reports files a
report for staff's queue).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from greycircle.moderation.models import Flag, FlagKind

flag_raised = Signal()


def flag_raise(
    *,
    kind: FlagKind,
    user_id: int,
    game: Any,
    games: int,
    description: str,
    other_user_id: int | None = None,
) -> Flag:
    """The open flag of this pattern (`kind` between `user_id` and `other_user_id`), raised or
    brought up to date: `games` matching games so far, the latest `game`.

    Two games finishing at once both land on the one open flag: the insert ignores the open
    flag the unique constraint keeps, and the row is then locked and updated.
    """
    key = f"{kind.value}:{user_id}:{other_user_id or ''}"
    now = timezone.now()
    fields = {"games": games, "game": game, "description": description[:300], "updated": now}
    Flag.objects.bulk_create(
        [Flag(kind=kind, key=key, user_id=user_id, other_user_id=other_user_id, **fields)],
        ignore_conflicts=True,
    )
    flag = Flag.objects.select_for_update().get(key=key, reviewed_at__isnull=True)
    for name, value in fields.items():
        setattr(flag, name, value)
    flag.save(update_fields=list(fields))
    transaction.on_commit(lambda: flag_raised.send(sender=Flag, flag=flag), robust=True)
    return flag
