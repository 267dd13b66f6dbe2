"""`ws/lobby/` (the pools' counts, live), `ws/me/`'s `game_started` to both paired players, and a
live seek that goes with its seeker's last socket: real consumers, the full ASGI app."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from rest_framework.test import APIClient

from greycircle.asgi import application
from greycircle.games.services import game_resign
from greycircle.lobby.models import Seek, SeekStatus
from tests.api.socket_frames import FramesChecked, frames_validator
from tests.factories import UserFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]

ORIGIN = (b"origin", b"http://testserver")
LIVE = {"kind": "circles", "time_control": {"minutes": 1, "increment": 0}}


class LobbySocket(WebsocketCommunicator):
    """A `ws/lobby/` socket whose every frame must validate against `LobbySocketFrame`."""

    async def receive_json_from(self, *args, **kwargs):
        frame = json.loads(await self.receive_from(*args, **kwargs))
        frames_validator().validate_component("LobbySocketFrame", frame)
        return frame


def _player():
    user = UserFactory()
    client = APIClient()
    client.force_login(user)
    return (
        user,
        client,
        [ORIGIN, (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())],
    )


player = sync_to_async(_player)


def post(client, body):
    return sync_to_async(client.post)("/api/v1/seeks/", body, format="json")


async def test_the_lobby_socket_sends_the_counts_on_connect_and_when_seeks_change():
    _, alice, headers = await player()
    socket = LobbySocket(application, "/ws/lobby/", headers=headers)
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from())["pools"] == []
    assert (await post(alice, LIVE)).status_code == 201
    [pool] = (await socket.receive_json_from())["pools"]
    assert (pool["pool"], pool["waiting"], pool["playing"]) == ("circles:1+0:2:rated", 1, 0)
    await socket.send_json_to({"type": "ping"})
    assert (await socket.receive_json_from())["type"] == "pong"
    await socket.disconnect()


async def test_both_paired_players_hear_game_started_on_their_own_stream():
    _, alice, alice_headers = await player()
    _, bob, bob_headers = await player()
    streams = []
    for headers in (alice_headers, bob_headers):
        stream = FramesChecked(application, "/ws/me/", headers=headers)
        assert (await stream.connect())[0]
        assert (await stream.receive_json_from())["type"] == "hello"
        streams.append(stream)
    await post(alice, LIVE)
    matched = (await post(bob, LIVE)).json()
    frames = [await stream.receive_json_from() for stream in streams]
    assert [frame["type"] for frame in frames] == ["game_started", "game_started"]
    assert {frame["game"] for frame in frames} == {matched["game"]}
    assert {frame["speed"] for frame in frames} == {"live"}
    assert frames[1]["seek"] == matched["id"]
    for stream in streams:
        await stream.disconnect()


async def test_a_live_seek_goes_when_its_seekers_last_socket_closes():
    _alice_user, alice, headers = await player()
    lobby = LobbySocket(application, "/ws/lobby/", headers=headers)
    stream = FramesChecked(application, "/ws/me/", headers=headers)
    for socket in (lobby, stream):
        assert (await socket.connect())[0]
        await socket.receive_json_from()
    live = (await post(alice, LIVE)).json()
    by_days = (await post(alice, {"kind": "circles", "days_per_move": 3})).json()
    await lobby.receive_json_from()
    await lobby.receive_json_from()
    await lobby.disconnect()  # ws/me/ is still open: alice is still on the site
    status = sync_to_async(lambda pk: Seek.objects.get(pk=pk).status)
    assert await status(live["id"]) == SeekStatus.WAITING
    watcher = LobbySocket(application, "/ws/lobby/", headers=(await player())[2])
    assert (await watcher.connect())[0]
    await watcher.receive_json_from()
    await stream.disconnect()
    # A socket of the lobby's closing ends the seek at once; ws/me/'s leaves it to the sweep.
    await sync_to_async(_sweep_after_grace)()
    frame = await watcher.receive_json_from()
    assert [pool["pool"] for pool in frame["pools"]] == ["circles:3d:2:rated"]
    assert await status(live["id"]) == SeekStatus.EXPIRED
    assert await status(by_days["id"]) == SeekStatus.WAITING
    await watcher.disconnect()


async def test_closing_the_lobby_as_ones_last_socket_ends_the_live_seek_at_once():
    _, alice, headers = await player()
    lobby = LobbySocket(application, "/ws/lobby/", headers=headers)
    assert (await lobby.connect())[0]
    await lobby.receive_json_from()
    live = (await post(alice, LIVE)).json()
    await lobby.receive_json_from()
    await lobby.disconnect()
    seek = await sync_to_async(Seek.objects.get)(pk=live["id"])
    assert seek.status == SeekStatus.EXPIRED


def _sweep_after_grace() -> None:
    from datetime import timedelta

    from django.utils import timezone

    from greycircle.lobby.services import lobby_sweep

    lobby_sweep(now=timezone.now() + timedelta(seconds=60))


async def test_a_game_ending_takes_its_players_off_the_pools_playing_count_at_the_next_sweep():
    _, alice, _ = await player()
    bob_user, bob, _ = await player()
    await post(alice, LIVE)
    matched = (await post(bob, LIVE)).json()
    watcher = LobbySocket(application, "/ws/lobby/", headers=(await player())[2])
    assert (await watcher.connect())[0]
    [pool] = (await watcher.receive_json_from())["pools"]
    assert (pool["waiting"], pool["playing"]) == (0, 2)
    await sync_to_async(_sweep_after_grace)()  # nothing changed: nothing sent
    resign = sync_to_async(game_resign)
    await resign(game_id=matched["game"], user=bob_user)
    await sync_to_async(_sweep_after_grace)()
    assert (await watcher.receive_json_from())["pools"] == []
    await watcher.disconnect()
