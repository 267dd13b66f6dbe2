"""Deleting my account (`DELETE /api/v1/me/`) and downloading my data (`/api/v1/me/data/`)."""

import pytest
from rest_framework.test import APIClient


@pytest.mark.django_db
def test_deleting_me_needs_my_password(alice, bob, client_for):
    from accounts.models import User
    from greycircle.games.models import Game, GameStatus
    from greycircle.games.services import SeatSpec
    from tests.factories import game_started

    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    client = client_for(alice)
    for body in ({}, {"password": "wrong"}, {"confirm": True}):
        refused = client.delete("/api/v1/me/", body, format="json")
        assert refused.status_code == 400
        assert refused.json()["code"] == "wrong_password"
    assert User.objects.get(pk=alice.pk).is_active
    assert Game.objects.get(pk=game.pk).status == GameStatus.ACTIVE

    response = client.delete("/api/v1/me/", {"password": "correct-horse-battery"}, format="json")

    assert response.status_code == 204
    assert client.get("/api/v1/me/").status_code == 401
    gone = User.objects.get(pk=alice.pk)
    assert (gone.username, gone.is_active) == (f"deleted-{alice.pk}", False)
    game = Game.objects.get(pk=game.pk)
    assert (game.status, game.outcome["winners"]) == (GameStatus.FINISHED, [1])
    seats = client_for(bob).get(f"/api/v1/games/{game.pk}/").json()["seats"]
    assert [(seat["user"], seat["name"]) for seat in seats] == [
        (None, "deleted player"),
        ("bob", "bob"),
    ]


@pytest.mark.django_db
def test_a_guest_deletes_with_confirm(client_for):
    from accounts.guests import guest_create

    client = client_for(guest_create())
    refused = client.delete("/api/v1/me/", {}, format="json")
    assert refused.status_code == 400
    assert refused.json()["code"] == "confirmation_required"
    assert client.delete("/api/v1/me/", {"confirm": True}, format="json").status_code == 204


@pytest.mark.django_db
def test_my_data_through_the_api(alice, client_for):
    response = client_for(alice).get("/api/v1/me/data/")
    assert response.status_code == 200
    data = response.json()
    assert data["profile"]["username"] == "alice"
    assert data["games"] == data["seeks"] == data["friends"] == data["blocks"] == []
    assert data["app_devices"] == []
    assert set(data) == {
        "exported_at",
        "profile",
        "settings",
        "games",
        "seeks",
        "friends",
        "friend_requests",
        "blocks",
        "ratings",
        "notifications",
        "messages",
        "reports",
        "game_messages",
        "push_subscriptions",
        "app_devices",
    }
    assert APIClient().get("/api/v1/me/data/").status_code == 401
