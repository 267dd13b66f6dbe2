"""The API's rate limits, counted per fixed window, every limit of a request in one round trip.

DRF's throttles keep, per client, the list of its request times in the cache: every request reads
it, unpickles it, trims it, pickles it and writes it back, up to `num_requests` floats (600 for a
signed-in user) and two round trips to Redis per throttle, on the path of every move. `RateLimits`
counts requests per window of each rate's duration instead (a Redis INCR), and counts all of a
request's limits together: the client's (`anon` per address, `user` per account) and the view's
`throttle_scope` if it names one (`moves` per player, ...). A client may send up to twice a rate
across the boundary of two windows, which a rate limit tolerates. The rates and scopes are DRF's
(`DEFAULT_THROTTLE_RATES`); `Retry-After` is the seconds left in the longest exceeded window.

Library seam (UPGRADING.md, "djangorestframework"): djangorestframework==3.18.3. It builds DRF's
`UserRateThrottle`, `AnonRateThrottle` and `ScopedRateThrottle` and uses their attributes and
helpers (`scope`, `rate`, `get_rate()`, `parse_rate()`, `num_requests`, `duration`,
`get_cache_key()`) without their `allow_request`. Why: DRF's way took two Redis round trips and a
pickled list per throttle on every move; the throttles were 8% of a request thread's busy time
under 10 players (bench/README.md, "Under load"); all of a request's limits now take one round
trip (commit 23467dd).
"""

from __future__ import annotations

import math
import os
import threading
import time
from types import SimpleNamespace
from typing import Any, NamedTuple, cast

from rest_framework import throttling
from rest_framework.request import Request

from greycircle.runtime.cache import cache_count_many


