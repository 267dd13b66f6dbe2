"""Redis down: REST reads and moves keep working, sockets close with 4503, live updates come back.

Each test runs its own redis-server on a free port and stops it (never the shared one), with the
production settings for Redis (greycircle.settings.redis_settings) pointed at it; the last tests
run the site as a real server process (and a task worker beside it).
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import websockets
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import connection
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle
from websockets.sync.client import connect as ws_connect

from greycircle.asgi import application
from greycircle.games import consumers, events
from greycircle.games.models import Game
from greycircle.runtime import cache as resilient_cache
from greycircle.settings import redis_settings
from tests.asgi_server import asgi_server
from tests.factories import PASSWORD, accept_invitations, let_anyone_invite
from tests.games.conftest import computer_to_move, worker_process  # noqa: F401 (a fixture)
from tests.notifications.conftest import notify
from tests.redis_server import REDIS_SERVER, RedisServer, wait_for
from tests.tcp_proxy import tcp_proxy

UNAVAILABLE = 4503  # the close code for "live updates unavailable, reconnect later"
# The server must exit after SIGTERM: every socket is closed by then, so it has nothing left to
# wait for. (A closed socket whose channel read outlived it, greycircle.runtime.channels, once
# held it up for good.) It takes about a second; the bound is for a machine whose cores are busy.
STOP_SECONDS = 30
# How long any other wait of these tests may take (for a frame, a close, a recovery): each ends
# as soon as what it waits for happens; this is for a busy machine, a hang still fails.
WITHIN = 30

pytestmark = [
    pytest.mark.skipif(REDIS_SERVER is None, reason="needs redis-server"),
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("tictactoe", "close_thread_connections"),
]


def reset_outages() -> None:
    for outage in resilient_cache._outages.values():
        outage.reset()
    events.publishing.reset()
    events.resyncing.reset()
    events.missed.forget()
    consumers.live_updates.reset()


@pytest.fixture
def on_redis(settings, redis_server) -> Iterator[RedisServer]:
    """The cache and the channel layer of this process on `redis_server`, as in production."""
    for name, value in redis_settings(redis_server.url).items():
        setattr(settings, name, value)
    reset_outages()
    yield redis_server
    reset_outages()


def outage_warnings(caplog, what: str) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == "greycircle.outages"
        and record.levelno == logging.WARNING
        and record.getMessage().startswith(what)
    ]


def new_game(alice, bob) -> tuple[APIClient, APIClient, dict]:
    a_client, b_client = APIClient(), APIClient()
    a_client.force_login(alice)
    b_client.force_login(bob)
    let_anyone_invite(bob)
    response = a_client.post("/api/v1/games/", {"kind": "tictactoe", "seats": [{"user": "bob"}]})
    assert response.status_code == 201, response.content
    accept_invitations(response.json()["id"])
    return a_client, b_client, a_client.get(f"/api/v1/games/{response.json()['id']}/").json()


def game_socket(game_id: int, client: APIClient) -> WebsocketCommunicator:
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    headers = [(b"origin", b"http://testserver"), (b"cookie", cookie)]
    return WebsocketCommunicator(application, f"/ws/games/{game_id}/", headers=headers)


def test_rest_reads_and_moves_work_while_redis_is_down(on_redis, alice, bob, caplog):
    a_client, b_client, game = new_game(alice, bob)
    on_redis.stop()
    caplog.set_level(logging.INFO, logger="greycircle.outages")

    started = time.monotonic()
    assert a_client.get(f"/api/v1/games/{game['id']}/").status_code == 200
    assert b_client.get("/api/v1/games/").status_code == 200
    version = game["version"]
    for cell, player in [(4, a_client), (0, b_client), (8, a_client)]:
        played = player.post(
            f"/api/v1/games/{game['id']}/moves/",
            {"expected_version": version, "move": {"cell": cell}},
        )
        assert played.status_code == 200, played.content
        version = played.json()["version"]
    # The poke interval lives in the cache too: without it the poke is allowed.
    poked = a_client.post(f"/api/v1/games/{game['id']}/poke/")  # alice waits for bob
    assert poked.status_code in {200, 204}, poked.content
    assert a_client.get(f"/api/v1/games/{game['id']}/moves/").status_code == 200
    # A stopped Redis refuses connections at once: nothing here waits on its timeouts, and a
    # busy machine's slowness is all there is to it (the hung Redis below is the timed case).
    assert time.monotonic() - started < WITHIN

    # Logged once per outage, not once per request.
    assert len(outage_warnings(caplog, "cache: Redis is unavailable")) == 1
    assert len(outage_warnings(caplog, "live updates (publishing): Redis is unavailable")) == 1


@pytest.mark.usefixtures("rate_window_still")
def test_rate_limits_come_back_with_redis(on_redis, alice, monkeypatch, caplog):
    rates = {**SimpleRateThrottle.THROTTLE_RATES, "user": "3/min"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    client = APIClient()
    client.force_login(alice)
    on_redis.stop()
    caplog.set_level(logging.INFO, logger="greycircle.outages")
    assert [client.get("/api/v1/me/").status_code for _ in range(5)] == [200] * 5  # fails open
    on_redis.start()
    outage = resilient_cache._outages[(on_redis.url,)]
    wait_for(lambda: not outage.skip(), timeout=WITHIN, what="the retry interval")
    assert [client.get("/api/v1/me/").status_code for _ in range(4)] == [200, 200, 200, 429]
    assert any("available again" in record.getMessage() for record in caplog.records)


async def receive_close(socket: WebsocketCommunicator, *, timeout: float) -> int:
    """Skip to the close frame; its code."""
    deadline = time.monotonic() + timeout
    while True:
        message = await socket.receive_output(timeout=max(0.1, deadline - time.monotonic()))
        if message["type"] == "websocket.close":
            # Complete the closing handshake as a server does, so the consumer ends now.
            await socket.send_input({"type": "websocket.disconnect", "code": message["code"]})
            await socket.wait(timeout=WITHIN)
            return message["code"]


async def test_open_sockets_are_closed_with_4503_when_redis_goes_away(on_redis, alice, bob):
    _, b_client, game = await sync_to_async(new_game)(alice, bob)
    sockets = [game_socket(game["id"], b_client) for _ in range(2)]
    cookie = f"sessionid={b_client.cookies['sessionid'].value}".encode()
    sockets.append(
        WebsocketCommunicator(
            application, "/ws/me/", headers=[(b"origin", b"http://testserver"), (b"cookie", cookie)]
        )
    )
    for each in sockets:
        assert (await each.connect())[0]
        await each.receive_json_from()

    await asyncio.to_thread(on_redis.stop)
    for each in sockets:
        assert await receive_close(each, timeout=WITHIN) == UNAVAILABLE

    for each in sockets:
        await each.wait(timeout=WITHIN)
    left_pending = [task for task in asyncio.all_tasks() if "_until_lost" in repr(task)]
    assert left_pending == [], "a closed socket left a task of its own behind"


async def test_a_socket_opened_while_redis_is_down_gets_4503_then_live_updates_resume(
    on_redis, alice, bob
):
    a_client, b_client, game = await sync_to_async(new_game)(alice, bob)
    await asyncio.to_thread(on_redis.stop)

    refused = game_socket(game["id"], b_client)
    assert (await refused.connect())[0]
    assert await receive_close(refused, timeout=WITHIN) == UNAVAILABLE

    await asyncio.to_thread(on_redis.start)
    deadline = time.monotonic() + WITHIN
    while True:  # within a second of the last failure, sockets are refused without trying Redis
        socket = game_socket(game["id"], b_client)
        assert (await socket.connect())[0]
        first = await socket.receive_output(timeout=WITHIN)
        if first["type"] == "websocket.send":
            break
        assert first["code"] == UNAVAILABLE
        await socket.send_input({"type": "websocket.disconnect", "code": UNAVAILABLE})
        await socket.wait(timeout=WITHIN)
        assert time.monotonic() < deadline, "sockets are still refused after Redis came back"
        await asyncio.sleep(0.1)

    played = await sync_to_async(a_client.post)(
        f"/api/v1/games/{game['id']}/moves/",
        {"expected_version": game["version"], "move": {"cell": 4}},
    )
    assert played.status_code == 200
    update = await socket.receive_json_from(timeout=WITHIN)
    assert update["envelope"]["version"] == played.json()["version"]
    await socket.disconnect()


async def test_groups_that_missed_a_change_are_told_to_resync_and_each_socket_catches_up(
    on_redis, alice
):
    # What a publish that failed leaves for once Redis answers (events.missed; the worker's test
    # below makes one fail): each socket of a group sends its first frame again, read now; the
    # group of the user's sockets, whose only messages close them, closes them with 4503.
    client = APIClient()
    await sync_to_async(client.force_login)(alice)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    headers = [(b"origin", b"http://testserver"), (b"cookie", cookie)]
    me = WebsocketCommunicator(application, "/ws/me/", headers=headers)
    assert (await me.connect())[0]
    assert (await me.receive_json_from(timeout=WITHIN))["unread_count"] == 0
    await sync_to_async(notify)(alice, "friend_request")  # news the socket has not heard of

    layer = get_channel_layer()
    await asyncio.to_thread(events.missed.remember, layer, [events.user_group(alice.pk)])
    assert await me.receive_json_from(timeout=WITHIN) == {
        "type": "hello",
        "user": "alice",
        "unread_count": 1,
        "messages_unread_count": 0,
    }
    await asyncio.to_thread(events.missed.remember, layer, [events.user_sockets_group(alice.pk)])
    assert await receive_close(me, timeout=WITHIN) == UNAVAILABLE


@pytest.fixture
def hung_redis() -> Iterator[str]:
    """A Redis that accepts connections and never answers (a hung server, a lost network)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(100)
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"


