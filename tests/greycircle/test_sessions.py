"""Sessions come from the cache, written through to the database; a cached copy lives at most
five minutes, so what the database says holds again soon after a Redis outage."""

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import cache

from greycircle import sessions
from greycircle.sessions import SessionStore

pytestmark = pytest.mark.django_db


def test_a_saved_session_is_in_the_database_and_the_cache():
    session = SessionStore()
    session["seen"] = "today"
    session.create()

    assert Session.objects.filter(session_key=session.session_key).exists()
    assert cache.get(session.cache_key)["seen"] == "today"


def test_a_cached_copy_lives_at_most_five_minutes(monkeypatch):
    lives = []
    original = cache.set
    monkeypatch.setattr(
        cache,
        "set",
        lambda key, value, timeout=None, version=None: (
            lives.append(timeout) or original(key, value, timeout, version)
        ),
    )
    session = SessionStore()
    session.set_expiry(30 * 24 * 3600)
    session.create()

    assert lives
    assert max(lives) == sessions.CACHE_SECONDS


def test_a_session_the_cache_lost_is_read_from_the_database():
    session = SessionStore()
    session["seen"] = "today"
    session.create()
    cache.delete(session.cache_key)

    assert SessionStore(session.session_key)["seen"] == "today"
