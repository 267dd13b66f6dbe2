"""The unsubscribe link of notification e-mails: a page that asks, and one-click POST (RFC 8058)."""

from __future__ import annotations

import pytest
from django.core import signing
from django.test import Client

from accounts.models import User
from greycircle.notifications import mail
from greycircle.notifications.models import NotificationKind
from tests.notifications.conftest import notify, verify

pytestmark = pytest.mark.django_db


def preferences(user) -> dict[str, bool]:
    user.refresh_from_db()
    return {name: getattr(user, name) for name in User.EMAIL_PREFERENCES}


def unsubscribe_path(user, preference: str) -> str:
    return f"/unsubscribe/{mail.unsubscribe_token(user_id=user.pk, preference=preference)}/"


def test_the_link_asks_first_and_changes_nothing(alice, client):
    before = preferences(alice)
    response = client.get(unsubscribe_path(alice, "email_game_over"))
    assert response.status_code == 200
    content = response.content.decode()
    assert "Stop e-mail about games that are over?" in content
    assert "alice" in content
    assert 'method="post"' in content
    assert preferences(alice) == before


@pytest.mark.parametrize("preference", User.EMAIL_PREFERENCES)
def test_the_button_turns_off_exactly_that_preference(preference, alice):
    User.objects.filter(pk=alice.pk).update(**dict.fromkeys(User.EMAIL_PREFERENCES, True))
    client = Client(enforce_csrf_checks=True)  # nobody is logged in; no CSRF cookie either
    response = client.post(unsubscribe_path(alice, preference))
    assert response.status_code == 200
    assert "Unsubscribed" in response.content.decode()
    assert preferences(alice) == {name: name != preference for name in User.EMAIL_PREFERENCES}


def test_one_click_unsubscribe_from_the_mail_header(alice, mailoutbox, settings, monkeypatch):
    """A mail client POSTs `List-Unsubscribe=One-Click` to the List-Unsubscribe URL."""
    settings.SITE_URL = "https://games.example.com"
    verify(alice)
    mail.notification_mail_deliver(
        notification_id=notify(alice, NotificationKind.TIME_RUNNING_OUT).pk
    )
    [message] = mailoutbox
    url = message.extra_headers["List-Unsubscribe"].strip("<>")
    path = url.removeprefix("https://games.example.com")

    response = Client(enforce_csrf_checks=True).post(
        path,
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )

    assert response.status_code == 200
    assert preferences(alice)["email_time_running_out"] is False
    assert preferences(alice)["email_game_over"] is True
    # No more of that kind; other kinds still come.
    for kind in (NotificationKind.TIME_RUNNING_OUT, NotificationKind.GAME_OVER):
        mail.notification_mail_deliver(notification_id=notify(alice, kind).pk)
    assert [m.subject for m in mailoutbox[1:]] == ["Game over for alice"]


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_tampered_token_is_refused_and_changes_nothing(method, alice, bob, client):
    token = mail.unsubscribe_token(user_id=alice.pk, preference="email_game_over")
    forged = [
        token[:-2] + ("AA" if not token.endswith("AA") else "BB"),  # signature changed
        signing.dumps([bob.pk, "email_game_over"], salt="elsewhere"),  # another purpose's salt
        mail.unsubscribe_token(user_id=alice.pk, preference="is_staff"),  # not a preference
        mail.unsubscribe_token(user_id=999_999, preference="email_game_over"),  # nobody
        "nonsense",
    ]
    before = {user.pk: preferences(user) for user in (alice, bob)}
    for bad in forged:
        response = getattr(client, method)(f"/unsubscribe/{bad}/")
        assert response.status_code == 400, bad
        assert "This unsubscribe link is not valid" in response.content.decode()
    assert {user.pk: preferences(user) for user in (alice, bob)} == before


def test_the_token_of_another_user_cannot_be_made_from_ones_own(alice, bob, client):
    """Swapping the user id in a token breaks its signature."""
    import base64
    import json

    token = mail.unsubscribe_token(user_id=alice.pk, preference="email_game_over")
    payload, signature = token.rsplit(":", 1)
    swapped = (
        base64.urlsafe_b64encode(
            json.dumps([bob.pk, "email_game_over"], separators=(",", ":")).encode()
        )
        .decode()
        .rstrip("=")
    )
    assert swapped != payload
    response = client.post(f"/unsubscribe/{swapped}:{signature}/")
    assert response.status_code == 400
    assert preferences(bob)["email_game_over"] is True
