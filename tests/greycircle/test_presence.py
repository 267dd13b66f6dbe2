"""Who is online: live sockets counted in the cache, read for many users in one round trip."""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.cache import cache

from greycircle import presence
from greycircle.asgi import application
from greycircle.presence import (
    presence_key,
    presence_socket_alive,
    presence_socket_closed,
    presence_socket_opened,
    user_is_online,
    users_online,
)
from tests.api.socket_frames import FramesChecked
from tests.factories import session_cookie


class CountingCache:
    """The cache, counting the round trips made through it."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name):
        attribute = getattr(cache, name)
        if callable(attribute):

            def call(*args, **kwargs):
                self.calls.append(name)
                return attribute(*args, **kwargs)

            return call
        return attribute


def test_sockets_are_counted_and_the_last_to_close_ends_presence():
    presence_socket_opened(user_id=1)
    presence_socket_opened(user_id=1)
    presence_socket_opened(user_id=2)
    assert users_online([1, 2, 3]) == {1, 2}

    presence_socket_closed(user_id=1)
    assert user_is_online(1)
    presence_socket_closed(user_id=1)
    assert not user_is_online(1)
    assert users_online([1, 2, 3]) == {2}


def test_reading_many_users_is_one_round_trip(monkeypatch):
    for user_id in range(10):
        presence_socket_opened(user_id=user_id)
    counting = CountingCache()
    monkeypatch.setattr(presence, "cache", counting)

    assert users_online(range(5, 20)) == set(range(5, 10))
    assert counting.calls == ["get_many"]
    assert users_online([]) == set()
    assert counting.calls == ["get_many"]


def test_a_count_nobody_refreshes_expires():
    """A server that died with its sockets open leaves nobody online for long."""
    presence_socket_opened(user_id=1)
    cache.touch(presence_key(1), 0.01)  # as if PRESENCE_TIMEOUT had passed without a refresh
    time.sleep(0.05)
    assert not user_is_online(1)
    presence_socket_closed(user_id=1)  # the dead socket's close, if it ever comes: harmless
    assert not user_is_online(1)


def test_a_refresh_repairs_a_lost_or_wrong_count():
    presence_socket_alive(user_id=1)  # the count was lost (evicted, Redis restarted)
    assert user_is_online(1)
    cache.set(presence_key(1), -1)  # closes counted against a count that had been reset
    presence_socket_alive(user_id=1)
    assert user_is_online(1)


def test_closing_a_socket_whose_count_expired_does_no_harm():
    presence_socket_closed(user_id=1)
    presence_socket_opened(user_id=1)
    assert user_is_online(1)


# --- Real sockets ------------------------------------------------------------------------------


async def _socket(path: str, cookie: bytes | None) -> WebsocketCommunicator:
    headers = [(b"origin", b"http://testserver")]
    if cookie:
        headers.append((b"cookie", cookie))
    socket = FramesChecked(application, path, headers=headers)
    assert (await socket.connect())[0]
    return socket


online = sync_to_async(user_is_online)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections", "tictactoe")
async def test_a_user_is_online_while_any_socket_of_theirs_is_open(alice, bob):
    cookie = await sync_to_async(session_cookie)(alice)
    assert not await online(alice.pk)

    me = await _socket("/ws/me/", cookie)
    assert (await me.receive_json_from())["type"] == "hello"
    assert await online(alice.pk)

    game = await sync_to_async(_game_of)(alice, bob)
    watching = await _socket(f"/ws/games/{game}/", cookie)
    await watching.receive_json_from()
    assert await sync_to_async(cache.get)(presence_key(alice.pk)) == 2

    await me.disconnect()
    assert await online(alice.pk)
    await watching.disconnect()
    assert not await online(alice.pk)
    assert not await online(bob.pk)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_refused_and_anonymous_sockets_count_nobody(alice):
    socket = FramesChecked(application, "/ws/me/", headers=[(b"origin", b"http://testserver")])
    await socket.connect()
    assert (await socket.receive_output())["code"] == 4401
    await socket.send_input({"type": "websocket.disconnect", "code": 4401})
    await socket.wait()
    assert await sync_to_async(cache.get)(presence_key(alice.pk)) is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_an_open_socket_keeps_its_count_alive(alice, monkeypatch):
    monkeypatch.setattr(presence, "PRESENCE_REFRESH", 0.05)
    cookie = await sync_to_async(session_cookie)(alice)
    me = await _socket("/ws/me/", cookie)
    await me.receive_json_from()
    await sync_to_async(cache.delete)(presence_key(alice.pk))  # evicted, say
    deadline = time.monotonic() + 30  # for a busy machine: the refresh comes every 0.05 s
    while not await online(alice.pk):
        assert time.monotonic() < deadline, "the open socket did not refresh its count"
        await asyncio.sleep(0.05)
    await me.disconnect()
    assert not await online(alice.pk)


def _game_of(alice, bob) -> int:
    from greycircle.games.services import SeatSpec, game_create

    return game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]).pk
