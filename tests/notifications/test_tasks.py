"""The notifications' task: queued on its own queue, tried again (bounded) after database errors,
and harmless to run twice.

(The retry after a real database error, in a worker process: tests/games/test_worker.py.)"""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts import friends
from greycircle.games import invitations, reminders, services
from greycircle.games import tasks as game_tasks
from greycircle.games.events import user_group
from greycircle.games.models import Invitation
from greycircle.games.services import SeatSpec
from greycircle.notifications import delivery
from greycircle.notifications.models import DeliveryReceipt, Notification
from greycircle.notifications.services import notifications_mark_all_read
from greycircle.notifications.tasks import (
    NOTIFICATIONS_ATTEMPTS,
    NOTIFICATIONS_QUEUE,
    notifications_send,
)
from tests.factories import let_anyone_invite

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("tictactoe")]


def _news(game, user) -> list[dict]:
    about = {"game": game.pk, "kind": "tictactoe", "version": game.version}
    return [{"user_id": user.pk, "event": "your_turn", "data": about}]


def test_a_task_that_failed_on_the_database_is_queued_again_counting_its_attempt(bob, people_game):
    notifications_send.enqueue(_news(people_game, bob), attempt=2)
    row = DBTaskResult.objects.get(task_path=notifications_send.module_path)
    assert row.queue_name == NOTIFICATIONS_QUEUE

    assert game_tasks.task_retry(row, delay=0.5)

    again = DBTaskResult.objects.exclude(pk=row.pk).get()
    assert again.args_kwargs == {"args": [_news(people_game, bob)], "kwargs": {"attempt": 3}}
    assert again.queue_name == NOTIFICATIONS_QUEUE
    assert again.run_after is not None


def test_past_its_last_attempt_the_task_gives_up_with_one_error(bob, people_game, caplog):
    caplog.set_level(logging.WARNING, logger="greycircle.notifications.tasks")

    notifications_send.call(_news(people_game, bob), attempt=NOTIFICATIONS_ATTEMPTS)

    assert not Notification.objects.filter(recipient=bob, kind="your_turn").exists()
    [record] = caplog.records
    assert record.levelno == logging.ERROR
    assert f"your_turn for user {bob.pk}" in record.getMessage()
    assert not DBTaskResult.objects.filter(task_path=notifications_send.module_path).exists()


def test_a_task_run_again_applies_none_of_its_news_again(
    alice, bob, carol, people_game, deliver_notifications
):
    """A task runs again when it failed past its deliveries (the worker queues it again) or its
    worker died: a friend request, an invitation's answer and a reminder, which no game version
    tells apart from another such event, are kept and told once all the same (by their key)."""
    friends.friend_request_send(sender=alice, username="bob")
    reminders.game_poke(game_id=people_game.pk, user=bob)  # alice is to move
    let_anyone_invite(carol)
    invited = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=carol)]
    )
    invitations.invitation_decline(
        invitation_id=Invitation.objects.get(game=invited).pk, user=carol
    )
    tasks = [
        row.args_kwargs["args"]
        for row in DBTaskResult.objects.filter(task_path=notifications_send.module_path)
    ]
    deliver_notifications()
    for user in (alice, bob):
        notifications_mark_all_read(user=user)
    kept = list(Notification.objects.order_by("pk").values_list("pk", "kind", "read", "created"))

    async def told_again() -> list[str]:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        for user in (alice, bob):
            await layer.group_add(user_group(user.pk), channel)
        for args in tasks:
            await sync_to_async(notifications_send.call)(*args)
        # What the streams hear next is this, not the news of the tasks run again.
        after = [{"user_id": bob.pk, "event": "player_joined", "data": {"game": invited.pk}}]
        await sync_to_async(delivery.notifications_publish)(news=after)
        return [(await layer.receive(channel))["notification"]["event"]]

    assert async_to_sync(told_again)() == ["player_joined"]
    assert list(
        Notification.objects.order_by("pk").values_list("pk", "kind", "read", "created")
    ) == (kept)
    assert {kind for _, kind, _, _ in kept} >= {"friend_request", "reminder", "invitation_answered"}


def test_a_seat_taken_told_again_by_its_task_run_again_is_told_once(alice, people_game):
    """player_joined is kept in no inbox row (nor is game_withdrawn): its key, given by the
    receiver (test_receivers), is all that tells its second delivery apart."""
    about = {"game": people_game.pk, "kind": "tictactoe", "version": people_game.version}
    joined = {"user_id": alice.pk, "event": "player_joined", "data": {"player": "bob", **about}}

    async def told() -> list[str]:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(user_group(alice.pk), channel)
        for _ in range(2):
            await sync_to_async(notifications_send.call)([{**joined, "key": "2" * 32}])
        marker = {**joined, "event": "game_withdrawn", "data": {"by": "bob", **about}}
        await sync_to_async(delivery.notifications_publish)(news=[marker])
        return [(await layer.receive(channel))["notification"]["event"] for _ in range(2)]

    assert async_to_sync(told)() == ["player_joined", "game_withdrawn"]


def test_receipts_are_pruned_once_no_task_can_run_again(bob, people_game):
    news = [{"user_id": bob.pk, "event": "friend_request", "data": {"by": "alice", "request": 1}}]
    for key in ("0" * 32, "1" * 32):
        notifications_send.call([{**news[0], "key": key}])
    DeliveryReceipt.objects.filter(key="0" * 32).update(
        delivered_at=timezone.now() - delivery.RECEIPTS_KEPT - timedelta(minutes=1)
    )

    assert delivery.delivery_receipts_prune() == 1
    kept = {receipt.key.hex for receipt in DeliveryReceipt.objects.all()}
    assert "1" * 32 in kept
    assert "0" * 32 not in kept
