"""Reminding the player to move (`game_poke`): never a computer, never across a block, and
limited per sender and recipient across all games."""

from __future__ import annotations

import contextlib
import math
import time
from datetime import timedelta
from typing import TYPE_CHECKING

from django.core.cache import cache

from accounts.selectors import is_blocked_between
from greycircle.games import events
from greycircle.games.changes import seat_of
from greycircle.games.errors import GameInvalid, GameNotFound
from greycircle.games.models import Game, GameStatus

if TYPE_CHECKING:
    from accounts.models import User

# Reminders are limited per sender, across all games (a new game or a rematch starts no count
# afresh): one to the same person per POKE_INTERVAL, and POKES_PER_DAY in all per (UTC) day.
POKE_INTERVAL = timedelta(minutes=5)
POKES_PER_DAY = 10


def game_poke(*, game_id: int, user: User) -> None:
    """Remind the player to move that the game waits for them.

    Never a computer (`nobody_to_poke`), nor anybody on the other side of a block with `user`,
    either way round (`cannot_remind`, worded so as not to tell a block from other refusals).
    Limited per sender and recipient across games (`poke_too_soon`, with `retry_after` seconds).
    """
    game = Game.objects.with_seats().filter(pk=game_id).first()
    if game is None:
        raise GameNotFound("not_found", "No such game.")
    seats = list(game.seats.all())
    seat = seat_of(game, user)
    if game.status != GameStatus.ACTIVE:
        raise GameInvalid("game_not_active", "Only a game in play can be poked.")
    waiting_for = seats[game.to_move] if game.to_move is not None else None
    if waiting_for is None or not waiting_for.is_person or waiting_for.index == seat.index:
        raise GameInvalid("nobody_to_poke", "There is no other player to remind.")
    target = waiting_for.user
    if is_blocked_between(a=user, b=target):
        raise GameInvalid("cannot_remind", f"You cannot remind {target.username} now.")
    _poke_allowance(sender=user, recipient=target)
    events.game_poked(game=game, by=user, target=target)


def _poke_allowance(*, sender: User, recipient: User) -> None:
    """Count a reminder from `sender` to `recipient` against the limits, or refuse it.

    The counts live in the cache, keyed by users and never by game. The cache fails open
    (greycircle.runtime.cache): while Redis is down `add` succeeds and `incr` finds nothing, so
    reminders are not limited until it is back — the documented degraded mode, as for rate limits.
    """
    now = time.time()
    interval = POKE_INTERVAL.total_seconds()
    pair = f"poke:pair:{sender.pk}:{recipient.pk}"
    # The value is when the slot frees up, to tell the sender how long to wait.
    if not cache.add(pair, now + interval, timeout=interval):
        wait = _seconds_until(cache.get(pair), now=now)
        raise GameInvalid(
            "poke_too_soon",
            f"You reminded {recipient.username} a moment ago; you can remind them again "
            f"{_in_words(wait)}.",
            retry_after=wait,
        )
    # A fixed window per UTC day: one key, counted atomically, whose end is known.
    day = int(now // 86400)
    day_ends = (day + 1) * 86400
    count = f"poke:day:{sender.pk}:{day}"
    cache.add(count, 0, timeout=day_ends - now + 60)
    try:
        sent = cache.incr(count)
    except ValueError:  # gone already (Redis down, or the key just expired): fail open
        return
    if sent > POKES_PER_DAY:
        # Not sent, so it counts for nothing: it holds back no later reminder to this player.
        cache.delete(pair)
        with contextlib.suppress(ValueError):
            cache.decr(count)
        wait = _seconds_until(day_ends, now=now)
        raise GameInvalid(
            "poke_too_soon",
            f"You have sent {POKES_PER_DAY} reminders today; you can send another "
            f"{_in_words(wait)}.",
            retry_after=wait,
        )


def _seconds_until(moment: float | None, *, now: float) -> int:
    """Whole seconds from `now` until `moment` (at least 1; 1 when it is unknown)."""
    if moment is None:
        return 1
    return max(1, math.ceil(moment - now))


def _in_words(seconds: int) -> str:
    """How long `seconds` is, rounded up: "in 40 seconds", "in 5 minutes", "in 3 hours"."""
    if seconds < 60:
        amount, unit = seconds, "second"
    elif seconds <= 2 * 3600:
        amount, unit = math.ceil(seconds / 60), "minute"
    else:
        amount, unit = math.ceil(seconds / 3600), "hour"
    return f"in {amount} {unit}{'' if amount == 1 else 's'}"
