"""The API's rate limits, counted per fixed window: one cache round trip per request.

DRF's throttles keep, per client, the list of its request times in the cache: every request reads
it, unpickles it, trims it, pickles it and writes it back, up to `num_requests` floats (600 for a
signed-in user) and two round trips to Redis, and on the path of every move. These count requests
per window of the rate's duration instead (a Redis INCR); a client may send up to twice the rate
across the boundary of two windows, which a rate limit tolerates. The rates and scopes are DRF's
(`DEFAULT_THROTTLE_RATES`), `Retry-After` the seconds left in the window.
"""

from __future__ import annotations

import math
from typing import Any

from rest_framework import throttling
from rest_framework.request import Request

from greycircle.cache import cache_count


class FixedWindowRateThrottle(throttling.SimpleRateThrottle):
    """DRF's `SimpleRateThrottle`, counting per window. DRF's throttles below come first in the
    bases of ours, so that their own `allow_request` (the scoped one finds its rate) runs first."""

    window_end: float = 0.0

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        self.now = self.timer()
        window = int(self.now // self.duration)
        self.window_end = (window + 1) * self.duration
        return cache_count(self.cache, f"{key}:{window}", self.duration) <= self.num_requests

    def wait(self) -> float:
        return max(1, math.ceil(self.window_end - self.now))


class UserRateThrottle(throttling.UserRateThrottle, FixedWindowRateThrottle):
    pass


class AnonRateThrottle(throttling.AnonRateThrottle, FixedWindowRateThrottle):
    pass


class ScopedRateThrottle(throttling.ScopedRateThrottle, FixedWindowRateThrottle):
    pass
