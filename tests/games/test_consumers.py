"""Live game updates over real WebSocket consumers (the full ASGI app, auth middleware included)."""

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from rest_framework.test import APIClient

from greycircle.asgi import application

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("tictactoe", "close_thread_connections"),
]

ORIGIN = (b"origin", b"http://testserver")


def signed_in(user) -> tuple[APIClient, bytes]:
    client = APIClient()
    client.force_login(user)
    return client, f"sessionid={client.cookies['sessionid'].value}".encode()


async def open_socket(path: str, cookie: bytes | None, *, origin=ORIGIN) -> WebsocketCommunicator:
    headers = [origin] if origin else []
    if cookie:
        headers.append((b"cookie", cookie))
    return WebsocketCommunicator(application, path, headers=headers)


@pytest.fixture
def setup_game(alice, bob, carol):
    def make():
        a_client, a_cookie = signed_in(alice)
        _, b_cookie = signed_in(bob)
        _, c_cookie = signed_in(carol)
        game = a_client.post(
            "/api/v1/games/", {"kind": "tictactoe", "seats": [{"user": "bob"}]}, format="json"
        ).json()
        return a_client, game, a_cookie, b_cookie, c_cookie

    return sync_to_async(make)


async def test_a_move_reaches_the_other_player_and_spectators(setup_game):
    a_client, game, _, b_cookie, c_cookie = await setup_game()
    bob_socket = await open_socket(f"/ws/games/{game['id']}/", b_cookie)
    carol_socket = await open_socket(f"/ws/games/{game['id']}/", c_cookie)
    assert (await bob_socket.connect())[0]
    assert (await carol_socket.connect())[0]
    on_connect = await bob_socket.receive_json_from()
    assert on_connect["envelope"]["version"] == game["version"]
    assert on_connect["envelope"]["you"] == 1
    await carol_socket.receive_json_from()

    played = await sync_to_async(a_client.post)(
        f"/api/v1/games/{game['id']}/moves/",
        {"expected_version": game["version"], "move": {"cell": 4}},
        format="json",
    )
    assert played.status_code == 200

    for_bob = (await bob_socket.receive_json_from(timeout=2))["envelope"]
    assert for_bob["version"] == played.json()["version"]
    assert for_bob["state"]["cells"][4] == 0
    assert for_bob["you"] == 1
    assert {"cell": 0} in for_bob["legal_moves"]

    for_carol = (await carol_socket.receive_json_from(timeout=2))["envelope"]
    assert for_carol["version"] == for_bob["version"]
    assert for_carol["you"] is None
    assert for_carol["legal_moves"] == []
    await bob_socket.disconnect()
    await carol_socket.disconnect()


async def test_the_player_to_move_is_told_on_their_own_stream(setup_game):
    a_client, game, _, b_cookie, _ = await setup_game()
    me = await open_socket("/ws/me/", b_cookie)
    assert (await me.connect())[0]
    assert (await me.receive_json_from())["type"] == "hello"
    await sync_to_async(a_client.post)(
        f"/api/v1/games/{game['id']}/moves/",
        {"expected_version": game["version"], "move": {"cell": 4}},
        format="json",
    )
    message = await me.receive_json_from(timeout=2)
    assert message["notification"]["event"] == "your_turn"
    assert message["notification"]["game"] == game["id"]
    await me.disconnect()


async def test_the_socket_answers_pings(setup_game):
    _, game, a_cookie, _, _ = await setup_game()
    socket = await open_socket(f"/ws/games/{game['id']}/", a_cookie)
    await socket.connect()
    await socket.receive_json_from()
    await socket.send_json_to({"type": "ping"})
    assert await socket.receive_json_from() == {"type": "pong"}
    await socket.disconnect()


async def test_anonymous_sockets_are_closed(setup_game):
    _, game, _, _, _ = await setup_game()
    socket = await open_socket(f"/ws/games/{game['id']}/", None)
    connected, code = await socket.connect()
    assert not connected
    assert code == 4401


async def test_a_cookie_from_another_site_does_not_authenticate(setup_game):
    _, game, a_cookie, _, _ = await setup_game()
    socket = await open_socket(
        f"/ws/games/{game['id']}/", a_cookie, origin=(b"origin", b"https://evil.example")
    )
    connected, code = await socket.connect()
    assert not connected
    assert code == 4401


async def test_an_unknown_game_is_closed_with_404(setup_game):
    _, _, a_cookie, _, _ = await setup_game()
    socket = await open_socket("/ws/games/999999/", a_cookie)
    connected, code = await socket.connect()
    assert not connected
    assert code == 4404


async def test_an_idle_socket_still_gets_the_next_move(setup_game):
    """A socket that heard nothing for longer than the channel layer's blocking wait (5 s with
    channels-redis) stays open and still receives the next move."""
    a_client, game, _, b_cookie, _ = await setup_game()
    socket = await open_socket(f"/ws/games/{game['id']}/", b_cookie)
    assert (await socket.connect())[0]
    await socket.receive_json_from()
    assert await socket.receive_nothing(timeout=6.5)
    await sync_to_async(a_client.post)(
        f"/api/v1/games/{game['id']}/moves/",
        {"expected_version": game["version"], "move": {"cell": 4}},
        format="json",
    )
    assert (await socket.receive_json_from(timeout=3))["envelope"]["state"]["cells"][4] == 0
    await socket.disconnect()
