"""Failed log-ins are limited per client address and per (address, login), and say when to retry.

Before, five wrong passwords for an account from anywhere refused even the right one, from
everywhere, with no Retry-After: anyone could lock anyone out. Client addresses are the peer's
unless NUM_PROXIES trusts proxies, so rotating X-Forwarded-For escapes no limit.
"""

import pytest
from django.contrib.auth.hashers import make_password
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

APP_LOGIN = "/_allauth/app/v1/auth/login"
BROWSER_LOGIN = "/_allauth/browser/v1/auth/login"
ATTACKER = "203.0.113.66"
OWNER = "198.51.100.7"


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def victim():
    # Hashed with the fast hasher above: every failed attempt checks the password against it.
    return UserFactory(username="victim", password=make_password(PASSWORD))


def app_login(username: str, password: str, ip: str, forwarded_for: str | None = None):
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    return APIClient().post(
        APP_LOGIN,
        {"username": username, "password": password},
        format="json",
        REMOTE_ADDR=ip,
        headers=headers,
    )


def browser_form_login(login: str, password: str, ip: str):
    client = Client(enforce_csrf_checks=True, REMOTE_ADDR=ip)
    client.get("/accounts/login/")
    token = client.cookies["csrftoken"].value
    return client.post(
        "/accounts/login/", {"csrfmiddlewaretoken": token, "login": login, "password": password}
    )


def retry_after(response) -> int:
    assert "Retry-After" in response, dict(response.headers)
    seconds = int(response["Retry-After"])
    assert 0 < seconds <= 3600
    return seconds


# --- per (address, account) ----------------------------------------------------------------------


def test_the_attacker_is_limited_and_told_when_to_retry(victim):
    for _ in range(5):
        assert app_login("victim", "wrong", ATTACKER).status_code == 400

    refused = app_login("victim", PASSWORD, ATTACKER)

    assert refused.status_code == 429
    assert refused.json()["status"] == 429
    assert 240 <= retry_after(refused) <= 300  # 5 in 5 minutes


def test_the_owner_is_not_locked_out_by_failures_from_another_address(victim):
    for _ in range(20):
        assert app_login("victim", "wrong", ATTACKER).status_code in (400, 429)
    assert app_login("victim", "wrong", ATTACKER).status_code == 429

    response = app_login("victim", PASSWORD, OWNER)

    assert response.status_code == 200, response.content
    assert response.json()["data"]["user"]["username"] == "victim"


def test_the_owner_can_still_log_in_in_the_browser(victim):
    for _ in range(20):
        app_login("victim", "wrong", ATTACKER)
    for login in ("victim", "victim@example.com"):
        assert browser_form_login(login, PASSWORD, OWNER).status_code == 302


def test_a_successful_login_does_not_count_as_a_failure(victim):
    for _ in range(4):
        app_login("victim", "wrong", OWNER)
    for _ in range(3):
        assert app_login("victim", PASSWORD, OWNER).status_code == 200
    assert app_login("victim", "wrong", OWNER).status_code == 400


def test_the_browser_form_answers_429_with_retry_after_and_says_when(victim):
    for _ in range(5):
        assert browser_form_login("victim", "wrong", ATTACKER).status_code == 200

    refused = browser_form_login("victim", PASSWORD, ATTACKER)

    assert refused.status_code == 429
    retry_after(refused)
    [error] = refused.context["form"].non_field_errors()
    assert error.startswith("Too many failed login attempts. Try again in ")
    assert "Too many failed login attempts" in refused.content.decode()


def test_the_headless_browser_client_gets_retry_after_too(victim):
    client = Client(REMOTE_ADDR=ATTACKER)
    for _ in range(5):
        client.post(
            BROWSER_LOGIN, {"username": "victim", "password": "x"}, content_type="application/json"
        )
    refused = client.post(
        BROWSER_LOGIN, {"username": "victim", "password": PASSWORD}, content_type="application/json"
    )
    assert refused.status_code == 429
    retry_after(refused)


# --- per address --------------------------------------------------------------------------------


def test_one_address_cannot_try_many_accounts(victim):
    for n in range(10):
        assert app_login(f"someone{n}", "wrong", ATTACKER).status_code == 400

    refused = app_login("victim", PASSWORD, ATTACKER)

    assert refused.status_code == 429
    assert retry_after(refused) <= 60  # 10 a minute
    assert app_login("victim", PASSWORD, OWNER).status_code == 200


def test_rotating_x_forwarded_for_escapes_no_login_limit(victim):
    for n in range(10):
        response = app_login(f"someone{n}", "wrong", ATTACKER, forwarded_for=f"10.0.0.{n}")
        assert response.status_code == 400
    refused = app_login("victim", PASSWORD, ATTACKER, forwarded_for="10.0.0.99")
    assert refused.status_code == 429


def test_a_trusted_proxys_address_is_used_when_configured(settings, victim):
    """Behind NUM_PROXIES=1 proxy, the address the proxy saw (the last one) is the client's."""
    settings.ALLAUTH_TRUSTED_PROXY_COUNT = 1
    for _ in range(5):
        app_login("victim", "wrong", "10.0.0.1", forwarded_for=f"1.1.1.1, {ATTACKER}")
    assert app_login("victim", PASSWORD, "10.0.0.1", forwarded_for=ATTACKER).status_code == 429
    response = app_login("victim", PASSWORD, "10.0.0.1", forwarded_for=f"{ATTACKER}, {OWNER}")
    assert response.status_code == 200


def test_rotating_x_forwarded_for_escapes_no_api_throttle():
    client = APIClient(REMOTE_ADDR=ATTACKER)
    statuses = [
        client.get("/api/docs/", headers={"X-Forwarded-For": f"10.0.{n // 250}.{n % 250}"})
        for n in range(61)
    ]
    assert [r.status_code for r in statuses[:60]] == [200] * 60
    assert statuses[60].status_code == 429
    assert "Retry-After" in statuses[60]


# --- other allauth limits -----------------------------------------------------------------------


def test_allauths_other_rate_limits_carry_retry_after():
    client = APIClient(REMOTE_ADDR=ATTACKER)
    for _ in range(20):  # signup: 20 a minute per address
        assert client.post("/_allauth/app/v1/auth/signup", {}, format="json").status_code == 400
    refused = client.post("/_allauth/app/v1/auth/signup", {}, format="json")
    assert refused.status_code == 429
    assert retry_after(refused) == 60