def test_a_hung_redis_delays_requests_by_a_few_seconds_at_most(settings, hung_redis, alice, bob):
    a_client, b_client, game = new_game(alice, bob)  # with the in-memory defaults
    for name, value in redis_settings(hung_redis).items():
        setattr(settings, name, value)
    reset_outages()
    try:
        for request in [
            lambda: b_client.get(f"/api/v1/games/{game['id']}/"),
            lambda: a_client.post(
                f"/api/v1/games/{game['id']}/moves/",
                {"expected_version": game["version"], "move": {"cell": 4}},
            ),
        ]:
            started = time.monotonic()
            response = request()
            # A cache timeout (1 s) and a publish timeout (2 s), then Redis is skipped for a while.
            assert response.status_code == 200, response.content
            assert time.monotonic() - started < 5
    finally:
        reset_outages()


# --- The site as a real server process -------------------------------------------------------


def database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    return f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


@pytest.fixture(params=["uvicorn", "daphne"])
def site(request, redis_server, tmp_path) -> Iterator[str]:
    """`greycircle.asgi:application` served by a child process on `redis_server`; its base URL.
    It must exit within STOP_SECONDS of SIGTERM."""
    with asgi_server(
        request.param,
        environment={"DATABASE_URL": database_url(), "REDIS_URL": redis_server.url},
        log=tmp_path / "server.log",
        stop_within=STOP_SECONDS,
    ) as base:
        yield base


