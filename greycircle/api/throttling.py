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
import time
from types import SimpleNamespace
from typing import Any, cast

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
    to wait."""
    limits = RateLimits()
    request = cast(Request, SimpleNamespace(user=user))
    if limits.allow_request(request, SimpleNamespace(throttle_scope=scope)):
        return None
    return int(cast(float, limits.retry_after))
