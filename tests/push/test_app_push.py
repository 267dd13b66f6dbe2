"""App push: `/api/v1/push/devices/`, and notifications pushed through FCM (a local stand-in,
tests/push/fcm_service.py, which checks the site's OAuth assertion) and APNs (apns_service.py):
what each answer does to the device, its last failure included."""

from __future__ import annotations

import socket
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.core.cache import cache
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from rest_framework.test import APIClient

from greycircle.notifications.models import NotificationKind
from greycircle.notifications.tasks import NOTIFICATIONS_QUEUE
from greycircle.push import app_push, tasks, webpush
from greycircle.push.models import PushDevice
from tests.notifications.conftest import notify
from tests.push.conftest import APP_ID

pytestmark = pytest.mark.django_db(transaction=True)

DEVICES = "/api/v1/push/devices/"
TOKEN = "fcm-token:" + "A1b2_C3d4-" * 15


def register(client, token: str = TOKEN, **changes):
    return client.post(
        DEVICES, {"platform": "fcm", "token": token, "app_id": APP_ID, **changes}, format="json"
    )


def app_tasks():
    return DBTaskResult.objects.filter(task_path=tasks.app_push_send.module_path)


def test_an_app_registers_and_again_moves_it_to_whoever_did(fcm_service, client_for, alice, bob):
    response = register(client_for(alice))
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "platform", "app_id", "created"}
    assert (body["platform"], body["app_id"]) == ("fcm", APP_ID)
    assert PushDevice.objects.get().user == alice

    assert register(client_for(bob)).json()["id"] == body["id"]
    assert PushDevice.objects.get().user == bob


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"platform": "pager"}, "invalid"),
        ({"token": "short"}, "invalid_token"),
        ({"token": "has spaces " * 5}, "invalid_token"),
        ({"token": "A" * 600}, "invalid"),
        ({"app_id": "com.elsewhere.app"}, "unknown_app"),
        ({"app_id": "not an id"}, "unknown_app"),
    ],
)
def test_devices_the_site_cannot_push_to_are_refused(fcm_service, client_for, alice, changes, code):
    response = register(client_for(alice), **changes)
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert not PushDevice.objects.exists()


def test_without_fcm_credentials_apps_cannot_register(client_for, alice, settings):
    settings.FCM_CREDENTIALS = ""
    settings.PUSH_APP_IDS = [APP_ID]
    response = register(client_for(alice))
    assert (response.status_code, response.json()["code"]) == (400, "platform_unavailable")
    assert not PushDevice.objects.exists()


def test_only_signed_in_users_register_devices(fcm_service, alice):
    assert register(APIClient()).status_code == 401
    assert APIClient().delete(f"{DEVICES}?id=1").status_code == 401
    assert not PushDevice.objects.exists()


def test_an_app_unregisters_by_token_or_id_and_only_its_own(fcm_service, client_for, alice, bob):
    first = register(client_for(alice)).json()
    second = register(client_for(alice), token=TOKEN + "x").json()

    assert client_for(bob).delete(f"{DEVICES}?id={first['id']}").status_code == 204
    assert PushDevice.objects.count() == 2
    by_token = f"{DEVICES}?{urlencode({'platform': 'fcm', 'token': TOKEN})}"
    assert client_for(alice).delete(by_token).status_code == 204
    assert list(PushDevice.objects.values_list("pk", flat=True)) == [second["id"]]
    assert client_for(alice).delete(f"{DEVICES}?id={second['id']}").status_code == 204
    assert not PushDevice.objects.exists()


@pytest.mark.parametrize("query", ["", "?token=abc", "?platform=fcm", "?id=0"])
def test_unregistering_names_the_device(fcm_service, client_for, alice, query):
    response = client_for(alice).delete(f"{DEVICES}{query}")
    assert (response.status_code, response.json()["code"]) == (400, "invalid")


def test_a_notification_reaches_the_app_through_fcm(
    fcm_service, client_for, bob, run_tasks, settings
):
    settings.SITE_URL = "https://games.example.com"
    register(client_for(bob))
    first = notify(
        bob, NotificationKind.YOUR_TURN, text="Your turn against alice", link="/games/7/"
    )
    second = notify(bob, NotificationKind.FRIEND_REQUEST, text="carol wants to be your friend")
    assert tasks.push_enqueue(notification=first)
    assert tasks.push_enqueue(notification=second)
    assert app_tasks().first().queue_name == NOTIFICATIONS_QUEUE
    run_tasks()

    assert fcm_service.refused == []
    turn, friend = fcm_service.messages_to(TOKEN)
    assert turn == {
        "token": TOKEN,
        "notification": {"title": "Grey Circle Games", "body": "Your turn against alice"},
        "data": {
            "url": "https://games.example.com/games/7/",
            "tag": f"notification-{first.pk}",
            "notification": str(first.pk),
        },
        "android": {
            "priority": "high",
            "collapse_key": f"notification-{first.pk}",
            "ttl": f"{webpush.TTL_SECONDS}s",
            "notification": {"tag": f"notification-{first.pk}"},
        },
    }
    assert friend["android"]["priority"] == "normal"
    assert len(fcm_service.access_tokens) == 1  # one access token, kept for both
    assert PushDevice.objects.get().last_success is not None