class RateLimits(throttling.BaseThrottle):
    def __init__(self) -> None:
        self.retry_after: float | None = None

    def timer(self) -> float:
        return time.time()

    def allow_request(self, request: Request, view: Any) -> bool:
        limits = [limit for limit in self._limits(request, view) if limit.rate is not None]
        counters = []
        now = self.timer()
        for limit in limits:
            key = limit.get_cache_key(request, view)
            if key is not None:
                window = int(now // limit.duration)
                counters.append((limit, f"{key}:{window}", (window + 1) * limit.duration))
        if not counters:
            return True
        cache = counters[0][0].cache
        counts = cache_count_many(cache, [(key, limit.duration) for limit, key, _ in counters])
        exceeded = [
            window_end
            for (limit, _, window_end), count in zip(counters, counts, strict=True)
            if count > limit.num_requests
        ]
        if exceeded:
            self.retry_after = max(1, math.ceil(max(exceeded) - now))
        return not exceeded

    def wait(self) -> float | None:
        return self.retry_after

    @staticmethod
    def _limits(request: Request, view: Any) -> list[throttling.SimpleRateThrottle]:
        """DRF's throttles for the client and the view's scope: they know the rates and keys."""
        if request.user and request.user.is_authenticated:
            limits: list[throttling.SimpleRateThrottle] = [throttling.UserRateThrottle()]
        else:
            limits = [throttling.AnonRateThrottle()]
        scope = getattr(view, "throttle_scope", None)
        if scope:
            scoped = throttling.ScopedRateThrottle()
            scoped.scope = scope
            scoped.rate = scoped.get_rate()
            scoped.num_requests, scoped.duration = rate_parse(scoped.rate)
            limits.append(scoped)
        return limits


def rate_parse(rate: str | None) -> tuple[int | None, int | None]:
    """DRF's `"5/min"`, and a period of several units, `"5/10s"` (chat's burst limit)."""
    if rate is None:
        return None, None
    num, period = rate.split("/")
    units = period.lstrip("0123456789")
    return int(num), int(period[: len(period) - len(units)] or 1) * _UNIT_SECONDS[units[0]]


_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def rate_limits_spend(*, user: Any, scope: str) -> int | None:
    """Count one action of the signed-in `user` made outside a request, against the limits of a
    request to a view of `throttle_scope = scope` (their `user` rate and the scope's): a move sent
    over a socket spends the budget of one sent over HTTP. None if within them, else the seconds
    to wait.

    Counted through this process's leases (`rate_leases`): one round trip to the cache per
    `lease_size` actions instead of one per action."""
    limits = RateLimits()
    request = cast(Request, SimpleNamespace(user=user))
    view = SimpleNamespace(throttle_scope=scope)
    now = limits.timer()
    counters = []
    for limit in limits._limits(request, view):
        key = limit.get_cache_key(request, view) if limit.rate is not None else None
        if key is not None:
            window = int(now // limit.duration)
            counters.append(
                Counter(f"{key}:{window}", limit.num_requests, limit.duration, window, limit.cache)
            )
    return rate_leases.spend(counters, now=now)


class Counter(NamedTuple):
    """One limit's counter for the window `window` of `duration` seconds: at most `allowed`."""

    key: str
    allowed: int
    duration: int
    window: int
    cache: Any

    @property
    def window_end(self) -> int:
        return (self.window + 1) * self.duration


def lease_size(allowed: int) -> int:
    """How many units of a limit of `allowed` a window a process takes from the shared counter at
    once: a twentieth of it (1 below 40: those limits are counted one by one), at most 100."""
    return max(1, min(allowed // 20, 100))


class RateLeases:
    """Units of the shared counters (in the cache, shared by every process) leased by this
    process, spent locally: an action outside a request (`rate_limits_spend`: a move over a
    socket, a chat message) costs a round trip to the cache only when a counter it spends has no
    unit left here, and that trip leases `lease_size` units at once (`INCRBY`).

    The limit holds across processes: a unit is spent only once the shared counter has counted
    it, so all processes together never let more than the limit through in a window. The slack
    is the other way: units leased and not spent yet count as spent, so a client whose actions
    go through several processes may be refused up to `lease_size - 1` units (5% of the limit)
    early for each process holding some of its units, in that window only (a lease never
    outlives its window). An action refused still spends a unit of every limit it was within,
    as over HTTP (`RateLimits`: every request counts)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # window end -> counter key -> units leased and not spent.
        self._left: dict[int, dict[str, int]] = {}

    def spend(self, counters: list[Counter], *, now: float) -> int | None:
        """Spend one unit of each counter; None if every one had a unit, else the seconds to
        wait for the longest exceeded window."""
        if not counters:
            return None
        # Held across the round trip: the threads of a process lease one after the other, so
        # at most one lease per counter is unspent here (the slack above).
        with self._lock:
            for end in [end for end in self._left if end <= now]:
                del self._left[end]
            short = [c for c in counters if self._units(c) <= 0]
            if short:
                sizes = [lease_size(c.allowed) for c in short]
                counts = cache_count_many(
                    short[0].cache, [(c.key, c.duration) for c in short], by=sizes
                )
                for counter, size, count in zip(short, sizes, counts, strict=True):
                    # The shared count before this lease, then what of it fits the limit.
                    granted = max(0, min(size, counter.allowed - (count - size)))
                    self._left.setdefault(counter.window_end, {})[counter.key] = granted
            exceeded = []
            for counter in counters:
                units = self._units(counter)
                if units > 0:
                    self._left[counter.window_end][counter.key] = units - 1
                else:
                    exceeded.append(counter.window_end)
        if exceeded:
            return max(1, math.ceil(max(exceeded) - now))
        return None

    def _units(self, counter: Counter) -> int:
        return self._left.get(counter.window_end, {}).get(counter.key, 0)

    def forget(self) -> None:
        """Drop every lease (tests: the cache they were counted in was emptied)."""
        with self._lock:
            self._left = {}

    def _after_fork(self) -> None:
        # A forked server process holds none of its parent's units.
        self._lock = threading.Lock()
        self._left = {}


rate_leases = RateLeases()
os.register_at_fork(after_in_child=rate_leases._after_fork)
