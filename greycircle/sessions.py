"""Sessions read from the cache and written through to the database, with a short cache life.

Django's `cached_db` keeps a session in the cache for as long as the session lasts (weeks). A
change the cache missed while Redis was down (a log-out deletes the session from the database,
but the delete from the cache fails: greycircle.runtime.cache fails open) would then be undone for
weeks once Redis is back with its old copy. Here a cached copy lives at most `CACHE_SECONDS`, so
the database's word holds again within minutes; a request still reads its session without a
database query as long as it was used in the last `CACHE_SECONDS`.
"""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.backends import cached_db

CACHE_SECONDS = 300


class _ShortLived:
    """The session cache, with every entry's life capped at CACHE_SECONDS."""

    def __init__(self, cache: Any) -> None:
        self._cache = cache

    def set(self, key: str, value: Any, timeout: Any = None, version: Any = None) -> None:
        life = CACHE_SECONDS if timeout is None else min(timeout, CACHE_SECONDS)
        self._cache.set(key, value, life, version)

    def __contains__(self, key: str) -> bool:
        return key in self._cache

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cache, name)


class SessionStore(cached_db.SessionStore):
    def __init__(self, session_key: str | None = None) -> None:
        super().__init__(session_key)
        self._cache = _ShortLived(self._cache)