def http(url: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("X-Session-Token", token)
    try:
        with urllib.request.urlopen(request, timeout=WITHIN) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, {}


class SiteGame:
    """A game of circles between alice and bob on `site` (a real game kind: the server process
    knows nothing of the tests' tic-tac-toe), bob's sockets following it."""

    def __init__(self, site: str, alice, bob) -> None:
        a_client, b_client = APIClient(), APIClient()
        a_client.force_login(alice)
        b_client.force_login(bob)
        let_anyone_invite(bob)
        created = a_client.post("/api/v1/games/", {"kind": "circles", "seats": [{"user": "bob"}]})
        assert created.status_code == 201, created.content
        accept_invitations(created.json()["id"])
        self.id = created.json()["id"]
        self.site = site
        self.url = f"{site}/api/v1/games/{self.id}/"
        self.ws_url = site.replace("http", "ws") + f"/ws/games/{self.id}/"
        self.headers = {
            "Origin": site,
            "Cookie": f"sessionid={b_client.cookies['sessionid'].value}",
        }

    def token(self, user) -> str:
        login = {"username": user.username, "password": PASSWORD}
        status, body = http(f"{self.site}/_allauth/app/v1/auth/login", login)
        assert status == 200, body
        return body["meta"]["session_token"]

    def play(self, user, token: str | None = None) -> dict:
        """A move of `user`'s, through the server's REST API; its answer."""
        who = token or self.token(user)
        envelope = http(self.url, token=who)[1]
        move = {"expected_version": envelope["version"], "move": envelope["legal_moves"][0]}
        status, played = http(f"{self.url}moves/", move, token=who)
        assert status == 200, played
        return played

    def socket(self):
        """Bob's socket on the game; its first frame is the envelope."""
        return ws_connect(self.ws_url, additional_headers=self.headers, open_timeout=WITHIN)

    @contextmanager
    def reconnected(self) -> Iterator[tuple[Any, dict]]:
        """Bob's socket once the server accepts it again (it refuses with 4503 for a moment after
        the last failure), and its first frame."""
        deadline = time.monotonic() + WITHIN
        while True:
            with self.socket() as live:
                try:
                    first = json.loads(live.recv(timeout=WITHIN))
                except websockets.ConnectionClosed as refused:
                    code = None if refused.rcvd is None else refused.rcvd.code
                else:
                    yield live, first
                    return
            assert code == UNAVAILABLE, f"refused with {code}"
            assert time.monotonic() < deadline, "sockets still refused after Redis came back"
            time.sleep(0.1)


def versions_until(live, version: int) -> list[int]:
    """The versions of the envelopes `live` receives until one is at least `version`."""
    seen: list[int] = []
    while not seen or seen[-1] < version:
        seen.append(json.loads(live.recv(timeout=WITHIN))["envelope"]["version"])
    return seen


def closed_with(live) -> int:
    """The code `live` is closed with by the server, skipping any frame before it."""
    deadline = time.monotonic() + WITHIN
    with pytest.raises(websockets.ConnectionClosed) as closed:  # noqa: PT012
        while True:
            live.recv(timeout=max(0.1, deadline - time.monotonic()))
    assert closed.value.rcvd is not None, "closed without a close frame"
    return closed.value.rcvd.code


def test_a_server_that_loses_redis_closes_sockets_cleanly_and_keeps_serving(
    site, redis_server, alice, bob
):
    game = SiteGame(site, alice, bob)
    with game.socket() as live:
        assert json.loads(live.recv(timeout=WITHIN))["type"] == "game"
        redis_server.stop()
        assert closed_with(live) == UNAVAILABLE

    # Logging in (allauth's rate limits use the cache), reading and moving still work.
    played = game.play(alice)

    redis_server.start()

    with game.reconnected() as (live, first):
        assert first["envelope"]["version"] == played["version"]
        played = game.play(bob)
        # Alice's move, whose publish failed, may come first: its resync once Redis was back.
        assert versions_until(live, played["version"])[-1] == played["version"]


def test_a_move_while_redis_hangs_answers_and_the_opponents_socket_is_closed_with_4503(
    site, redis_server, alice, bob
):
    game = SiteGame(site, alice, bob)
    token = game.token(alice)  # logging in before the hang
    with game.socket() as live:
        assert json.loads(live.recv(timeout=WITHIN))["type"] == "game"
        redis_server.pause()
        try:
            # It answers (within the request's timeout); the publish gives up on Redis...
            played = game.play(alice, token)
        finally:
            redis_server.resume()
        # ...so bob's socket, which missed the update, is closed rather than left waiting.
        assert closed_with(live) == UNAVAILABLE

    with game.reconnected() as (live, first):
        assert first["envelope"]["version"] == played["version"]


def test_a_server_whose_redis_hangs_closes_its_sockets_though_it_published_nothing(
    site, on_redis, alice, bob
):
    # The move is made in this process (on the same Redis): its publish gives up after a
    # timeout, which the server never sees. The server's read of its queue, blocked on the
    # hung Redis all that while, must give up too and close bob's socket.
    game = SiteGame(site, alice, bob)
    client = APIClient()
    client.force_login(alice)
    envelope = client.get(f"/api/v1/games/{game.id}/").json()
    with game.socket() as live:
        assert json.loads(live.recv(timeout=WITHIN))["type"] == "game"
        on_redis.pause()
        try:
            played = client.post(
                f"/api/v1/games/{game.id}/moves/",
                {"expected_version": envelope["version"], "move": envelope["legal_moves"][0]},
            )
            assert played.status_code == 200, played.content
        finally:
            on_redis.resume()
        assert closed_with(live) == UNAVAILABLE

    with game.reconnected() as (live, first):
        assert first["envelope"]["version"] == played.json()["version"]


def test_a_restarted_redis_is_used_again_without_closing_or_refusing_sockets(
    site, redis_server, alice, bob
):
    game = SiteGame(site, alice, bob)
    # The server's connections to Redis (the sockets' reads and joins, the publisher) are
    # opened, then left idle in their pools across the restart.
    with game.socket() as live:
        assert json.loads(live.recv(timeout=WITHIN))["type"] == "game"
        played = game.play(alice)
        assert json.loads(live.recv(timeout=WITHIN))["envelope"]["version"] == played["version"]
    # Restarted as soon as the server has let the socket go (bob is no longer online), perhaps
    # while its last read of the queue is still being cancelled: no socket listens, so nothing
    # is lost and nothing closed (a restart while a socket listens closes it with 4503: Redis
    # has forgotten its groups).
    token = game.token(alice)
    wait_for(
        lambda: http(f"{site}/api/v1/users/{bob.username}/", token=token)[1]["online"] is False,
        timeout=WITHIN,
        what="bob's socket to be gone",
    )
    redis_server.stop()
    redis_server.start()

    with game.socket() as live, game.socket() as other:
        for each in (live, other):
            first = json.loads(each.recv(timeout=WITHIN))  # not a 4503
            assert first["envelope"]["version"] == played["version"]
        played = game.play(bob)
        for each in (live, other):
            update = json.loads(each.recv(timeout=WITHIN))
            assert update["envelope"]["version"] == played["version"]


def test_a_change_whose_publish_failed_in_the_worker_reaches_a_servers_socket_once_it_can(
    redis_server,
    worker_process,  # noqa: F811 (the fixture imported above)
    alice,
    tmp_path,
):
    # The worker reaches Redis through a proxy, cut while it plays the computer's move: its
    # publish fails, while the server's reads of Redis (direct) are fine and nothing closes
    # alice's socket. Once the worker reaches Redis again, the socket gets the move.
    environment = {"DATABASE_URL": database_url(), "REDIS_URL": redis_server.url}
    with (
        tcp_proxy(redis_server.port) as proxy,
        asgi_server(
            "uvicorn", environment=environment, log=tmp_path / "server.log", stop_within=WITHIN
        ) as site,
    ):
        game = computer_to_move(alice)  # its turn queued, for a worker not started yet
        client = APIClient()
        client.force_login(alice)
        headers = {"Origin": site, "Cookie": f"sessionid={client.cookies['sessionid'].value}"}
        url = site.replace("http", "ws") + f"/ws/games/{game.pk}/"
        with ws_connect(url, additional_headers=headers, open_timeout=WITHIN) as live:
            assert json.loads(live.recv(timeout=WITHIN))["envelope"]["version"] == game.version
            proxy.cut()
            worker = worker_process(env={"REDIS_URL": f"redis://127.0.0.1:{proxy.port}/0"})
            wait_for(
                lambda: "live updates (publishing): Redis is unavailable" in worker.log(),
                timeout=WITHIN,
                what="the worker's publish to fail",
            )
            proxy.restore()

            frame = json.loads(live.recv(timeout=WITHIN))
            assert frame["type"] == "game"
            assert frame["envelope"]["version"] == Game.objects.get(pk=game.pk).version
            assert frame["envelope"]["version"] > game.version
