"""`ws/me/` with the messages between friends (greycircle.conversations.consumers), through the
real application and consumer: its `hello` carries the unread messages' count, read as the socket
connects and again when it is told to resync, so a client that missed frames sets its badge."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from greycircle.asgi import application
from greycircle.conversations import services
from greycircle.games import events
from tests.api.socket_frames import FramesChecked
from tests.factories import befriend, session_cookie

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


async def connected(user) -> tuple[FramesChecked, dict]:
    """`user`'s `ws/me/` (each frame checked against `MeSocketFrame`) and its hello."""
    cookie = await sync_to_async(session_cookie)(user)
    socket = FramesChecked(
        application, "/ws/me/", headers=[(b"origin", b"http://testserver"), (b"cookie", cookie)]
    )
    assert (await socket.connect())[0]
    return socket, await socket.receive_json_from()


def _messages(alice, bob, *bodies: str):
    befriend(alice, bob)
    conversation = services.conversation_start(user=alice, username="bob")
    for body in bodies:
        services.direct_message_send(user=alice, conversation_id=conversation.pk, body=body)
    return conversation


async def test_the_hello_carries_the_unread_messages_count(alice, bob):
    # The second one the screening hides: bob never sees it, so it is not his to read.
    await sync_to_async(_messages)(alice, bob, "good game", "piece of shit", "rematch?")

    bobs, hello = await connected(bob)
    alices, alice_hello = await connected(alice)

    assert hello == {
        "type": "hello",
        "user": "bob",
        "unread_count": hello["unread_count"],  # the notifications' (their own tests)
        "messages_unread_count": 2,
    }
    assert alice_hello["messages_unread_count"] == 0  # her own messages are not unread
    for socket in (bobs, alices):
        await socket.disconnect()


async def test_a_reconnecting_client_learns_what_changed_while_it_was_away(alice, bob):
    conversation = await sync_to_async(_messages)(alice, bob, "good game")
    bobs, hello = await connected(bob)
    assert hello["messages_unread_count"] == 1
    await bobs.disconnect()

    # While bob's socket is closed: one more message, which no frame tells him of.
    send = sync_to_async(services.direct_message_send)
    await send(user=alice, conversation_id=conversation.pk, body="rematch?")

    bobs, hello = await connected(bob)
    assert hello["messages_unread_count"] == 2
    await sync_to_async(services.conversation_read)(user=bob, conversation_id=conversation.pk)
    await bobs.disconnect()
    bobs, hello = await connected(bob)
    assert hello["messages_unread_count"] == 0
    await bobs.disconnect()


async def test_a_resync_sends_the_hello_again_with_the_count_as_it_is_now(alice, bob):
    """A publish that failed is made up for by a `live.resync` to the group that missed it
    (greycircle.games.events.missed): the socket sends its hello again, read now."""
    conversation = await sync_to_async(_messages)(alice, bob, "good game")
    bobs, hello = await connected(bob)
    assert hello["messages_unread_count"] == 1
    # A message whose frames are taken to be lost: bob's socket is told to resync instead.
    send = sync_to_async(services.direct_message_send)
    await send(user=alice, conversation_id=conversation.pk, body="rematch?")
    while (await bobs.receive_json_from())["type"] != "messages_unread":
        pass  # the message's own frames, which a real loss would not have sent

    group = events.user_group(bob.pk)
    await get_channel_layer().group_send(group, {"type": "live.resync", "group": group})

    again = await bobs.receive_json_from()
    assert (again["type"], again["user"], again["messages_unread_count"]) == ("hello", "bob", 2)
    await bobs.disconnect()
