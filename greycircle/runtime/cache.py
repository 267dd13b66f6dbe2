"""A Redis cache that fails open: while Redis is unavailable it behaves as an empty cache.

Library seam (UPGRADING.md, "Django", "redis"): Django==5.2.19, redis==8.1.0. It uses the private
parts of `django.core.cache.backends.redis`: `RedisCache._class`, `_servers` and `_cache`, and
`RedisCacheClient._get_connection_pool_index`, `_get_connection_pool` and `_client`; and subclasses
`redis.ConnectionPool.from_url`. Why: Django built a `redis.Redis` (≈170 response callbacks) for
each cache operation, more CPU than its round trip, and opened a pool per request under ASGI
(commit 8615f55: a move 5.1 ms of CPU on PostgreSQL + Redis with the other changes).

The cache holds only what may be lost: throttling counters and histories (the API's and allauth's
rate limits) and the poke interval. Without Redis every read is a miss and every write is dropped,
so rate limits are not enforced until Redis is back (failing open), instead of every request
answering 500. The outage is logged once, and for a second after a failure requests skip Redis
rather than wait on it again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

from greycircle.outages import REDIS_ERRORS, Outage

T = TypeVar("T")

# One state per Redis location and process: Django makes a cache object per thread.
_outages: dict[tuple[str, ...], Outage] = {}


def outage_for(servers: list[str]) -> Outage:
    outage = Outage(
        "cache", consequence="rate limits are not enforced until it is back (logged once)"
    )
    return _outages.setdefault(tuple(servers), outage)


class SharedConnectionPool(redis.ConnectionPool):
    """One pool of Redis connections per server and process, whichever cache object asks.

    Django makes a cache object per thread and async context, which under ASGI means per request,
    and each object made its own pool: every request opened a new connection to Redis."""

    _shared: ClassVar[dict[tuple[str, str], redis.ConnectionPool]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> redis.ConnectionPool:
        key = (url, repr(sorted(kwargs.items())))
        with cls._lock:
            if key not in cls._shared:
                cls._shared[key] = super().from_url(url, **kwargs)
            return cls._shared[key]


class SharedClientRedisCacheClient(RedisCacheClient):
    """Django's Redis cache client, keeping one `redis.Redis` per pool instead of building one
    for every operation: building one (its table of ≈170 response callbacks) cost more CPU than
    the round trip it was made for. A `redis.Redis` is safe to share between threads: each command
    takes a connection from the pool."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, redis.Redis] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> redis.Redis:
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(
                connection_pool=self._get_connection_pool(write)
            )
        return client


class ResilientRedisCache(RedisCache):
    """`RedisCache` whose operations act as a miss or a no-op while Redis fails."""

    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedClientRedisCacheClient
        self.outage = outage_for(self._servers)

    def _guard(self, fallback: T, operation: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self.outage.skip():
            return fallback
        try:
            result = operation(*args, **kwargs)
        except REDIS_ERRORS as error:
            self.outage.failed(error)
            return fallback
        self.outage.succeeded()
        return result

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        # "Added": callers that take a lock or a once-per-interval slot with add() go ahead.
        return self._guard(True, super().add, key, value, timeout, version)

    def get(self, key, default=None, version=None):
        return self._guard(default, super().get, key, default, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guard(None, super().set, key, value, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guard(False, super().touch, key, timeout, version)

    def delete(self, key, version=None):
        return self._guard(False, super().delete, key, version)

    def get_many(self, keys, version=None):
        return self._guard({}, super().get_many, keys, version)

    def has_key(self, key, version=None):
        return self._guard(False, super().has_key, key, version)

    def incr(self, key, delta=1, version=None):
        missing = object()
        result = self._guard(missing, super().incr, key, delta, version)
        if result is missing:
            raise ValueError(f"Key '{key}' not found.")
        return result

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guard(list(data), super().set_many, data, timeout, version)

    def delete_many(self, keys, version=None):
        return self._guard(None, super().delete_many, keys, version)

    def clear(self):
        return self._guard(False, super().clear)

    def count_many(self, counters: list[tuple[str, int]], by: list[int] | None = None) -> list[int]:
        """Add one (or `by[i]`) to each counter `(key, timeout)` (a counter lives `timeout`
        seconds from its first count) and return them, in one round trip; 0s while Redis fails
        (limits fail open)."""

        def increment() -> list[int]:
            names = [self.make_and_validate_key(key) for key, _ in counters]
            amounts = by or [1] * len(counters)
            pipeline = self._cache.get_client(names[0], write=True).pipeline(transaction=False)
            for name, (_, timeout), amount in zip(names, counters, amounts, strict=True):
                pipeline.incr(name, amount)
                pipeline.expire(name, timeout, nx=True)
            return pipeline.execute()[::2]

        return self._guard([0] * len(counters), increment)


def cache_count_many(
    cache: Any, counters: list[tuple[str, int]], *, by: list[int] | None = None
) -> list[int]:
    """Add one (or `by[i]`) to each counter `(key, timeout)` in `cache` (living `timeout` seconds
    from its first count) and return them: one round trip on Redis, any Django cache otherwise."""
    count_many = getattr(cache, "count_many", None)  # `cache` may be a proxy of the default
    if count_many is not None:
        return count_many(counters, by) if by is not None else count_many(counters)
    amounts = by or [1] * len(counters)
    return [
        _count(cache, key, timeout, amount)
        for (key, timeout), amount in zip(counters, amounts, strict=True)
    ]


def _count(cache: Any, key: str, timeout: int, amount: int = 1) -> int:
    try:
        return cache.incr(key, amount)
    except ValueError:
        if cache.add(key, amount, timeout):
            return amount
        return cache.incr(key, amount)
