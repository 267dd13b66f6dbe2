"""A sanction and its lift told live on the player's `ws/me/`, in frames of the schema
(`ModerationNoticeEvent`), through the real consumer; nobody else hears of it."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from greycircle.asgi import application
from greycircle.moderation import sanctions
from tests.api.socket_frames import FramesChecked
from tests.factories import UserFactory, session_cookie

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


async def test_a_mute_and_its_lift_are_told_on_the_players_stream(
    alice, bob, deliver_notifications
):
    moderator = await sync_to_async(UserFactory)(username="mod", is_staff=True)
    alices, bobs = await stream(alice), await stream(bob)

    mute = await sync_to_async(sanctions.sanction_impose)(
        actor=moderator, user_id=alice.pk, kind="mute", reason="Insults.", days=1, notice="Hush."
    )
    await sync_to_async(deliver_notifications)()

    told = await alices.receive_json_from()
    assert told["notification"] == {
        "event": "moderation_notice",
        "sanction": mute.pk,
        "sanction_kind": "mute",
        "lifted": False,
        "notice": "Hush.",
        "until": told["notification"]["until"],
    }
    assert told["inbox"]["kind"] == "moderation_notice"
    assert told["inbox"]["text"].startswith("From the moderators: Hush. (until ")

    await sync_to_async(sanctions.sanction_lift)(
        actor=moderator, sanction_id=mute.pk, reason="Appeal."
    )
    await sync_to_async(deliver_notifications)()

    lifted = await alices.receive_json_from()
    assert lifted["notification"]["lifted"] is True
    assert lifted["notification"]["until"] is None
    assert await bobs.receive_nothing()
    for socket in (alices, bobs):
        await socket.disconnect()
