"""Rate limits counted per window, in one cache round trip: the limit holds, `Retry-After` is the
time left in the window, and a new window starts afresh."""

import pytest
from rest_framework.throttling import SimpleRateThrottle

from greycircle.api.throttling import UserRateThrottle

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_a_minute(monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "user", "3/min")


def test_a_user_gets_the_rate_then_429_with_the_seconds_left(alice, client_for, three_a_minute):
    client = client_for(alice)
    answers = [client.get("/api/v1/me/") for _ in range(4)]
    assert [answer.status_code for answer in answers] == [200, 200, 200, 429]
    assert answers[-1].json()["code"] == "throttled"
    assert 1 <= int(answers[-1].headers["Retry-After"]) <= 60


def test_each_user_has_their_own_count(alice, bob, client_for, three_a_minute):
    for _ in range(3):
        client_for(alice).get("/api/v1/me/")
    assert client_for(bob).get("/api/v1/me/").status_code == 200


def test_the_next_window_starts_afresh(alice, client_for, three_a_minute, monkeypatch):
    now = [600.0]
    monkeypatch.setattr(UserRateThrottle, "timer", lambda self: now[0])
    client = client_for(alice)
    assert [client.get("/api/v1/me/").status_code for _ in range(4)][-1] == 429
    now[0] += 60
    assert client.get("/api/v1/me/").status_code == 200
