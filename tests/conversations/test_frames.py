"""Messages between friends on `ws/me/`, through the real consumer: each message to both
participants, a hidden one to its sender only, the unread count, the coalesced notification."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from greycircle.asgi import application
from greycircle.conversations import services
from tests.api.socket_frames import FramesChecked
from tests.factories import befriend, session_cookie

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


async def stream(user) -> FramesChecked:
    cookie = await sync_to_async(session_cookie)(user)
    socket = FramesChecked(
        application, "/ws/me/", headers=[(b"origin", b"http://testserver"), (b"cookie", cookie)]
    )
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from())["type"] == "hello"
    return socket


def _talking(alice, bob):
    befriend(alice, bob)
    return services.conversation_start(user=alice, username="bob")


async def test_messages_unread_counts_and_the_notification_arrive_live(
    alice, bob, deliver_notifications
):
    conversation = await sync_to_async(_talking)(alice, bob)
    await sync_to_async(deliver_notifications)()  # the friendship's own news
    alices, bobs = await stream(alice), await stream(bob)
    send = sync_to_async(services.direct_message_send)

    hidden = await send(user=alice, conversation_id=conversation.pk, body="piece of shit")
    shown = await send(user=alice, conversation_id=conversation.pk, body="<i>gg</i>")

    mine = [await alices.receive_json_from() for _ in range(2)]
    assert [frame["message"]["id"] for frame in mine] == [hidden.pk, shown.pk]
    # The hidden message never reaches bob: his first frame is the next one's.
    message, unread = await bobs.receive_json_from(), await bobs.receive_json_from()
    assert message == {
        "type": "direct_message",
        "conversation_id": conversation.pk,
        "message": {
            "id": shown.pk,
            "conversation": conversation.pk,
            "sender": "alice",
            "body": "<i>gg</i>",
            "created": message["message"]["created"],
        },
    }
    assert unread == {"type": "messages_unread", "count": 1}

    await sync_to_async(deliver_notifications)()
    notified = await bobs.receive_json_from()
    assert notified["notification"] == {
        "event": "message",
        "by": "alice",
        "conversation": conversation.pk,
        "message": shown.pk,
    }
    assert notified["inbox"]["text"] == "alice sent you a message"

    await sync_to_async(services.conversation_read)(user=bob, conversation_id=conversation.pk)
    frames = [await bobs.receive_json_from() for _ in range(2)]
    assert {"type": "messages_unread", "count": 0} in frames
    assert {frame["type"] for frame in frames} == {"messages_unread", "unread"}
    assert await alices.receive_nothing()
    for socket in (alices, bobs):
        await socket.disconnect()


async def test_a_message_staff_hid_leaves_its_recipient_s_pages_and_unread_count(alice, bob):
    """A report acted on hides its message (greycircle.reports.resolution reviews it so): its
    recipient's pages drop it and their count forgets it; its sender is not told to drop it."""
    conversation = await sync_to_async(_talking)(alice, bob)
    alices, bobs = await stream(alice), await stream(bob)
    send = sync_to_async(services.direct_message_send)
    insult = await send(user=alice, conversation_id=conversation.pk, body="you play like my cat")
    assert (await alices.receive_json_from())["message"]["id"] == insult.pk
    assert (await bobs.receive_json_from())["message"]["id"] == insult.pk
    assert await bobs.receive_json_from() == {"type": "messages_unread", "count": 1}

    await sync_to_async(services.direct_message_review)(message_id=insult.pk, visible=False)

    assert await bobs.receive_json_from() == {
        "type": "direct_message_removed",
        "conversation_id": conversation.pk,
        "id": insult.pk,
    }
    assert await bobs.receive_json_from() == {"type": "messages_unread", "count": 0}
    sorry = await send(user=alice, conversation_id=conversation.pk, body="sorry")
    assert (await alices.receive_json_from())["message"]["id"] == sorry.pk  # nothing before it
    for socket in (alices, bobs):
        await socket.disconnect()
