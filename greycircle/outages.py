"""Degrading instead of failing when Redis (the cache or the channel layer) is unavailable.

An `Outage` tracks one use of Redis in this process. It logs once when that use starts failing and
once when it works again, never once per request; and for a moment after a failure it tells callers
to skip Redis instead of waiting on it again, so a Redis that hangs cannot stall every request.
Other parts can act on each failure (`when_failed`): when a resync, sent to the groups whose
change a publish lost, fails too, the process's sockets are closed (greycircle.games.consumers).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable

from redis.exceptions import RedisError

logger = logging.getLogger("greycircle.outages")

# What a Redis that is down, restarting, unreachable or out of memory raises.
REDIS_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError, asyncio.TimeoutError)


class Outage:
    """Whether one use of Redis is failing in this process; thread-safe."""

    def __init__(self, what: str, *, retry_after: float = 1.0, consequence: str = "") -> None:
        self.what = what
        self.retry_after = retry_after
        self.consequence = consequence
        self._lock = threading.Lock()
        self._down = False
        self._skip_until = 0.0
        self._when_failed: list[Callable[[BaseException], None]] = []

    def when_failed(self, callback: Callable[[BaseException], None]) -> None:
        """Call `callback(error)` on every failure, in the thread that failed."""
        self._when_failed.append(callback)

    @property
    def down(self) -> bool:
        return self._down

    def skip(self) -> bool:
        """True for `retry_after` seconds after a failure: don't try Redis again yet."""
        return time.monotonic() < self._skip_until

    def failed(self, error: BaseException) -> None:
        with self._lock:
            first = not self._down
            self._down = True
            self._skip_until = time.monotonic() + self.retry_after
        if first:
            logger.warning(
                "%s: Redis is unavailable (%s: %s); %s",
                self.what,
                type(error).__name__,
                error or "no answer in time",
                self.consequence,
            )
        else:
            logger.debug("%s: Redis is still unavailable (%s)", self.what, error)
        for callback in self._when_failed:
            callback(error)

    def succeeded(self) -> None:
        if not self._down:
            return
        with self._lock:
            was_down, self._down = self._down, False
        if was_down:
            logger.info("%s: Redis is available again", self.what)

    def reset(self) -> None:
        """Forget any failure (for tests)."""
        with self._lock:
            self._down = False
            self._skip_until = 0.0
