"""Rate limits counted per window, all of a request's in one cache round trip: each limit holds,
`Retry-After` is the time left in the window, and a new window starts afresh."""

import pytest
from rest_framework.throttling import SimpleRateThrottle

from greycircle.api.throttling import RateLimits

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_a_minute(monkeypatch, rate_window_still):
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
    monkeypatch.setattr(RateLimits, "timer", lambda self: now[0])
    client = client_for(alice)
    assert [client.get("/api/v1/me/").status_code for _ in range(4)][-1] == 429
    now[0] += 60
    assert client.get("/api/v1/me/").status_code == 200


@pytest.mark.usefixtures("tictactoe")
def test_a_request_counts_all_its_limits_in_one_call(alice, client_for, monkeypatch):
    from greycircle.api import throttling

    calls = []
    count_many = throttling.cache_count_many

    def counting(cache, counters):
        calls.append([key.split(":")[0] for key, _ in counters])
        return count_many(cache, counters)

    monkeypatch.setattr(throttling, "cache_count_many", counting)
    client = client_for(alice)
    client.get("/api/v1/me/")
    game = client.post(
        "/api/v1/games/", {"kind": "tictactoe", "seats": [{"ai_level": "first"}]}, format="json"
    ).json()
    client.post(
        f"/api/v1/games/{game['id']}/moves/",
        {"expected_version": game["version"], "move": {"cell": 4}},
        format="json",
    )
    assert calls == [
        ["throttle_user_" + str(alice.pk)],
        ["throttle_user_" + str(alice.pk), "throttle_game_create_" + str(alice.pk)],
        ["throttle_user_" + str(alice.pk), "throttle_moves_" + str(alice.pk)],
    ]


@pytest.mark.usefixtures("rate_window_still")
def test_an_anonymous_client_is_counted_by_address(client, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "anon", "2/min")
    statuses = [client.get("/api/v1/leaderboards/circles/").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
