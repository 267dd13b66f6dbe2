"""Reads of the lobby: the pools' counts, the seeks a player sees, the ratings pairing compares."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.db.models import Count, QuerySet

from accounts.models import Block
from accounts.selectors import blocked_user_ids
from greycircle.games.models import GameStatus
from greycircle.lobby.models import Seek, SeekStatus

_POOL_FIELDS = (
    "pool",
    "kind",
    "seats",
    "clock_minutes",
    "clock_increment",
    "days_per_move",
    "rated",
)


def block_pairs_among(*, user_ids: Collection[int]) -> set[frozenset[int]]:
    """The pairs of `user_ids` with a block between them, either way round (one query)."""
    if len(user_ids) < 2:
        return set()
    pairs = Block.objects.filter(blocker_id__in=user_ids, blocked_id__in=user_ids).values_list(
        "blocker_id", "blocked_id"
    )
    return {frozenset(pair) for pair in pairs}


def pools_counts() -> list[dict[str, Any]]:
    """Every pool with players waiting in it or playing a game it paired: `waiting`, `playing`
    (players, not games), by pool name."""
    pools: dict[str, dict[str, Any]] = {}
    waiting = Seek.objects.filter(status=SeekStatus.WAITING, user__is_active=True)
    playing = Seek.objects.filter(status=SeekStatus.MATCHED, game__status=GameStatus.ACTIVE)
    for name, seeks in (("waiting", waiting), ("playing", playing)):
        for row in seeks.values(*_POOL_FIELDS).annotate(count=Count("pk")).order_by():
            pool = pools.setdefault(row["pool"], _pool_json(row))
            pool[name] = row["count"]
    return [pools[name] for name in sorted(pools)]


def _pool_json(row: dict[str, Any]) -> dict[str, Any]:
    minutes, increment = row["clock_minutes"], row["clock_increment"]
    return {
        "pool": row["pool"],
        "kind": row["kind"],
        "seats": row["seats"],
        "speed": "correspondence" if row["days_per_move"] is not None else "live",
        "time_control": None if minutes is None else {"minutes": minutes, "increment": increment},
        "days_per_move": row["days_per_move"],
        "rated": row["rated"],
        "waiting": 0,
        "playing": 0,
    }


def seeks_visible_to(*, viewer: Any) -> QuerySet[Seek]:
    """The waiting seeks `viewer` sees in the lobby, newest first: their own and everyone's
    but those of closed accounts and of players across a block from them."""
    return (
        Seek.objects.filter(status=SeekStatus.WAITING, user__is_active=True)
        .exclude(user_id__in=blocked_user_ids(user=viewer))
        .select_related("user")
        .order_by("-created_at", "-pk")
    )


def seek_of(*, seek_id: int, viewer: Any) -> Seek | None:
    """`viewer`'s own seek `seek_id` (waiting or ended), or another's that they see waiting."""
    seek = Seek.objects.select_related("user", "game").filter(pk=seek_id).first()
    if seek is None:
        return None
    if seek.user_id == viewer.pk:
        return seek
    if seek.status != SeekStatus.WAITING or not seek.user.is_active:
        return None
    return None if seek.user_id in blocked_user_ids(user=viewer) else seek


def seek_json(*, seek: Seek, viewer: Any) -> dict[str, Any]:
    """A seek as the API and the lobby's page show it."""
    control = seek.time_control
    return {
        "id": seek.pk,
        "pool": seek.pool,
        "kind": seek.kind,
        "seats": seek.seats,
        "speed": seek.speed,
        "time_control": None
        if control is None
        else {"minutes": control.minutes, "increment": control.increment},
        "days_per_move": seek.days_per_move,
        "rated": seek.rated,
        "rating_range": {"min": seek.rating_min, "max": seek.rating_max}
        if seek.has_range
        else None,
        "player": seek.user.display_name,
        "rating": round(seek.rating),
        "mine": seek.user_id == viewer.pk,
        "status": seek.status,
        "game": seek.game_id,
        "created_at": seek.created_at,
    }
