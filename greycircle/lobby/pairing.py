"""Who may be paired with whom: the rating window and the groups of one pool. Pure arithmetic on
seeks already read (no queries), so that the rules read, and are tested, on their own.

A seek without a rating range accepts opponents within its *window* of its seeker's rating:
±`WINDOW_START` at first, `WINDOW_STEP` wider each `WINDOW_STEP_SECONDS` of waiting up to
±`WINDOW_MAX` (reached after 40 s), and anyone once it has waited `ANYONE_AFTER_SECONDS`. A
custom seek's range (`rating_min`..`rating_max`) stays as asked. Two seeks fit when each one's
seeker's rating is in the other's window (lichess's rule: both must accept). A group of a pool is
its seat count of seeks that all fit each other, with no block between any two of their seekers.

Groups are made oldest first: the longest-waiting seek picks, in order of waiting, every seek that
fits it and those picked so far, so the player who waited longest is served first.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Protocol, TypeVar

WINDOW_START = 100
WINDOW_STEP = 50
WINDOW_STEP_SECONDS = 5
WINDOW_MAX = 500
ANYONE_AFTER_SECONDS = 60


class Seeking(Protocol):
    """What pairing reads of a seek (models.Seek)."""

    pk: int
    user_id: int
    rating: float
    rating_min: int | None
    rating_max: int | None
    created_at: datetime


S = TypeVar("S", bound=Seeking)


def window_of(seek: Seeking, *, now: datetime) -> tuple[float, float]:
    """The ratings `seek` accepts at `now`: its range, or its widening window."""
    if seek.rating_min is not None and seek.rating_max is not None:
        return float(seek.rating_min), float(seek.rating_max)
    waited = max(0.0, (now - seek.created_at).total_seconds())
    if waited >= ANYONE_AFTER_SECONDS:
        return -math.inf, math.inf
    half = min(WINDOW_MAX, WINDOW_START + WINDOW_STEP * int(waited // WINDOW_STEP_SECONDS))
    return seek.rating - half, seek.rating + half


def seeks_fit(a: Seeking, b: Seeking, *, now: datetime) -> bool:
    """Whether `a` and `b` accept each other's seekers at `now` (never a player with themself)."""
    if a.user_id == b.user_id:
        return False
    low_a, high_a = window_of(a, now=now)
    low_b, high_b = window_of(b, now=now)
    return low_a <= b.rating <= high_a and low_b <= a.rating <= high_b


def groups_of(
    seeks: Sequence[S],
    *,
    seats: int,
    now: datetime,
    blocks: Collection[frozenset[int]] = (),
) -> list[list[S]]:
    """The groups of `seats` seeks to pair now among `seeks` (one pool's, oldest first); no seek
    is in two. `blocks`: pairs of user ids with a block between them."""
    free = list(seeks)
    groups = []
    while len(free) >= seats:
        group = None
        for index, anchor in enumerate(free):
            picked = [anchor]
            for other in free[index + 1 :]:
                if all(
                    seeks_fit(mine, other, now=now)
                    and frozenset((mine.user_id, other.user_id)) not in blocks
                    for mine in picked
                ):
                    picked.append(other)
                    if len(picked) == seats:
                        break
            if len(picked) == seats:
                group = picked
                break
        if group is None:
            break
        groups.append(group)
        taken = {seek.pk for seek in group}
        free = [seek for seek in free if seek.pk not in taken]
    return groups
