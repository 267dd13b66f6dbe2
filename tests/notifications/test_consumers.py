"""The inbox on `ws/me/`: the count on connect, each notification with the new count, reads."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from rest_framework.test import APIClient

from accounts import friends
from greycircle.asgi import application
from greycircle.games import services
from greycircle.games.services import SeatSpec
from greycircle.notifications.models import Notification
from tests.api.socket_frames import FramesChecked
from tests.factories import game_started

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("tictactoe", "close_thread_connections"),
]


def signed_in(user) -> tuple[APIClient, bytes]:
    client = APIClient()
    client.force_login(user)
    return client, f"sessionid={client.cookies['sessionid'].value}".encode()


async def stream(cookie: bytes) -> tuple[WebsocketCommunicator, dict]:
    socket = FramesChecked(
        application, "/ws/me/", headers=[(b"origin", b"http://testserver"), (b"cookie", cookie)]
    )
    assert (await socket.connect())[0]
    return socket, await socket.receive_json_from()


async def test_hello_carries_the_unread_count(alice, bob, deliver_notifications):
    await sync_to_async(friends.friend_request_send)(sender=alice, username="bob")
    await sync_to_async(deliver_notifications)()
    _, cookie = await sync_to_async(signed_in)(bob)
    socket, hello = await stream(cookie)
    # (And the unread messages' count: tests/conversations/test_consumers.py.)
    assert hello == {"type": "hello", "user": "bob", "unread_count": 1, "messages_unread_count": 0}
    await socket.disconnect()


async def test_each_notification_arrives_with_what_it_did_to_the_inbox(
    alice, bob, deliver_notifications
):
    game = await sync_to_async(game_started)(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)]
    )
    await sync_to_async(deliver_notifications)()  # those of the game's start
    _, cookie = await sync_to_async(signed_in)(bob)
    socket, hello = await stream(cookie)
    unread = hello["unread_count"]

    await sync_to_async(services.move_submit)(
        game_id=game.pk, user=alice, move={"cell": 4}, expected_version=game.version
    )
    await sync_to_async(deliver_notifications)()
    frame = await socket.receive_json_from()
    assert frame["type"] == "notification"
    assert frame["notification"]["event"] == "your_turn"
    kept = await sync_to_async(Notification.objects.get)(recipient=bob, kind="your_turn")
    assert frame["inbox"] == {
        "id": kept.pk,
        "kind": "your_turn",
        "text": "It is your turn in Tic-tac-toe against alice",
        "link": f"/games/{game.pk}/",
        "game": game.pk,
        "read": False,
        "created": frame["inbox"]["created"],
    }
    assert frame["unread_count"] == unread + 1
    assert frame["removed"] == []
    assert frame["read"] == []
    await socket.disconnect()


async def test_reading_elsewhere_updates_every_stream(alice, bob, deliver_notifications):
    await sync_to_async(friends.friend_request_send)(sender=alice, username="bob")
    await sync_to_async(deliver_notifications)()
    client, cookie = await sync_to_async(signed_in)(bob)
    tab, _ = await stream(cookie)
    other_tab, _ = await stream(cookie)
    request = await sync_to_async(Notification.objects.get)(recipient=bob)

    response = await sync_to_async(client.post)(f"/api/v1/notifications/{request.pk}/read/")
    assert response.status_code == 200
    for socket in (tab, other_tab):
        assert await socket.receive_json_from() == {
            "type": "unread",
            "unread_count": 0,
            "read": [request.pk],
        }
        await socket.disconnect()


async def test_events_not_kept_still_arrive_live(alice, bob, deliver_notifications):
    game = await sync_to_async(services.game_create)(
        creator=alice, kind="tictactoe", opponents=[SeatSpec()]
    )
    _, cookie = await sync_to_async(signed_in)(alice)
    socket, _ = await stream(cookie)
    await sync_to_async(services.game_join)(game_id=game.pk, user=bob)
    await sync_to_async(deliver_notifications)()
    events = []
    for _ in range(2):
        frame = await socket.receive_json_from()
        events.append(frame["notification"]["event"])
        if frame["notification"]["event"] == "player_joined":
            assert frame["inbox"] is None
    assert sorted(events) == ["player_joined", "your_turn"]
    await socket.disconnect()


async def test_a_game_changes_notifications_arrive_once_the_worker_runs_them(
    alice, bob, deliver_notifications
):
    """A move publishes its game frames at once, but only queues the players' notifications:
    until the task worker runs them, bob's inbox and `ws/me/` stream have nothing new."""
    game = await sync_to_async(game_started)(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)]
    )
    await sync_to_async(deliver_notifications)()  # those of the game's start
    client, cookie = await sync_to_async(signed_in)(bob)
    me, hello = await stream(cookie)
    board = FramesChecked(
        application,
        f"/ws/games/{game.pk}/",
        headers=[(b"origin", b"http://testserver"), (b"cookie", cookie)],
    )
    assert (await board.connect())[0]
    await board.receive_json_from()

    played = await sync_to_async(services.move_submit)(
        game_id=game.pk, user=alice, move={"cell": 4}, expected_version=game.version
    )

    assert (await board.receive_json_from())["envelope"]["version"] == played.version
    assert await me.receive_nothing(timeout=0.3)
    assert not await sync_to_async(
        Notification.objects.filter(recipient=bob, kind="your_turn").exists
    )()
    inbox = await sync_to_async(client.get)("/api/v1/notifications/")
    assert inbox.status_code == 200
    assert inbox.json()["unread_count"] == hello["unread_count"]

    await sync_to_async(deliver_notifications)()

    frame = await me.receive_json_from()
    assert (frame["type"], frame["notification"]["event"]) == ("notification", "your_turn")
    assert frame["notification"]["game"] == game.pk
    kept = await sync_to_async(Notification.objects.get)(recipient=bob, kind="your_turn")
    assert frame["inbox"]["id"] == kept.pk
    assert frame["unread_count"] == hello["unread_count"] + 1
    assert await me.receive_nothing(timeout=0.2), "each notification arrives once"
    await me.disconnect()
    await board.disconnect()
