"""Rate limits counted per window, all of a request's in one cache round trip: each limit holds,
`Retry-After` is the time left in the window, and a new window starts afresh."""

import pytest
from rest_framework.throttling import SimpleRateThrottle

from greycircle.api import throttling
from greycircle.api.throttling import RateLimits, lease_size, rate_limits_spend

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


# Actions outside a request (`rate_limits_spend`: moves over a socket, chat messages) spend units
# that their process leased from the shared counter, `lease_size` at a time.


def test_a_lease_is_a_twentieth_of_the_limit_small_limits_counted_one_by_one():
    sizes = {allowed: lease_size(allowed) for allowed in (1, 39, 40, 120, 600, 10**6)}
    assert sizes == {1: 1, 39: 1, 40: 2, 120: 6, 600: 30, 10**6: 100}


@pytest.mark.usefixtures("rate_window_still")
def test_actions_outside_requests_take_one_round_trip_per_lease_and_keep_the_limit(
    alice, monkeypatch
):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "moves", "100/min")
    trips = []
    count_many = throttling.cache_count_many

    def counting(cache, counters, *, by):
        trips.append(by)
        return count_many(cache, counters, by=by)

    monkeypatch.setattr(throttling, "cache_count_many", counting)
    answers = [rate_limits_spend(user=alice, scope="moves") for _ in range(101)]
    assert answers[:100] == [None] * 100
    assert 1 <= answers[100] <= 60
    # 20 leases of 5 moves (with 4 of 30 of the user's own limit), then the refused one's trip.
    assert len(trips) == 21


@pytest.mark.usefixtures("rate_window_still")
def test_processes_sharing_a_counter_never_let_more_than_the_limit_through(alice, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "moves", "100/min")
    processes = [throttling.RateLeases(), throttling.RateLeases(), throttling.RateLeases()]
    allowed = 0
    for turn in range(150):
        monkeypatch.setattr(throttling, "rate_leases", processes[turn % 7 % 3])
        allowed += rate_limits_spend(user=alice, scope="moves") is None
    # Units leased and not spent count as spent: at most a lease short of it for each process
    # holding some (the documented slack), never more.
    assert 100 - 2 * (lease_size(100) - 1) <= allowed <= 100


def test_a_lease_ends_with_its_window(alice, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "moves", "40/min")
    now = [600.0]
    monkeypatch.setattr(RateLimits, "timer", lambda self: now[0])
    answers = [rate_limits_spend(user=alice, scope="moves") for _ in range(41)]
    assert answers[-2:] == [None, 60]
    now[0] += 60
    assert rate_limits_spend(user=alice, scope="moves") is None
