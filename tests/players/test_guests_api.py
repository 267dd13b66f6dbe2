"""Guests through the API: `POST /api/v1/guest/` (an account and its session token, optionally a
game against the computer) and `POST /api/v1/me/upgrade/` (the same account, made full)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from django.contrib.sessions.backends.db import SessionStore
from django.core import mail
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import guests
from accounts.models import User
from greycircle.games import selectors, services
from greycircle.games.models import Game, GameStatus
from greycircle.players.guests import guests_remove_idle

pytestmark = pytest.mark.django_db

GUEST = "/api/v1/guest/"
UPGRADE = "/api/v1/me/upgrade/"
NEW_PASSWORD = "a-long-pass-phrase"


def app_guest(**data) -> tuple[APIClient, dict]:
    """An app's client that made a guest (`data` as the body) and sends its session token."""
    client = APIClient()
    response = client.post(GUEST, data)
    assert response.status_code == 201, response.content
    body = response.json()
    client.credentials(HTTP_X_SESSION_TOKEN=body["session_token"])
    return client, body


def test_an_app_gets_a_signed_in_guest_without_a_game():
    client, body = app_guest()

    assert body["game"] is None
    assert body["user"]["is_guest"] is True
    assert body["user"]["username"].startswith("guest-")
    guest = User.objects.get(pk=body["user"]["id"])
    assert guest.is_guest
    assert not guest.has_usable_password()
    assert not Game.objects.exists()
    # The token signs the app in, as a token from allauth headless does.
    me = client.get("/api/v1/me/")
    assert me.status_code == 200
    assert me.json()["id"] == guest.pk
    # It is a session of its own that lasts as long as a guest may stay away; no cookie is set.
    session = SessionStore(session_key=body["session_token"])
    assert session.get_expiry_age() == pytest.approx(30 * 24 * 3600, abs=60)
    assert "sessionid" not in client.cookies


def test_an_app_guest_can_start_a_game_against_the_computer_as_the_site_does():
    client, body = app_guest(kind="kingscorner")

    game = Game.objects.with_seats().get(pk=body["game"]["id"])
    assert game.kind == "kingscorner"
    assert game.status == GameStatus.ACTIVE
    assert [(seat.user_id, seat.ai_level) for seat in game.seats.all()] == [
        (body["user"]["id"], ""),
        (None, "easy"),
    ]
    assert body["game"]["kind"] == "kingscorner"
    assert body["game"]["you"] == 0
    assert client.get(f"/api/v1/games/{game.pk}/").status_code == 200


def test_an_unknown_kind_makes_no_guest():
    response = APIClient().post(GUEST, {"kind": "chess"})
    assert response.status_code == 400
    assert response.json()["code"] == "unknown_kind"
    assert not User.objects.filter(is_guest=True).exists()


def test_a_signed_in_user_makes_no_guest(client_for, alice):
    response = client_for(alice).post(GUEST, {"kind": "circles"})
    assert response.status_code == 403
    assert response.json()["code"] == "already_signed_in"
    assert not User.objects.filter(is_guest=True).exists()
    assert not Game.objects.exists()


def test_guest_accounts_are_limited_per_address_shared_with_the_site(monkeypatch):
    monkeypatch.setattr(guests, "GUESTS_PER_HOUR", 3)
    for _ in range(2):
        assert APIClient().post(GUEST).status_code == 201
    assert Client().post("/guest/").status_code == 302  # the site's button counts too

    refused = APIClient().post(GUEST, {"kind": "circles"})

    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled"
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert User.objects.filter(is_guest=True).count() == 3
    assert Client().post("/guest/").status_code == 429
    # Another address is not held up.
    assert APIClient(REMOTE_ADDR="10.0.0.9").post(GUEST).status_code == 201