def test_a_token_fcm_no_longer_knows_is_removed(fcm_service, client_for, bob, run_tasks):
    register(client_for(bob))
    fcm_service.answer(TOKEN, 404)
    tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    run_tasks()
    assert len(fcm_service.messages_to(TOKEN)) == 1
    assert not PushDevice.objects.exists()
    assert not app_tasks().filter(status="READY").exists()


def test_an_unavailable_fcm_is_tried_again_later(fcm_service, client_for, bob, run_tasks):
    register(client_for(bob))
    fcm_service.answer(TOKEN, 503)
    tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    started = timezone.now()
    run_tasks()

    [retry] = app_tasks().filter(status="READY")
    assert retry.run_after >= started + timedelta(seconds=webpush.RETRY_BASE_SECONDS)
    failed = PushDevice.objects.get()
    assert failed.last_failure >= started
    assert (failed.last_failure_status, failed.last_failure_reason) == (
        503,
        f"{webpush.FAILURE_BUSY} (UNAVAILABLE)",  # FCM's error code, not its message
    )
    app_tasks().update(run_after=timezone.now())
    run_tasks()
    assert len(fcm_service.messages_to(TOKEN)) == 2
    assert not app_tasks().filter(status="READY").exists()
    delivered = PushDevice.objects.get()
    assert delivered.last_success > delivered.last_failure  # the failure is kept, as history


def test_fcm_not_answering_is_a_failure_without_a_status(
    fcm_service, client_for, bob, run_tasks, settings
):
    register(client_for(bob))
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    # The access token still comes from the stand-in; the message goes where nobody listens.
    settings.FCM_BASE_URL = f"http://127.0.0.1:{port}"
    tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    run_tasks()

    assert app_tasks().filter(status="READY").count() == 1  # tried again later
    failed = PushDevice.objects.get()
    assert failed.last_failure is not None
    assert (failed.last_failure_status, failed.last_failure_reason) == (
        None,
        f"{webpush.FAILURE_NO_ANSWER} (ConnectError)",
    )


def test_an_app_push_given_up_says_so(fcm_service, client_for, bob):
    register(client_for(bob))
    fcm_service.answer(TOKEN, 503)
    notification = notify(bob, NotificationKind.FRIEND_REQUEST)

    retry = app_push.app_push_deliver(notification_id=notification.pk, attempt=webpush.RETRIES_MAX)

    assert retry is None
    kept = PushDevice.objects.get()
    assert (kept.last_failure_status, kept.last_failure_reason) == (
        503,
        f"given up after {webpush.RETRIES_MAX + 1} tries",
    )


def test_an_app_push_task_run_again_pushes_nothing_twice(fcm_service, client_for, bob, run_tasks):
    """As for browsers (test_webpush): a task queued again after FCM took its message, by
    games.heartbeats or a retry, sends it no second time."""
    register(client_for(bob))
    notification = notify(bob, NotificationKind.FRIEND_REQUEST)
    tasks.push_enqueue(notification=notification)
    run_tasks()
    tasks.app_push_send.enqueue(notification.pk)
    tasks.app_push_send.enqueue(notification.pk, [PushDevice.objects.get().pk], 1)
    run_tasks()

    assert len(fcm_service.messages_to(TOKEN)) == 1


def test_a_refused_message_is_logged_and_not_retried(
    fcm_service, client_for, bob, run_tasks, caplog
):
    register(client_for(bob))
    fcm_service.answer(TOKEN, 400)
    notification = notify(bob, NotificationKind.FRIEND_REQUEST, text="carol wants to be friends")
    tasks.push_enqueue(notification=notification)
    run_tasks()
    assert len(fcm_service.messages_to(TOKEN)) == 1
    assert not app_tasks().filter(status="READY").exists()
    refused = PushDevice.objects.get()
    assert refused.last_failure is not None
    assert (refused.last_failure_status, refused.last_failure_reason) == (
        400,
        f"{webpush.FAILURE_REFUSED} (INVALID_ARGUMENT)",
    )
    # FCM's message quoted the token: neither it nor the push is kept or logged.
    logged = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert logged == [
        f"app push of notification {notification.pk} refused by fcm with 400 INVALID_ARGUMENT; "
        "not retried"
    ]
    for text in (refused.last_failure_reason, *logged):
        assert TOKEN not in text
        assert "carol" not in text


