"""`POST /api/v1/push/web/subscriptions/renew/`: the service worker's `pushsubscriptionchange`
replaces the subscription it had by the browser's new one, or removes it, with the renewal
token the registration gave, and nothing else: no session, no CSRF token, and nobody moves or
drops a subscription that is not theirs."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from greycircle.push.models import WebPushSubscription
from tests.push.conftest import SUBSCRIPTIONS
from tests.push.push_service import Browser

pytestmark = pytest.mark.django_db

RENEW = "/api/v1/push/web/subscriptions/renew/"


def worker(signed_in=None) -> APIClient:
    """The service worker's fetch: CSRF checked as for a browser, with no token, and the session
    cookie of whoever is `signed_in` (if anyone)."""
    client = APIClient(enforce_csrf_checks=True)
    if signed_in is not None:
        client.force_login(signed_in)
    return client


def registered(client, endpoint: str) -> tuple[Browser, str]:
    browser = Browser(endpoint=endpoint)
    response = client.post(SUBSCRIPTIONS, browser.subscription(), format="json")
    assert response.status_code == 201
    return browser, response.json()["renewal_token"]


def renewal(old: Browser, token: str, new: Browser | None) -> dict:
    return {
        "old_endpoint": old.endpoint,
        "renewal_token": token,
        "subscription": new.subscription() if new is not None else None,
    }


def test_the_new_subscription_replaces_the_old_for_its_user_with_a_new_token(client_for, alice):
    old, token = registered(client_for(alice), "https://push.example.com/push/old")
    kept = WebPushSubscription.objects.get()
    new = Browser(endpoint="https://push.example.com/push/new")

    response = worker(signed_in=alice).post(RENEW, renewal(old, token, new), format="json")

    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["endpoint"]) == (kept.pk, new.endpoint)
    assert body["renewal_token"] != token
    renewed = WebPushSubscription.objects.get()
    assert (renewed.pk, renewed.user, renewed.endpoint) == (kept.pk, alice, new.endpoint)
    assert renewed.p256dh == new.subscription()["keys"]["p256dh"]
    assert renewed.auth == new.subscription()["keys"]["auth"]

    # A token is good once: the old one renews nothing now, the new one does.
    newer = Browser(endpoint="https://push.example.com/push/newer")
    again = worker().post(RENEW, renewal(new, token, newer), format="json")
    assert again.status_code == 403
    assert again.json()["code"] == "renewal_refused"
    renewed_again = worker().post(RENEW, renewal(new, body["renewal_token"], newer), format="json")
    assert renewed_again.status_code == 200
    assert WebPushSubscription.objects.get().endpoint == newer.endpoint


def test_without_a_new_subscription_the_old_is_removed(client_for, alice):
    old, token = registered(client_for(alice), "https://push.example.com/push/old")

    response = worker().post(RENEW, renewal(old, token, None), format="json")

    assert response.status_code == 204
    assert not WebPushSubscription.objects.exists()


def altered(token: str) -> str:
    """`token` with its first character changed (whatever it was)."""
    return ("B" if token[0] == "A" else "A") + token[1:]


def test_nobody_moves_or_drops_a_subscription_without_its_token(client_for, alice, bob):
    alices, alices_token = registered(client_for(alice), "https://push.example.com/push/alice")
    _, bobs_token = registered(client_for(bob), "https://push.example.com/push/bob")
    mallory = Browser(endpoint="https://push.example.com/push/mallory")
    before = list(WebPushSubscription.objects.order_by("pk").values())

    attempts = [
        renewal(alices, bobs_token, mallory),  # another subscription's token
        renewal(alices, bobs_token, None),
        renewal(alices, altered(alices_token), mallory),
        renewal(alices, "", mallory),
        {**renewal(alices, alices_token, mallory), "old_endpoint": alices.endpoint + "x"},
    ]
    for attempt in attempts:
        # Signed in as bob, with his session: the cookie grants nothing here.
        for client in (worker(), worker(signed_in=bob)):
            response = client.post(RENEW, attempt, format="json")
            assert response.status_code in (400, 403), attempt
            assert response.json()["code"] in ("renewal_refused", "invalid")

    assert list(WebPushSubscription.objects.order_by("pk").values()) == before


def test_a_subscription_from_before_renewal_tokens_cannot_be_renewed(alice):
    WebPushSubscription.objects.create(
        user=alice, endpoint="https://push.example.com/push/old", p256dh="x", auth="y"
    )
    old = Browser(endpoint="https://push.example.com/push/old")
    response = worker().post(RENEW, renewal(old, "", None), format="json")
    assert response.status_code == 400  # a token is required
    response = worker().post(RENEW, renewal(old, "anything", None), format="json")
    assert response.status_code == 403
    assert WebPushSubscription.objects.exists()


@pytest.mark.parametrize(
    ("endpoint", "keys", "code"),
    [
        ("http://push.example.com/push/new", {}, "invalid_endpoint"),
        ("https://10.0.0.1/push/new", {}, "invalid_endpoint"),
        ("https://localhost/push/new", {}, "invalid_endpoint"),
        ("https://push.example.com/push/new", {"auth": "AAAA"}, "invalid_keys"),
        ("https://push.example.com/push/new", {"p256dh": "AAAA"}, "invalid_keys"),
    ],
)
def test_a_new_subscription_is_checked_as_a_registration_is(
    client_for, alice, endpoint, keys, code
):
    old, token = registered(client_for(alice), "https://push.example.com/push/old")
    body = renewal(old, token, Browser(endpoint=endpoint))
    body["subscription"]["keys"].update(keys)

    response = worker().post(RENEW, body, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == code
    assert WebPushSubscription.objects.get().endpoint == old.endpoint
    # Nothing changed: the token still renews it.
    new = Browser(endpoint="https://push.example.com/push/new")
    assert worker().post(RENEW, renewal(old, token, new), format="json").status_code == 200


def test_the_renewal_must_say_what_it_renews(client_for, alice):
    old, token = registered(client_for(alice), "https://push.example.com/push/old")
    for body in ({}, {"old_endpoint": old.endpoint, "renewal_token": token}):
        response = worker().post(RENEW, body, format="json")
        assert response.status_code == 400
        assert response.json()["code"] == "invalid"
    assert WebPushSubscription.objects.exists()


def test_a_new_endpoint_someone_else_had_moves_to_the_renewed_subscription(client_for, alice, bob):
    old, token = registered(client_for(alice), "https://push.example.com/push/old")
    taken, _ = registered(client_for(bob), "https://push.example.com/push/taken")
    alices = WebPushSubscription.objects.get(user=alice)

    response = worker().post(RENEW, renewal(old, token, taken), format="json")

    assert response.status_code == 200
    [moved] = WebPushSubscription.objects.all()
    assert (moved.pk, moved.user, moved.endpoint) == (alices.pk, alice, taken.endpoint)
