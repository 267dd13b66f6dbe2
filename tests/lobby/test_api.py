"""`/api/v1/seeks/`: seek, list, read, cancel, the pools' counts, and the refusals' error shape."""

from __future__ import annotations

import pytest

from greycircle.lobby.models import Seek, SeekStatus

pytestmark = pytest.mark.django_db

LIVE = {"kind": "circles", "time_control": {"minutes": 3, "increment": 2}}


def test_a_seek_is_answered_waiting_then_the_second_is_matched(seeker, client_for):
    alice, bob = client_for(seeker()), client_for(seeker(1550))
    first = alice.post("/api/v1/seeks/", LIVE, format="json")
    assert first.status_code == 201, first.content
    body = first.json()
    assert body["status"] == "waiting"
    assert body["game"] is None
    assert body["mine"] is True
    assert body["pool"] == "circles:3+2:2:rated"
    assert body["time_control"] == {"minutes": 3, "increment": 2}
    assert (body["speed"], body["seats"], body["rated"], body["rating"]) == ("live", 2, True, 1500)
    assert [seek["id"] for seek in bob.get("/api/v1/seeks/").json()["results"]] == [body["id"]]
    second = bob.post("/api/v1/seeks/", LIVE, format="json").json()
    assert second["status"] == "matched"
    mine = alice.get(f"/api/v1/seeks/{body['id']}/").json()
    assert mine["status"] == "matched"
    assert mine["game"] == second["game"]
    envelope = alice.get(f"/api/v1/games/{mine['game']}/").json()
    assert envelope["status"] == "active"


def test_a_seek_is_cancelled_with_delete_and_only_by_its_seeker(seeker, client_for):
    alice, bob = client_for(seeker()), client_for(seeker())
    seek = alice.post("/api/v1/seeks/", {**LIVE, "rating_range": {"min": 0, "max": 10}}).json()
    assert bob.delete(f"/api/v1/seeks/{seek['id']}/").status_code == 404
    assert alice.delete(f"/api/v1/seeks/{seek['id']}/").status_code == 204
    again = alice.delete(f"/api/v1/seeks/{seek['id']}/")
    assert again.status_code == 400
    assert again.json()["code"] == "not_waiting"
    assert Seek.objects.get(pk=seek["id"]).status == SeekStatus.CANCELLED
    assert bob.get(f"/api/v1/seeks/{seek['id']}/").status_code == 404


def test_the_pools_counts(seeker, client_for):
    alice = client_for(seeker())
    alice.post("/api/v1/seeks/", {"kind": "circles", "days_per_move": 7, "rated": False})
    assert alice.get("/api/v1/seeks/pools/").json() == [
        {
            "pool": "circles:7d:2:casual",
            "kind": "circles",
            "seats": 2,
            "speed": "correspondence",
            "time_control": None,
            "days_per_move": 7,
            "rated": False,
            "waiting": 1,
            "playing": 0,
        }
    ]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"kind": "chess"}, "unknown_kind"),
        ({**LIVE, "time_control": {"minutes": 0, "increment": 2}}, "bad_time_control"),
        ({**LIVE, "time_control": "3+2"}, "bad_time_control"),
        ({"kind": "circles", "days_per_move": 2}, "bad_days_per_move"),
        ({**LIVE, "rating_range": {"min": "a"}}, "bad_rating_range"),
        ({**LIVE, "rating_range": {"min": 1800, "max": 1700}}, "bad_rating_range"),
        ({**LIVE, "seats": 4}, "bad_seats"),
    ],
)
def test_a_bad_seek_is_refused_in_the_error_shape(seeker, client_for, body, code):
    response = client_for(seeker()).post("/api/v1/seeks/", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == code
    assert not Seek.objects.exists()


def test_a_guest_is_refused_a_rated_seek(seeker, client_for):
    response = client_for(seeker(is_guest=True)).post("/api/v1/seeks/", LIVE, format="json")
    assert (response.status_code, response.json()["code"]) == (400, "guest_rated")


def test_seeking_is_rate_limited(seeker, client_for, monkeypatch, rate_window_still):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "seek_create", "2/min")
    alice = client_for(seeker())
    for _ in range(2):
        seek = alice.post("/api/v1/seeks/", LIVE, format="json").json()
        alice.delete(f"/api/v1/seeks/{seek['id']}/")
    response = alice.post("/api/v1/seeks/", LIVE, format="json")
    assert response.status_code == 429
    assert response.json()["code"] == "throttled"


def test_signing_in_is_required(client):
    assert client.get("/api/v1/seeks/").status_code in (401, 403)
