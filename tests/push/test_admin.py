"""The browsers and apps notifications are pushed to, in the admin: listed by user with how many
each has, searchable by username, deleted by staff allowed to, never showing their keys."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from greycircle.notifications.models import NotificationKind
from greycircle.push import app_push, webpush
from greycircle.push.models import PushDevice, WebPushSubscription
from greycircle.push.services import webpush_subscribe
from tests.admin_pages import staff_with
from tests.notifications.conftest import notify
from tests.push.push_service import Browser

pytestmark = pytest.mark.django_db

BROWSERS = "/admin/push/webpushsubscription/"
APPS = "/admin/push/pushdevice/"
TOKEN = "c0ffee" * 11


@pytest.fixture
def registrations(alice, bob):
    browsers = [
        Browser(endpoint=f"https://push.example.com/push/secret-{name}")
        for name in ("alice-1", "alice-2", "bob-1")
    ]
    for user, browser in zip((alice, alice, bob), browsers, strict=True):
        webpush_subscribe(
            user=user,
            endpoint=browser.endpoint,
            user_agent="Firefox/150",
            **browser.subscription()["keys"],
        )
    PushDevice.objects.create(user=bob, platform="apns", token=TOKEN, app_id="games.gc.app")
    return browsers


def listed(response) -> list:
    return list(response.context["cl"].result_list)


def test_browsers_are_listed_by_user_with_how_many_each_has_and_never_their_keys(
    admin_client, registrations, alice
):
    response = admin_client.get(BROWSERS)

    assert response.status_code == 200
    rows = listed(response)
    assert [(row.user.username, row.user_count) for row in rows] == [
        ("alice", 2),
        ("alice", 2),
        ("bob", 1),
    ]
    assert response.context["cl"].result_count == 3
    content = response.content.decode()
    assert "https://push.example.com" in content
    for browser in registrations:
        keys = browser.subscription()["keys"]
        assert keys["p256dh"] not in content
        assert keys["auth"] not in content
        assert "secret-" not in content  # the endpoint's capability part

    page = admin_client.get(f"{BROWSERS}{rows[0].pk}/change/").content.decode()
    assert "Firefox/150" in page
    assert "secret-" not in page
    assert registrations[0].subscription()["keys"]["auth"] not in page


def test_apps_show_their_platform_and_app_and_the_token_shortened(admin_client, registrations):
    response = admin_client.get(APPS)

    [device] = listed(response)
    content = response.content.decode()
    assert "games.gc.app" in content
    assert "c0ffeec0…" in content
    assert TOKEN not in content
    assert TOKEN not in admin_client.get(f"{APPS}{device.pk}/change/").content.decode()


def test_a_browsers_last_failure_is_shown_when_and_why(admin_client, registrations, alice):
    failed_at = timezone.now() - timedelta(hours=2)
    first, second = WebPushSubscription.objects.filter(user=alice).order_by("pk")
    WebPushSubscription.objects.filter(pk=first.pk).update(
        last_failure=failed_at, last_failure_status=503, last_failure_reason=webpush.FAILURE_BUSY
    )
    WebPushSubscription.objects.filter(pk=second.pk).update(
        last_failure=failed_at, last_failure_reason=webpush.FAILURE_NO_ANSWER
    )

    content = admin_client.get(BROWSERS).content.decode()
    assert "503: busy or failing: tried again later" in content
    assert "no answer: tried again later" in content
    page = admin_client.get(f"{BROWSERS}{first.pk}/change/")
    assert "503: busy or failing: tried again later" in page.content.decode()
    assert {"last_failure", "failure"} <= set(page.context["adminform"].readonly_fields)
    failing = listed(admin_client.get(BROWSERS, {"last_failure__isnull": "False"}))
    assert {row.pk for row in failing} == {first.pk, second.pk}


def test_an_apps_last_failure_is_shown_when_and_why(admin_client, registrations, bob, apns_service):
    device = PushDevice.objects.get()
    never_failed = PushDevice.objects.create(
        user=bob, platform="fcm", token="f" * 64, app_id="games.gc.app"
    )
    apns_service.answer(TOKEN, 400, "BadTopic")
    # FCM is not set up here: only the iOS device is pushed to, and APNs refuses it.
    app_push.app_push_deliver(notification_id=notify(bob, NotificationKind.FRIEND_REQUEST).pk)
    assert len(apns_service.pushes_to(TOKEN)) == 1

    content = admin_client.get(APPS).content.decode()
    assert "400: refused: not tried again (BadTopic)" in content
    page = admin_client.get(f"{APPS}{device.pk}/change/")
    assert "400: refused: not tried again (BadTopic)" in page.content.decode()
    assert {"last_failure", "failure"} <= set(page.context["adminform"].readonly_fields)
    assert TOKEN not in page.content.decode()
    failing = listed(admin_client.get(APPS, {"last_failure__isnull": "False"}))
    assert [row.pk for row in failing] == [device.pk]
    working = listed(admin_client.get(APPS, {"last_failure__isnull": "True"}))
    assert [row.pk for row in working] == [never_failed.pk]


def test_registrations_are_found_by_username(admin_client, registrations):
    assert {row.user.username for row in listed(admin_client.get(BROWSERS, {"q": "bob"}))} == {
        "bob"
    }
    assert len(listed(admin_client.get(APPS, {"q": "alice"}))) == 0


def test_staff_allowed_to_delete_a_browser_delete_it_and_nobody_adds_or_edits_one(
    registrations, alice
):
    subscription = WebPushSubscription.objects.filter(user=alice).first()
    viewer = staff_with("view_webpushsubscription")
    assert viewer.get(BROWSERS).status_code == 200
    assert viewer.post(f"{BROWSERS}{subscription.pk}/delete/", {"post": "yes"}).status_code == 403
    assert WebPushSubscription.objects.filter(pk=subscription.pk).exists()

    deleter = staff_with("view_webpushsubscription", "delete_webpushsubscription")
    response = deleter.post(
        BROWSERS,
        {"action": "delete_selected", "_selected_action": [subscription.pk], "post": "yes"},
    )
    assert response.status_code == 302
    assert not WebPushSubscription.objects.filter(pk=subscription.pk).exists()
    assert WebPushSubscription.objects.count() == 2

    admin = staff_with(*[f"{verb}_webpushsubscription" for verb in ("add", "change", "view")])
    assert admin.get(f"{BROWSERS}add/").status_code == 403
    other = WebPushSubscription.objects.filter(user=alice).get()
    admin.post(f"{BROWSERS}{other.pk}/change/", {"user_agent": "Changed"})
    assert WebPushSubscription.objects.get(pk=other.pk).user_agent == "Firefox/150"


def test_staff_allowed_to_delete_an_app_delete_it(registrations):
    device = PushDevice.objects.get()
    deleter = staff_with("view_pushdevice", "delete_pushdevice")
    response = deleter.post(f"{APPS}{device.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not PushDevice.objects.exists()
