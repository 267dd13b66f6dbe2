"""The site's allauth adapter: allauth's own mails name the site, not the host it was reached at.

(Usernames and failed-login limits: test_usernames.py and test_login_limits.py.)
"""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.adapter import confirmation_notice

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase"


@pytest.mark.parametrize("host", ["127.0.0.1:8100", "games.example.com"])
def test_the_sign_up_confirmation_mail_carries_the_sites_name(host, mailoutbox, settings):
    settings.ALLOWED_HOSTS = [host.split(":")[0]]
    response = Client(HTTP_HOST=host).post(
        "/accounts/signup/",
        {"username": "dora", "email": "dora@example.com", "password1": PASSWORD,
         "password2": PASSWORD},
    )  # fmt: skip
    assert response.status_code == 302

    [mail] = mailoutbox
    assert mail.subject == "[Grey Circle Games] Please Confirm Your Email Address"
    assert mail.body.startswith("Hello from Grey Circle Games!")
    assert "Thank you for using Grey Circle Games!" in mail.body
    assert f"http://{host}/accounts/confirm-email/" in mail.body  # the link where they signed up


def test_the_apps_sign_up_and_password_reset_mails_carry_it_too(alice, mailoutbox):
    app = APIClient()
    app.post(
        "/_allauth/app/v1/auth/signup",
        {"username": "dora", "email": "dora@example.com", "password": PASSWORD},
        format="json",
    )
    app.post("/_allauth/app/v1/auth/password/request", {"email": alice.email}, format="json")

    assert [mail.subject for mail in mailoutbox] == [
        "[Grey Circle Games] Please Confirm Your Email Address",
        "[Grey Circle Games] Password Reset Email",
    ]
    assert all(mail.body.startswith("Hello from Grey Circle Games!") for mail in mailoutbox)


def test_the_confirmation_notice_sets_the_link_apart_on_a_line_of_its_own():
    notice = confirmation_notice(
        "dora@example.com", "http://127.0.0.1:8100/accounts/confirm-email/k/"
    )

    assert notice.splitlines() == [
        "",
        "=" * 72,
        "  To confirm dora@example.com, open:",
        "  http://127.0.0.1:8100/accounts/confirm-email/k/",
        "=" * 72,
        "",
    ]
