"""Pushing notifications to browsers, end to end: a change, the inbox, the push task, and the
local push service (tests/push/push_service.py), which checks the VAPID signature and decrypts
each push with the browser's keys, as a browser would."""

from __future__ import annotations

import ast
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.cache import cache
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from greycircle.games import services
from greycircle.games.services import SeatSpec
from greycircle.notifications.models import Notification, NotificationKind
from greycircle.notifications.tasks import NOTIFICATIONS_QUEUE
from greycircle.push import apns, app_push, fcm, tasks, webpush
from greycircle.push.models import WebPushSubscription
from tests.factories import game_started
from tests.notifications.conftest import notify, to_move

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("tictactoe")]


@pytest.fixture
def game(alice, bob, deliver_notifications):
    """Tic-tac-toe between alice and bob in play, its start's notifications kept."""
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    deliver_notifications()
    DBTaskResult.objects.all().delete()
    return game


def online(user) -> None:
    cache.set(f"presence:{user.pk}", 1, timeout=None)


def move(game, *, cell: int = 4):
    """The player to move plays `cell`; the one who waits is returned."""
    mover = to_move(game)
    waiting = next(seat.user for seat in game.seats.all() if seat.user != mover)
    services.move_submit(
        game_id=game.pk, user=mover, move={"cell": cell}, expected_version=game.version
    )
    return waiting


def push_tasks():
    return DBTaskResult.objects.filter(task_path=tasks.webpush_send.module_path)


def make_due() -> None:
    """Bring the retries queued for later to now, as time passing would."""
    push_tasks().update(run_after=timezone.now())


def test_your_turn_reaches_the_browser_encrypted_with_what_the_inbox_shows(
    game, subscribed, push_service, run_tasks, client_for, settings
):
    settings.SITE_URL = "https://games.example.com"
    mover = to_move(game)
    waiting = next(seat.user for seat in game.seats.all() if seat.user != mover)
    browser = subscribed(waiting)
    other_browser = subscribed(mover)

    move(game)
    run_tasks()

    assert push_service.refused == []
    [push] = push_service.pushes_to(browser)
    notification = Notification.objects.get(
        recipient=waiting, game=game, kind=NotificationKind.YOUR_TURN
    )
    # Exactly the inbox's text and a link: no state, no hand, no seed.
    assert push.message == {
        "title": "Grey Circle Games",
        "body": notification.text,
        "url": f"https://games.example.com/games/{game.pk}/",
        "tag": f"game-{game.pk}",
        "notification": notification.pk,
    }
    assert push.headers["urgency"] == "high"
    assert push.headers["topic"] == f"game-{game.pk}"
    assert int(push.headers["ttl"]) == webpush.TTL_SECONDS
    assert push.claims["sub"] == settings.WEBPUSH_VAPID_SUBJECT
    assert push.vapid_key == client_for(waiting).get("/api/v1/push/web/").json()["vapid_public_key"]
    assert push_service.refused == []
    assert push_service.pushes_to(other_browser) == []  # the mover is not told of their own move
    assert WebPushSubscription.objects.get(endpoint=browser.endpoint).last_success is not None


def test_every_browser_of_the_recipient_gets_it_and_a_gone_one_is_removed(
    alice, bob, subscribed, push_service, run_tasks
):
    kept, gone, expired = subscribed(bob), subscribed(bob), subscribed(bob)
    push_service.answer(gone, 410)
    push_service.answer(expired, 404)

    notify(bob, NotificationKind.FRIEND_REQUEST, text="alice wants to be your friend")
    tasks.push_enqueue(notification=Notification.objects.get(recipient=bob))
    run_tasks()

    [push] = push_service.pushes_to(kept)
    assert push.message["body"] == "alice wants to be your friend"
    assert push.message["tag"] == f"notification-{push.message['notification']}"
    assert push.headers["urgency"] == "normal"
    assert set(WebPushSubscription.objects.values_list("endpoint", flat=True)) == {kept.endpoint}
    assert not push_tasks().filter(status="READY").exists()  # nothing to try again


def test_a_busy_push_service_is_tried_again_later(bob, subscribed, push_service, run_tasks):
    browser = subscribed(bob)
    push_service.answer(browser, 429, retry_after="120")
    tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    started = timezone.now()
    run_tasks()

    [retry] = push_tasks().filter(status="READY")
    assert retry.run_after >= started + timedelta(seconds=120)  # as the service asked
    assert retry.args_kwargs["args"][2] == 1  # the first retry
    assert len(push_service.pushes_to(browser)) == 1  # refused once, not delivered yet
    failed = WebPushSubscription.objects.get()
    assert failed.last_failure >= started
    assert (failed.last_failure_status, failed.last_failure_reason) == (429, webpush.FAILURE_BUSY)

    make_due()
    run_tasks()
    assert len(push_service.pushes_to(browser)) == 2
    assert not push_tasks().filter(status="READY").exists()
    delivered = WebPushSubscription.objects.get()
    assert delivered.last_success > delivered.last_failure  # the failure is kept, as history


