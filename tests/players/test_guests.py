"""Guests: one click to a game against the computer, becoming a full account, idle removal."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from allauth.account.adapter import get_adapter
from allauth.account.models import EmailAddress
from django.core import mail
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone

from accounts import friends, guests
from accounts.errors import AccountPermissionDenied
from accounts.models import User
from greycircle.games import selectors, services
from greycircle.games.errors import GameInvalid
from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec
from greycircle.players.guests import guest_game_start, guests_remove_idle
from greycircle.ratings.models import PlayerRating
from greycircle.ratings.selectors import leaderboard
from tests.factories import let_anyone_invite

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-long-pass-phrase"
GAME_URL = re.compile(r"^/games/(\d+)/$")


def play_as_guest(client: Client | None = None, **data) -> tuple[Client, User, Game]:
    """Press "Play now as a guest" on the home page, as a browser does (CSRF checked). A signed-in
    `client` sees no such button (its home page lists its games) but may post the same form."""
    signed_in = client is not None
    client = client or Client(enforce_csrf_checks=True)
    home = client.get("/")
    assert ("Play now as a guest" in home.content.decode()) is not signed_in
    token = client.cookies["csrftoken"].value
    response = client.post("/guest/", {"csrfmiddlewaretoken": token, "kind": "circles", **data})
    assert response.status_code == 302, response
    game_id = int(GAME_URL.match(response["Location"]).group(1))
    game = Game.objects.with_seats().get(pk=game_id)
    return client, game.seats.all()[0].user, game


def upgrade(client: Client, **fields):
    page = client.get("/account/upgrade/")
    assert page.status_code == 200
    data = {
        "username": "erin",
        "email": "erin@example.com",
        "password1": NEW_PASSWORD,
        "password2": NEW_PASSWORD,
        **fields,
    }
    return client.post(
        "/account/upgrade/", {"csrfmiddlewaretoken": client.cookies["csrftoken"].value, **data}
    )


def test_play_now_makes_a_signed_in_guest_and_a_game_against_the_computer():
    client, guest, game = play_as_guest()

    assert guest.is_guest
    assert re.fullmatch(r"guest-[a-z2-9]{6}", guest.username)
    assert guest.email == ""
    assert not guest.has_usable_password()
    assert game.kind == "circles"
    assert game.status == GameStatus.ACTIVE
    assert [(seat.user_id, seat.ai_level) for seat in game.seats.all()] == [
        (guest.pk, ""),
        (None, "easy"),
    ]
    # Signed in at once, for as long as a guest may stay away.
    assert client.session.get_expiry_age() == pytest.approx(30 * 24 * 3600, abs=60)
    page = client.get(f"/games/{game.pk}/")
    assert page.status_code == 200
    assert "You are playing as a guest" in page.content.decode()


def test_play_now_when_signed_in_starts_a_game_without_a_new_account(alice):
    client = Client()
    client.force_login(alice)
    response = client.post("/guest/", {"kind": "kingscorner"})
    game = Game.objects.with_seats().get(pk=GAME_URL.match(response["Location"]).group(1))
    assert game.kind == "kingscorner"
    assert game.seats.all()[0].user == alice
    assert User.objects.filter(is_guest=True).count() == 0


def test_an_unknown_kind_makes_no_guest():
    response = Client().post("/guest/", {"kind": "chess"})
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert not User.objects.filter(is_guest=True).exists()


def test_guest_accounts_are_limited_per_address(monkeypatch):
    monkeypatch.setattr(guests, "GUESTS_PER_HOUR", 2)
    for _ in range(2):
        assert Client().post("/guest/").status_code == 302
    refused = Client().post("/guest/")
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert "Too many guest accounts" in refused.content.decode()
    assert User.objects.filter(is_guest=True).count() == 2
    # Another address is not held up.
    assert Client(REMOTE_ADDR="10.0.0.9").post("/guest/").status_code == 302


def test_upgrade_keeps_the_same_account_and_its_games():
    client, guest, game = play_as_guest()
    services.game_resign(game_id=game.pk, user=guest)
    _, _, second = play_as_guest(client)

    response = upgrade(client)

    assert response.status_code == 302
    assert response["Location"] == "/games/"
    user = User.objects.get(pk=guest.pk)
    assert (user.username, user.email, user.is_guest) == ("erin", "erin@example.com", False)
    assert user.check_password(NEW_PASSWORD)
    address = EmailAddress.objects.get(user=user)
    assert (address.email, address.primary, address.verified) == ("erin@example.com", True, False)
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["erin@example.com"]
    assert {g.pk for g in selectors.games_for_user(user=user)} == {game.pk, second.pk}
    # Still signed in (the new password did not end the session), and no longer a guest.
    page = client.get("/games/?list=finished")
    assert page.status_code == 200
    assert f"/games/{game.pk}/" in page.content.decode()
    assert "You are playing as a guest" not in page.content.decode()
    assert Client().login(username="erin", password=NEW_PASSWORD)


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"username": "ALICE"}, "already exists"),
        ({"username": "\u0430lice"}, "looks the same"),  # a Cyrillic a (U+0430)
        ({"username": "aIice"}, "looks the same"),  # a capital I
        ({"username": "guest-abc"}, "the site's own"),
        ({"username": "de1eted-7"}, "the site's own"),
        ({"password2": "something-else"}, "same password"),
        ({"password1": "erin12", "password2": "erin12"}, "too short"),
    ],
)
def test_upgrade_checks_like_sign_up(alice, fields, error):
    client, guest, _ = play_as_guest()
    response = upgrade(client, **fields)
    assert response.status_code == 200
    assert error in html.unescape(response.content.decode())
    guest.refresh_from_db()
    assert guest.is_guest
    assert not guest.has_usable_password()


def test_only_guests_upgrade(alice):
    client = Client()
    client.force_login(alice)
    assert client.get("/account/upgrade/")["Location"] == "/settings/"


def test_sign_up_refuses_the_names_the_site_gives_out():
    adapter = get_adapter()
    for name in ("guest-7k3x9q", "Guest-x", "deleted-12", "de1eted-12"):
        with pytest.raises(ValidationError):
            adapter.clean_username(name)
    assert adapter.clean_username("guesthouse") == "guesthouse"


def test_guests_cannot_befriend_or_be_befriended(alice):
    guest = guests.guest_create()
    with pytest.raises(AccountPermissionDenied) as sent:
        friends.friend_request_send(sender=guest, username="alice")
    assert sent.value.code == "guest_account"
    with pytest.raises(AccountPermissionDenied) as received:
        friends.friend_request_send(sender=alice, username=guest.username)
    assert received.value.code == "guest_account"


def test_guests_cannot_befriend_through_the_api(client_for, alice):
    response = client_for(guests.guest_create()).post(
        "/api/v1/friends/requests/", {"username": "alice"}, format="json"
    )
    assert response.status_code == 403
    assert response.json()["code"] == "guest_account"


def test_guests_neither_invite_nor_are_invited(alice):
    guest = guests.guest_create()
    let_anyone_invite(alice, guest)
    with pytest.raises(GameInvalid):
        services.game_create(creator=alice, kind="circles", opponents=[SeatSpec(user=guest)])
    with pytest.raises(GameInvalid):
        services.game_create(creator=guest, kind="circles", opponents=[SeatSpec(user=alice)])


def test_guests_are_not_on_leaderboards(alice):
    guest = guests.guest_create()
    for user in (alice, guest):
        PlayerRating.objects.create(user=user, kind="circles", rating=1600, deviation=60, games=9)
    assert [rating.user for rating in leaderboard(kind="circles")] == [alice]


def test_guests_have_no_email_settings():
    client, _, _ = play_as_guest()
    page = client.get("/settings/").content.decode()
    assert "E-mail me when" not in page
    assert "/account/upgrade/" in page


def away(user: User, *, days: float) -> None:
    moment = timezone.now() - timedelta(days=days)
    User.objects.filter(pk=user.pk).update(date_joined=moment, last_login=moment)


def test_idle_guests_are_removed_and_active_ones_kept(alice):
    idle_alone = guests.guest_create()
    _, computer_game = guest_game_start(user=idle_alone)
    idle_with_people = guests.guest_create()
    table = services.game_create(creator=alice, kind="circles", opponents=[SeatSpec()])
    services.game_join(game_id=table.pk, user=idle_with_people)
    recent = guests.guest_create()
    _, recent_game = guest_game_start(user=recent)
    for user in (idle_alone, idle_with_people, alice):
        away(user, days=31)
    away(recent, days=40)
    User.objects.filter(pk=recent.pk).update(last_login=timezone.now() - timedelta(days=2))

    assert guests_remove_idle() == 2

    # Alone with computers: the guest and their games are gone.
    assert not User.objects.filter(pk=idle_alone.pk).exists()
    assert not Game.objects.filter(pk=computer_game.pk).exists()
    # Played a person: resigned and anonymised, as a deleted account.
    anonymised = User.objects.get(pk=idle_with_people.pk)
    assert anonymised.deleted_at is not None
    assert not anonymised.is_active
    table.refresh_from_db()
    assert table.status == GameStatus.FINISHED
    assert table.outcome["winners"] == [0]
    assert selectors.seats_json(game=Game.objects.with_seats().get(pk=table.pk))[1]["name"] == (
        "deleted player"
    )
    # Seen lately, or not a guest: kept.
    assert User.objects.get(pk=recent.pk).is_guest
    assert Game.objects.filter(pk=recent_game.pk).exists()
    assert User.objects.get(pk=alice.pk).is_active
    assert guests_remove_idle() == 0


def test_a_visit_renews_the_guest(settings):
    client, guest, _ = play_as_guest()
    away(guest, days=29)
    session = client.session
    session.pop("guest_seen", None)
    session.save()

    client.get("/")

    guest.refresh_from_db()
    assert timezone.now() - guest.last_login < timedelta(minutes=1)
    assert guests_remove_idle() == 0
    settings.GUESTS_IDLE_DAYS = 0.5
    assert guests_remove_idle(now=timezone.now() + timedelta(days=1)) == 1