def test_a_daily_request_renews_an_app_guest(settings):
    client, body = app_guest()
    guest = User.objects.get(pk=body["user"]["id"])
    User.objects.filter(pk=guest.pk).update(
        date_joined=timezone.now() - timedelta(days=29),
        last_login=timezone.now() - timedelta(days=29),
    )
    session = SessionStore(session_key=body["session_token"])
    session.set_expiry(timedelta(hours=1))
    session.pop("guest_seen", None)
    session.save()

    assert client.get("/api/v1/me/").status_code == 200

    guest.refresh_from_db()
    assert timezone.now() - guest.last_login < timedelta(minutes=1)
    renewed = SessionStore(session_key=body["session_token"])
    assert renewed.get_expiry_age() == pytest.approx(30 * 24 * 3600, abs=60)
    assert guests_remove_idle() == 0


def test_an_app_guest_upgrades_keeping_its_games_and_its_token():
    client, body = app_guest(kind="circles")
    guest_id, game_id = body["user"]["id"], body["game"]["id"]
    services.game_resign(game_id=game_id, user=User.objects.get(pk=guest_id))

    response = client.post(
        UPGRADE, {"username": "erin", "email": "erin@example.com", "password": NEW_PASSWORD}
    )

    assert response.status_code == 200, response.content
    assert response.json()["id"] == guest_id
    assert response.json()["username"] == "erin"
    assert response.json()["is_guest"] is False
    user = User.objects.get(pk=guest_id)
    assert (user.username, user.email, user.is_guest) == ("erin", "erin@example.com", False)
    assert user.check_password(NEW_PASSWORD)
    address = EmailAddress.objects.get(user=user)
    assert (address.email, address.primary, address.verified) == ("erin@example.com", True, False)
    assert [message.to for message in mail.outbox] == [["erin@example.com"]]
    assert [game.pk for game in selectors.games_for_user(user=user)] == [game_id]
    # The same token still signs the app in (the new password did not end its session).
    me = client.get("/api/v1/me/")
    assert me.status_code == 200
    assert me.json()["username"] == "erin"
    assert Client().login(username="erin", password=NEW_PASSWORD)


def test_a_browser_guest_upgrades_through_the_api_and_stays_signed_in():
    browser = APIClient()
    assert browser.post("/guest/").status_code == 302
    guest = User.objects.get(is_guest=True)

    response = browser.post(
        UPGRADE, {"username": "erin", "email": "erin@example.com", "password": NEW_PASSWORD}
    )

    assert response.status_code == 200, response.content
    assert browser.get("/api/v1/me/").json()["username"] == "erin"
    assert not User.objects.get(pk=guest.pk).is_guest


@pytest.mark.parametrize(
    ("fields", "field", "error"),
    [
        ({"username": "ALICE"}, "username", "already exists"),
        ({"username": "\u0430lice"}, "username", "looks the same"),  # a Cyrillic a (U+0430)
        ({"username": "aIice"}, "username", "looks the same"),  # a capital I
        ({"username": "guest-abc"}, "username", "the site's own"),
        ({"username": "de1eted-7"}, "username", "the site's own"),
        ({"email": "not-an-address"}, "email", "valid email"),
        ({"password": "erin12"}, "password", "too short"),
        ({"password": "erin-example"}, "password", "too similar"),
    ],
)
def test_upgrade_checks_like_the_site_and_sign_up(alice, fields, field, error):
    client, body = app_guest()
    data = {"username": "erin", "email": "erin@example.com", "password": NEW_PASSWORD, **fields}

    response = client.post(UPGRADE, data)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert error in " ".join(response.json()["fields"][field])
    guest = User.objects.get(pk=body["user"]["id"])
    assert guest.is_guest
    assert not guest.has_usable_password()
    assert not mail.outbox


def test_only_guests_upgrade(client_for, alice):
    response = client_for(alice).post(
        UPGRADE, {"username": "erin", "email": "erin@example.com", "password": NEW_PASSWORD}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "not_a_guest"
    alice.refresh_from_db()
    assert alice.username == "alice"


def test_upgrading_needs_a_signed_in_guest():
    response = APIClient().post(
        UPGRADE, {"username": "erin", "email": "erin@example.com", "password": NEW_PASSWORD}
    )
    assert response.status_code == 401
    assert not User.objects.filter(username="erin").exists()
