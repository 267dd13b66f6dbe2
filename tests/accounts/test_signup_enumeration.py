"""Signing up does not tell whether an e-mail address already has an account.

Before, a taken address answered `400 email_taken` (headless) or a form error (browser).
Now (ACCOUNT_PREVENT_ENUMERATION = "strict") both answer exactly as for a fresh address: the
account is created and signed in, and the address receives allauth's confirmation mail, which the
address's owner can ignore. The address is only unique once verified.
"""

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase"
SIGNUP = "/_allauth/app/v1/auth/signup"


def app_signup(username: str, email: str):
    return APIClient().post(
        SIGNUP, {"username": username, "email": email, "password": PASSWORD}, format="json"
    )


def browser_signup(username: str, email: str):
    client = Client(enforce_csrf_checks=True)
    client.get("/accounts/signup/")
    return client.post(
        "/accounts/signup/",
        {
            "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
            "username": username,
            "email": email,
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )


def shape(value):
    """The structure of a JSON value: its keys and types, not its data."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return type(value).__name__


def test_app_signup_with_a_taken_address_looks_like_a_fresh_one(alice, mailoutbox):
    fresh = app_signup("dora", "dora@example.com")
    mails_for_fresh = len(mailoutbox)
    mailoutbox.clear()
    taken = app_signup("mallory", "ALICE@example.com")

    assert fresh.status_code == taken.status_code == 200, taken.content
    assert shape(fresh.json()) == shape(taken.json())
    assert set(fresh.headers) == set(taken.headers)
    # The same mail goes out either way: for a taken address it reaches its owner.
    assert len(mailoutbox) == mails_for_fresh == 1
    assert mailoutbox[0].to == ["alice@example.com"]


def test_browser_signup_with_a_taken_address_looks_like_a_fresh_one(alice, mailoutbox):
    fresh = browser_signup("dora", "dora@example.com")
    taken = browser_signup("mallory", "alice@example.com")

    assert fresh.status_code == taken.status_code == 302
    assert fresh.url == taken.url == "/"
    assert len(mailoutbox) == 2


def test_the_owner_keeps_their_account_and_can_still_log_in_by_e_mail(alice):
    app_signup("mallory", "alice@example.com")

    response = APIClient().post(
        "/_allauth/app/v1/auth/login",
        {"email": "alice@example.com", "password": "correct-horse-battery"},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["data"]["user"]["username"] == "alice"


def test_a_verified_address_is_not_given_to_a_second_account(alice):
    EmailAddress.objects.create(user=alice, email="alice@example.com", primary=True, verified=True)

    assert app_signup("mallory", "alice@example.com").status_code == 200

    mallory = User.objects.get(username="mallory")
    assert not EmailAddress.objects.filter(user=mallory, verified=True).exists()
    assert EmailAddress.objects.filter(email="alice@example.com", verified=True).count() == 1