def test_a_failing_push_service_is_tried_a_bounded_number_of_times(
    bob, subscribed, push_service, run_tasks
):
    browser = subscribed(bob)
    push_service.answer(browser, *[503] * (webpush.RETRIES_MAX + 5))
    tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    delays = []
    run_tasks()
    while push_tasks().filter(status="READY").exists():
        retry = push_tasks().get(status="READY")
        delays.append(retry.run_after - retry.enqueued_at)
        make_due()
        run_tasks()

    assert len(push_service.pushes_to(browser)) == webpush.RETRIES_MAX + 1
    assert delays == sorted(delays)  # backing off
    kept = WebPushSubscription.objects.get(endpoint=browser.endpoint)
    assert (kept.last_failure_status, kept.last_failure_reason) == (
        503,
        f"given up after {webpush.RETRIES_MAX + 1} tries",
    )


def test_a_refused_push_is_logged_once_and_not_retried(
    bob, subscribed, push_service, run_tasks, caplog
):
    browser = subscribed(bob)
    push_service.answer(browser, 403)
    tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    run_tasks()

    assert len(push_service.pushes_to(browser)) == 1
    assert not push_tasks().filter(status="READY").exists()
    refused = WebPushSubscription.objects.get()
    assert refused.last_failure is not None
    assert (refused.last_failure_status, refused.last_failure_reason) == (
        403,
        webpush.FAILURE_REFUSED,
    )
    assert [r.message for r in caplog.records if "refused" in r.message] == [
        f"web push of notification {Notification.objects.get().pk} refused by "
        f"{push_service.origin} with 403; not retried"
    ]


def test_a_push_task_run_again_pushes_nothing_twice(bob, subscribed, push_service, run_tasks):
    """A worker that lost its database connection after the service took the push has its task
    queued again (games.heartbeats): what a service took is not pushed again, the rest is."""
    reached, busy = subscribed(bob), subscribed(bob)
    push_service.answer(busy, 503)
    notification = notify(bob, NotificationKind.FRIEND_REQUEST)
    tasks.push_enqueue(notification=notification)
    run_tasks()

    tasks.webpush_send.enqueue(notification.pk)  # the same task again, as heartbeats queue it
    run_tasks()
    make_due()  # and the retry the first run queued for `busy`
    run_tasks()

    assert len(push_service.pushes_to(reached)) == 1
    assert len(push_service.pushes_to(busy)) == 2  # refused once, then taken once
    assert not push_tasks().filter(status="READY").exists()


def test_a_notification_refreshed_in_place_is_pushed_again(
    game, subscribed, push_service, run_tasks
):
    waiting = move(game, cell=4)
    browser = subscribed(waiting)
    game.refresh_from_db()
    move(game, cell=0)
    run_tasks()
    game.refresh_from_db()
    assert move(game, cell=8) == waiting  # their turn again: the same notification, refreshed
    run_tasks()

    first, second = push_service.pushes_to(browser)
    assert first.message["notification"] == second.message["notification"]


def test_pushes_are_queued_with_the_notifications_never_behind_computer_turns(bob, subscribed):
    subscribed(bob)
    assert tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    assert push_tasks().get().queue_name == NOTIFICATIONS_QUEUE


def test_a_user_on_the_site_gets_no_push(game, subscribed, push_service, run_tasks):
    waiting = next(seat.user for seat in game.seats.all() if seat.user != to_move(game))
    browser = subscribed(waiting)
    online(waiting)

    move(game)
    run_tasks()

    assert Notification.objects.filter(recipient=waiting, game=game).exists()  # the inbox has it
    assert push_service.pushes_to(browser) == []
    assert not push_tasks().exists()


def test_nothing_is_pushed_once_the_user_came_on_the_site_or_read_it(
    alice, bob, subscribed, push_service, run_tasks
):
    browser = subscribed(bob)
    tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    online(bob)
    run_tasks()
    cache.clear()
    read = notify(bob, NotificationKind.FRIEND_ACCEPTED)
    tasks.push_enqueue(notification=read)
    Notification.objects.filter(pk=read.pk).update(read=True)
    run_tasks()

    assert push_service.pushes_to(browser) == []


def test_users_without_a_browser_subscribed_queue_nothing(game, run_tasks):
    move(game)
    run_tasks()
    assert not push_tasks().exists()


def test_a_subscription_moved_to_another_user_gets_only_their_pushes(
    alice, bob, subscribed, push_service, run_tasks, client_for
):
    browser = subscribed(bob)
    tasks.push_enqueue(notification=notify(bob, NotificationKind.FRIEND_REQUEST))
    client_for(alice).post("/api/v1/push/web/subscriptions/", browser.subscription(), format="json")
    run_tasks()
    assert push_service.pushes_to(browser) == []


def test_the_push_senders_speak_one_http_client():
    """httpx, which APNs' HTTP/2 needs: no second client (requests) for browsers and FCM."""
    for module in (webpush, fcm, apns, app_push):
        tree = ast.parse(Path(module.__file__).read_text())
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in (node.names if isinstance(node, ast.Import) else [])
        } | {
            node.module.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        assert "requests" not in imported, module.__name__
        assert "httpx" in imported, module.__name__