def test_a_user_on_the_site_gets_no_app_push(fcm_service, client_for, bob, run_tasks):
    register(client_for(bob))
    cache.set(f"presence:{bob.pk}", 1, timeout=None)
    assert not tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    run_tasks()
    assert fcm_service.messages == []


# --- APNs (the local stand-in speaks HTTP/2 only, as Apple's does) -------------------------------

DEVICE_TOKEN = "ab12" * 16


def register_ios(client, token: str = DEVICE_TOKEN):
    return register(client, token=token, platform="apns")


def test_an_ios_app_registers_with_its_hex_device_token(apns_service, client_for, alice):
    response = register_ios(client_for(alice))
    assert response.status_code == 201
    assert response.json()["platform"] == "apns"
    refused = register_ios(client_for(alice), token="not-hex-" * 10)
    assert (refused.status_code, refused.json()["code"]) == (400, "invalid_token")
    assert PushDevice.objects.count() == 1


def test_without_an_apns_key_ios_apps_cannot_register(client_for, alice, settings):
    settings.APNS_KEY = ""
    settings.PUSH_APP_IDS = [APP_ID]
    response = register_ios(client_for(alice))
    assert (response.status_code, response.json()["code"]) == (400, "platform_unavailable")


def test_a_notification_reaches_the_ios_app_through_apns(
    apns_service, client_for, bob, run_tasks, settings
):
    settings.SITE_URL = "https://games.example.com"
    register_ios(client_for(bob))
    turn = notify(bob, NotificationKind.YOUR_TURN, text="Your turn against alice", link="/games/7/")
    assert tasks.push_enqueue(notification=turn)
    run_tasks()

    assert apns_service.refused == []
    [push] = apns_service.pushes_to(DEVICE_TOKEN)
    assert push.body == {
        "aps": {
            "alert": {"title": "Grey Circle Games", "body": "Your turn against alice"},
            "thread-id": f"notification-{turn.pk}",
        },
        "url": "https://games.example.com/games/7/",
        "notification": turn.pk,
    }
    assert push.headers["apns-topic"] == APP_ID
    assert push.headers["apns-push-type"] == "alert"
    assert push.headers["apns-priority"] == "10"
    assert push.headers["apns-collapse-id"] == f"notification-{turn.pk}"
    assert PushDevice.objects.get().last_success is not None


@pytest.mark.parametrize(("status", "reason"), [(410, "Unregistered"), (400, "BadDeviceToken")])
def test_a_device_token_apns_says_is_gone_is_removed(
    apns_service, client_for, bob, run_tasks, status, reason
):
    register_ios(client_for(bob))
    apns_service.answer(DEVICE_TOKEN, status, reason)
    tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    run_tasks()
    assert len(apns_service.pushes_to(DEVICE_TOKEN)) == 1
    assert not PushDevice.objects.exists()


def test_an_unavailable_apns_is_tried_again_later(apns_service, client_for, bob, run_tasks):
    register_ios(client_for(bob))
    apns_service.answer(DEVICE_TOKEN, 503, "ServiceUnavailable")
    tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    run_tasks()
    assert app_tasks().filter(status="READY").count() == 1
    failed = PushDevice.objects.get()
    assert (failed.last_failure_status, failed.last_failure_reason) == (
        503,
        f"{webpush.FAILURE_BUSY} (ServiceUnavailable)",
    )

    app_tasks().update(run_after=timezone.now())
    run_tasks()
    assert len(apns_service.pushes_to(DEVICE_TOKEN)) == 2
    assert PushDevice.objects.get().last_success is not None


def test_a_push_apns_refuses_is_kept_as_the_devices_failure(
    apns_service, client_for, bob, run_tasks
):
    register_ios(client_for(bob))
    apns_service.answer(DEVICE_TOKEN, 400, "BadTopic")
    tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    run_tasks()

    assert len(apns_service.pushes_to(DEVICE_TOKEN)) == 1
    assert not app_tasks().filter(status="READY").exists()  # not tried again
    refused = PushDevice.objects.get()
    assert refused.last_failure is not None
    assert (refused.last_failure_status, refused.last_failure_reason) == (
        400,
        f"{webpush.FAILURE_REFUSED} (BadTopic)",
    )


def test_a_recipient_with_both_kinds_of_app_gets_both(
    apns_service, fcm_service, client_for, bob, run_tasks
):
    register_ios(client_for(bob))
    register(client_for(bob))
    tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    run_tasks()
    assert len(apns_service.pushes_to(DEVICE_TOKEN)) == 1
    assert len(fcm_service.messages_to(TOKEN)) == 1
