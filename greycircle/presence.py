"""Who is on the site: a user is online while they have a live socket (`ws/me/` or a game's).

Each user's live sockets are counted in the cache under `presence:<user id>` (shared by every
server process when REDIS_URL is set): a socket adds one when it is accepted and takes one away
when it closes (greycircle.games.consumers.LiveConsumer). The count lives PRESENCE_TIMEOUT
seconds and every live socket refreshes it each PRESENCE_REFRESH seconds, so a server that dies
without closing its sockets leaves its users "online" for at most PRESENCE_TIMEOUT after their
last real socket is gone. A refresh also repairs a count that was lost (evicted, or Redis
restarted) or went below one while the socket lives.

Reading costs one cache round trip, however many users are asked about (`get_many`). Without a
cache (Redis down: greycircle.runtime.cache fails open) everybody reads as offline.

Since when a user is gone (`users_gone_since`: a live game lets the others claim the win against
a player gone GAMES_CLOCK_ABANDON_SECONDS, greycircle.games.abandonment): the last socket to
close records the moment under `presence-gone:<user id>`, and a socket that opens clears it. A
user found gone without a record (their server died and the count expired, or the cache lost
it) is recorded as gone from then on. Without a cache nothing is recorded, so nobody reads as
gone for long: a Redis outage never makes players forfeit.

Why here, in the platform's plumbing, and not in greycircle.notifications: presence counts
sockets and knows no inbox, game or rating. The friends list (accounts' page and API) says who is
online, the inbox's mail skips players who are on the site, profiles show it: all of them read it
from below, so accounts may (docs/architecture.md, "Layers"). Moving the friends pages and API up
into greycircle.players instead would have split accounts' friends in two for one cache read.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable

from django.core.cache import cache

# Seconds a count lives without a refresh, and how often each live socket refreshes it.
PRESENCE_TIMEOUT = 90
PRESENCE_REFRESH = 30
# How long the moment a user's last socket closed is kept (seconds): past it, a user still gone is
# recorded as gone anew when next asked about.
GONE_TIMEOUT = 24 * 3600


def presence_key(user_id: int) -> str:
    return f"presence:{user_id}"


def presence_gone_key(user_id: int) -> str:
    return f"presence-gone:{user_id}"


def _live(count: object) -> bool:
    return isinstance(count, int) and count > 0


def users_online(user_ids: Iterable[int]) -> set[int]:
    """Which of `user_ids` have a live socket now (one cache round trip)."""
    ids = {int(user_id) for user_id in user_ids}
    if not ids:
        return set()
    counts = cache.get_many([presence_key(user_id) for user_id in ids])
    return {user_id for user_id in ids if _live(counts.get(presence_key(user_id)))}


def user_is_online(user_id: int) -> bool:
    """Whether user `user_id` has a live socket now (one cache lookup)."""
    return _live(cache.get(presence_key(user_id)))


def users_gone_since(user_ids: Iterable[int], *, now: float | None = None) -> dict[int, float]:
    """Which of `user_ids` have no live socket, and since when (seconds since the epoch): one
    cache round trip, and one more for each user found gone without a record (recorded as gone
    since `now`, by default the current time)."""
    ids = {int(user_id) for user_id in user_ids}
    if not ids:
        return {}
    values = cache.get_many(
        [key for user_id in ids for key in (presence_key(user_id), presence_gone_key(user_id))]
    )
    now = time.time() if now is None else now
    gone = {}
    for user_id in ids:
        if _live(values.get(presence_key(user_id))):
            continue
        since = values.get(presence_gone_key(user_id))
        if not isinstance(since, int | float):
            cache.add(presence_gone_key(user_id), now, timeout=GONE_TIMEOUT)
            since = now
        gone[user_id] = float(since)
    return gone


# --- kept up to date by the sockets -----------------------------------------------------------


def presence_socket_opened(*, user_id: int) -> None:
    """A socket of `user_id` was accepted: count it."""
    key = presence_key(user_id)
    cache.add(key, 0, timeout=PRESENCE_TIMEOUT)
    try:
        cache.incr(key)
    except ValueError:  # expired (or dropped by a failing Redis) between add and incr
        cache.set(key, 1, timeout=PRESENCE_TIMEOUT)
    cache.touch(key, PRESENCE_TIMEOUT)
    cache.delete(presence_gone_key(user_id))


def presence_socket_alive(*, user_id: int) -> None:
    """A socket of `user_id` is still open: keep the count alive, and repair a lost one."""
    key = presence_key(user_id)
    if _live(cache.get(key)):
        cache.touch(key, PRESENCE_TIMEOUT)
    else:
        # The count expired or went wrong while this socket lived: at least this one is open.
        cache.set(key, 1, timeout=PRESENCE_TIMEOUT)
        cache.delete(presence_gone_key(user_id))


def presence_socket_closed(*, user_id: int) -> None:
    """A socket of `user_id` closed. The count is left at zero rather than deleted, so a socket
    opened meanwhile by another process is never lost; it expires on its own. The last socket
    to close records since when the user is gone."""
    left = 0
    with contextlib.suppress(ValueError):  # already expired: nothing to take away
        left = cache.decr(presence_key(user_id))
    if not _live(left):
        cache.set(presence_gone_key(user_id), time.time(), timeout=GONE_TIMEOUT)
