"""`/api/v1/push/web/`: the site's VAPID key, and registering and removing browsers."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from rest_framework.test import APIClient

from greycircle.push import keys
from greycircle.push.models import WebPushSubscription
from greycircle.push.services import SUBSCRIPTIONS_MAX
from tests.push.conftest import SUBSCRIPTIONS
from tests.push.push_service import Browser, b64url

pytestmark = pytest.mark.django_db

KEY = "/api/v1/push/web/"


def test_the_key_is_the_point_browsers_subscribe_with_and_stays_the_same(client_for, alice, bob):
    first = client_for(alice).get(KEY)
    assert first.status_code == 200
    key = first.json()["vapid_public_key"]
    point = keys.b64url_decode(key)
    assert len(point) == 65
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)  # on the curve
    assert client_for(bob).get(KEY).json() == {"vapid_public_key": key}


def test_the_key_is_the_settings_when_set(client_for, alice, settings):
    private_key = keys.vapid_private_key_new()
    settings.WEBPUSH_VAPID_PRIVATE_KEY = private_key
    assert client_for(alice).get(KEY).json() == {
        "vapid_public_key": keys.public_key_of(private_key)
    }


def test_only_signed_in_users_may_use_push(alice):
    anonymous = APIClient()
    browser = Browser(endpoint="https://push.example.com/push/abc")
    assert anonymous.get(KEY).status_code == 401
    assert anonymous.post(SUBSCRIPTIONS, browser.subscription(), format="json").status_code == 401
    assert anonymous.delete(f"{SUBSCRIPTIONS}?id=1").status_code == 401
    assert not WebPushSubscription.objects.exists()


def test_a_browser_subscribes_and_again_moves_it_to_whoever_did(client_for, alice, bob):
    browser = Browser(endpoint="https://push.example.com/push/abc")
    response = client_for(alice).post(SUBSCRIPTIONS, browser.subscription(), format="json")

    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "endpoint", "created", "renewal_token"}
    assert body["endpoint"] == browser.endpoint
    subscription = WebPushSubscription.objects.get()
    assert (subscription.pk, subscription.user) == (body["id"], alice)
    assert subscription.p256dh == browser.subscription()["keys"]["p256dh"]
    assert subscription.auth == browser.subscription()["keys"]["auth"]

    again = client_for(bob).post(SUBSCRIPTIONS, browser.subscription(), format="json")
    assert again.status_code == 201
    assert again.json()["id"] == body["id"]
    assert WebPushSubscription.objects.get().user == bob


def test_the_browser_is_labelled_by_its_user_agent(client_for, alice):
    browser = Browser(endpoint="https://push.example.com/push/abc")
    client = client_for(alice)
    client.post(SUBSCRIPTIONS, browser.subscription(), format="json", HTTP_USER_AGENT="Firefox/150")
    assert WebPushSubscription.objects.get().user_agent == "Firefox/150"


@pytest.mark.parametrize(
    ("endpoint", "code"),
    [
        ("http://push.example.com/push/abc", "invalid_endpoint"),  # not https
        ("ftp://push.example.com/push/abc", "invalid_endpoint"),
        ("https://127.0.0.1/push/abc", "invalid_endpoint"),  # the site's own network
        ("https://10.1.2.3/push/abc", "invalid_endpoint"),
        ("https://[::1]/push/abc", "invalid_endpoint"),
        ("https://localhost/push/abc", "invalid_endpoint"),
        ("https://user:secret@push.example.com/push/abc", "invalid_endpoint"),
        ("https://push.example.com:99999/push/abc", "invalid_endpoint"),
        ("https://push.example.com/push/a b", "invalid_endpoint"),
        ("https://[push/abc", "invalid_endpoint"),
        ("push.example.com/push/abc", "invalid_endpoint"),
        ("https://push.example.com/" + "a" * 1100, "invalid"),  # longer than any push service's
        ("", "invalid"),
    ],
)
def test_endpoints_the_site_may_not_push_to_are_refused(client_for, alice, endpoint, code):
    subscription = Browser(endpoint="https://push.example.com/push/abc").subscription()
    subscription["endpoint"] = endpoint
    response = client_for(alice).post(SUBSCRIPTIONS, subscription, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == code
    assert not WebPushSubscription.objects.exists()


def test_plain_http_is_refused_unless_the_host_is_listed(client_for, alice, settings):
    subscription = Browser(endpoint="http://127.0.0.1:8123/push/abc").subscription()
    assert client_for(alice).post(SUBSCRIPTIONS, subscription, format="json").status_code == 400
    settings.WEBPUSH_INSECURE_HOSTS = ["127.0.0.1"]
    assert client_for(alice).post(SUBSCRIPTIONS, subscription, format="json").status_code == 201


def _point() -> bytes:
    return keys.b64url_decode(
        Browser(endpoint="https://x.example/p/1").subscription()["keys"]["p256dh"]
    )


@pytest.mark.parametrize(
    ("members", "code"),
    [
        ({"p256dh": "not base64url!"}, "invalid_keys"),
        ({"p256dh": b64url(_point()[:64])}, "invalid_keys"),  # too short
        ({"p256dh": b64url(b"\x04" + bytes(64))}, "invalid_keys"),  # not on the curve
        ({"auth": b64url(bytes(15))}, "invalid_keys"),
        ({"auth": "AAAAAAAAAAAAAAAAAAAA+w"}, "invalid_keys"),  # base64, not base64url
        ({"auth": "A" * 500}, "invalid"),
        ({"p256dh": None}, "invalid"),
    ],
)
def test_keys_that_cannot_be_encrypted_to_are_refused(client_for, alice, members, code):
    subscription = Browser(endpoint="https://push.example.com/push/abc").subscription()
    subscription["keys"].update(members)
    response = client_for(alice).post(SUBSCRIPTIONS, subscription, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == code
    assert not WebPushSubscription.objects.exists()


def test_a_subscription_without_keys_is_refused(client_for, alice):
    response = client_for(alice).post(
        SUBSCRIPTIONS, {"endpoint": "https://push.example.com/push/abc"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["fields"].keys() == {"keys"}


def test_past_the_cap_the_oldest_subscription_goes(client_for, alice):
    client = client_for(alice)
    endpoints = [f"https://push.example.com/push/{n}" for n in range(SUBSCRIPTIONS_MAX + 1)]
    for endpoint in endpoints:
        assert (
            client.post(
                SUBSCRIPTIONS, Browser(endpoint=endpoint).subscription(), format="json"
            ).status_code
            == 201
        )

    kept = set(WebPushSubscription.objects.filter(user=alice).values_list("endpoint", flat=True))
    assert kept == set(endpoints[1:])


def test_a_browser_unsubscribes_by_endpoint_or_id(client_for, alice):
    client = client_for(alice)
    first, second = (
        client.post(
            SUBSCRIPTIONS,
            Browser(endpoint=f"https://push.example.com/push/{n}").subscription(),
            format="json",
        ).json()
        for n in range(2)
    )

    response = client.delete(f"{SUBSCRIPTIONS}?{urlencode({'endpoint': first['endpoint']})}")
    assert response.status_code == 204
    assert list(WebPushSubscription.objects.values_list("pk", flat=True)) == [second["id"]]
    assert client.delete(f"{SUBSCRIPTIONS}?id={second['id']}").status_code == 204
    assert not WebPushSubscription.objects.exists()
    # Gone either way: removing it again is no error.
    assert client.delete(f"{SUBSCRIPTIONS}?id={second['id']}").status_code == 204


def test_nobody_unsubscribes_another_users_browser(client_for, alice, bob):
    browser = Browser(endpoint="https://push.example.com/push/abc")
    created = client_for(alice).post(SUBSCRIPTIONS, browser.subscription(), format="json").json()

    assert client_for(bob).delete(f"{SUBSCRIPTIONS}?id={created['id']}").status_code == 204
    by_endpoint = f"{SUBSCRIPTIONS}?{urlencode({'endpoint': browser.endpoint})}"
    assert client_for(bob).delete(by_endpoint).status_code == 204
    assert WebPushSubscription.objects.get().user == alice


@pytest.mark.parametrize("query", ["", "?id=0", "?id=x", "?id=99999999999999999999"])
def test_unsubscribing_names_the_subscription(client_for, alice, query):
    response = client_for(alice).delete(f"{SUBSCRIPTIONS}{query}")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


def test_the_schema_types_the_push_api(client):
    paths = client.get("/api/schema/?format=json").json()["paths"]
    assert set(paths["/api/v1/push/web/"]) == {"get"}
    assert set(paths["/api/v1/push/web/subscriptions/"]) == {"post", "delete"}
    assert set(paths["/api/v1/push/web/subscriptions/renew/"]) == {"post"}
    assert set(paths["/api/v1/push/devices/"]) == {"post", "delete"}
