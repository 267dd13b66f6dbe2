"""Live game updates over real WebSocket consumers (the full ASGI app, auth middleware included)."""

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from rest_framework.test import APIClient

from accounts.models import Block
from greycircle.asgi import application
from greycircle.moderation.services import users_deactivate
from greycircle.players.deletion import account_anonymise
from tests.api.socket_frames import FramesChecked
from tests.factories import PASSWORD, accept_invitations, let_anyone_invite

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("tictactoe", "close_thread_connections"),
]

ORIGIN = (b"origin", b"http://testserver")


def signed_in(user) -> tuple[APIClient, bytes]:
    client = APIClient()
    client.force_login(user)
    return client, f"sessionid={client.cookies['sessionid'].value}".encode()


def app_login(user) -> str:
    """Log in as an app does; the session token."""
    response = APIClient().post(
        "/_allauth/app/v1/auth/login",
        {"username": user.username, "password": PASSWORD},
        format="json",
    )
    assert response.status_code == 200, response.content
    return response.json()["meta"]["session_token"]


async def open_socket(path: str, cookie: bytes | None, *, origin=ORIGIN) -> WebsocketCommunicator:
    headers = [origin] if origin else []
    if cookie:
        headers.append((b"cookie", cookie))
    return FramesChecked(application, path, headers=headers)


@pytest.fixture
def setup_game(alice, bob, carol, deliver_notifications):
    """A tic-tac-toe game in play between alice (to move) and bob, carol a stranger to it; the
    notifications of its start already delivered."""

    def make():
        a_client, a_cookie = signed_in(alice)
        _, b_cookie = signed_in(bob)
        _, c_cookie = signed_in(carol)
        let_anyone_invite(bob)
        game = a_client.post(
            "/api/v1/games/", {"kind": "tictactoe", "seats": [{"user": "bob"}]}, format="json"
        ).json()
        accept_invitations(game["id"])
        game = a_client.get(f"/api/v1/games/{game['id']}/").json()
        deliver_notifications()
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

    bob_frame = await bob_socket.receive_json_from()
    for_bob = bob_frame["envelope"]
    assert for_bob["version"] == played.json()["version"]
    assert for_bob["state"]["cells"][4] == 0
    assert for_bob["you"] == 1
    assert {"cell": 0} in for_bob["legal_moves"]
    # The move just played comes with the frame: no need to fetch the log again.
    [entry] = bob_frame["moves"]
    assert (entry["number"], entry["seat"], entry["cell"]) == (1, 0, 4)

    carol_frame = await carol_socket.receive_json_from()
    for_carol = carol_frame["envelope"]
    assert for_carol["version"] == for_bob["version"]
    assert for_carol["you"] is None
    assert for_carol["legal_moves"] == []
    assert [(entry["number"], entry["cell"]) for entry in carol_frame["moves"]] == [(1, 4)]
    await bob_socket.disconnect()
    await carol_socket.disconnect()


async def test_each_seat_sees_its_own_private_detail_of_a_move_and_spectators_none(setup_game):
    """Tic-tac-toe logs `{"mine": true}` privately for the seat that moved (as King's Corner
    logs the card drawn): only that seat's frame carries it."""
    a_client, game, a_cookie, b_cookie, c_cookie = await setup_game()
    sockets = {}
    for name, cookie in (("alice", a_cookie), ("bob", b_cookie), ("carol", c_cookie)):
        sockets[name] = await open_socket(f"/ws/games/{game['id']}/", cookie)
        assert (await sockets[name].connect())[0]
        await sockets[name].receive_json_from()

    played = await sync_to_async(a_client.post)(
        f"/api/v1/games/{game['id']}/moves/",
        {"expected_version": game["version"], "move": {"cell": 4}},
        format="json",
    )
    assert played.status_code == 200

    moves = {name: (await socket.receive_json_from())["moves"] for name, socket in sockets.items()}
    public = {"number": 1, "seat": 0, "imported": False, "cell": 4}
    [for_alice] = moves["alice"]
    assert {key: for_alice.get(key) for key in public} == public
    assert for_alice["mine"] is True
    for name in ("bob", "carol"):
        [entry] = moves[name]
        assert {key: entry.get(key) for key in public} == public, name
        assert "mine" not in entry, name
        assert set(entry) == set(for_alice) - {"mine"}, name
    for socket in sockets.values():
        await socket.disconnect()


async def test_the_player_to_move_is_told_on_their_own_stream(setup_game, deliver_notifications):
    a_client, game, _, b_cookie, _ = await setup_game()
    me = await open_socket("/ws/me/", b_cookie)
    assert (await me.connect())[0]
    assert (await me.receive_json_from())["type"] == "hello"
    await sync_to_async(a_client.post)(
        f"/api/v1/games/{game['id']}/moves/",
        {"expected_version": game["version"], "move": {"cell": 4}},
        format="json",
    )
    # The move request only queued the notification: the task worker tells bob.
    assert await me.receive_nothing(timeout=0.2)
    await sync_to_async(deliver_notifications)()
    message = await me.receive_json_from()
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


async def closed_with(socket: WebsocketCommunicator) -> int:
    """Connect, expecting the socket to be accepted and then closed; the close code."""
    connected, _ = await socket.connect()
    assert connected, "refusals are sent after accepting, so that the client sees the code"
    message = await socket.receive_output()
    assert message["type"] == "websocket.close", message
    # Complete the closing handshake as a server does, so the consumer ends now rather than being
    # cancelled with the event loop (which channels-redis does not always survive).
    await socket.send_input({"type": "websocket.disconnect", "code": message["code"]})
    await socket.wait()
    return message["code"]


async def test_anonymous_sockets_are_closed_with_4401(setup_game):
    _, game, _, _, _ = await setup_game()
    assert await closed_with(await open_socket(f"/ws/games/{game['id']}/", None)) == 4401
    assert await closed_with(await open_socket("/ws/me/", None)) == 4401


async def test_a_cookie_from_another_site_is_refused_with_4403(setup_game):
    _, game, a_cookie, _, _ = await setup_game()
    socket = await open_socket(
        f"/ws/games/{game['id']}/", a_cookie, origin=(b"origin", b"https://evil.example")
    )
    assert await closed_with(socket) == 4403


async def test_the_cookie_counts_only_from_the_handshakes_own_origin(setup_game):
    """Scheme, host and port of the Origin must be those of the Host (tests/accounts/
    test_websocket_auth.py has the cases); a page on another port is another site."""
    _, game, a_cookie, _, _ = await setup_game()

    def socket(origin: bytes) -> WebsocketCommunicator:
        headers = [(b"origin", origin), (b"host", b"127.0.0.1:8000"), (b"cookie", a_cookie)]
        return FramesChecked(application, f"/ws/games/{game['id']}/", headers=headers)

    assert await closed_with(socket(b"http://127.0.0.1:9999")) == 4403
    same = socket(b"http://127.0.0.1:8000")
    assert (await same.connect())[0]
    assert (await same.receive_json_from())["envelope"]["you"] == 0
    await same.disconnect()


async def test_an_inactive_account_is_refused_with_4403(setup_game, alice):
    _, game, a_cookie, _, _ = await setup_game()
    token = await sync_to_async(app_login)(alice)
    alice.is_active = False
    await sync_to_async(alice.save)()
    by_cookie = await open_socket(f"/ws/games/{game['id']}/", a_cookie)
    assert await closed_with(by_cookie) == 4403
    by_token = FramesChecked(application, "/ws/me/", headers=[(b"x-session-token", token.encode())])
    assert await closed_with(by_token) == 4403


async def test_an_unknown_game_is_closed_with_4404(setup_game):
    _, _, a_cookie, _, _ = await setup_game()
    assert await closed_with(await open_socket("/ws/games/999999/", a_cookie)) == 4404


BAD_FRAMES = [
    ({"bytes_data": b"\x00\x01"}, "malformed"),
    ({"text_data": "ping"}, "malformed"),
    ({"text_data": '{"type": "ping"'}, "malformed"),
    ({"text_data": "[" * 1000 + "]" * 1000}, "too_deep"),
    ({"text_data": json.dumps({"type": "ping", "pad": "x" * 5000})}, "too_large"),
    ({"text_data": '{"type": "resign"}'}, "unsupported"),
    ({"text_data": "[1]"}, "unsupported"),
]


@pytest.mark.parametrize("stream", ["game", "me"])
async def test_a_bad_frame_gets_an_error_frame_and_the_socket_stays_open(setup_game, stream):
    _, game, a_cookie, _, _ = await setup_game()
    socket = await open_socket(
        f"/ws/games/{game['id']}/" if stream == "game" else "/ws/me/", a_cookie
    )
    assert (await socket.connect())[0]
    await socket.receive_json_from()
    for frame, code in BAD_FRAMES:
        await socket.send_to(**frame)
        error = await socket.receive_json_from()
        assert (error["type"], error["code"]) == ("error", code), frame
        assert error["detail"]
        await socket.send_json_to({"type": "ping"})
        assert await socket.receive_json_from() == {"type": "pong"}
    await socket.disconnect()


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
    frame = await socket.receive_json_from()
    assert frame["envelope"]["state"]["cells"][4] == 0
    assert [entry["number"] for entry in frame["moves"]] == [1]
    await socket.disconnect()


async def test_an_unlisted_games_socket_opens_only_with_its_link_key(alice, bob, carol):
    def make():
        let_anyone_invite(bob)
        client, _ = signed_in(alice)
        game = client.post(
            "/api/v1/games/",
            {"kind": "tictactoe", "seats": [{"user": "bob"}], "unlisted": True},
            format="json",
        ).json()
        return game, signed_in(bob)[1], signed_in(carol)[1]

    game, b_cookie, c_cookie = await sync_to_async(make)()
    path = f"/ws/games/{game['id']}/"

    assert await closed_with(await open_socket(path, c_cookie)) == 4404
    assert await closed_with(await open_socket(f"{path}?key=wrong", c_cookie)) == 4404
    spectator = await open_socket(f"{path}?key={game['link_key']}", c_cookie)
    assert (await spectator.connect())[0]
    assert (await spectator.receive_json_from())["envelope"]["you"] is None
    await spectator.disconnect()
    invited = await open_socket(path, b_cookie)  # a player needs no key
    assert (await invited.connect())[0]
    assert (await invited.receive_json_from())["envelope"]["you"] == 1
    await invited.disconnect()


async def test_a_games_socket_is_refused_across_a_block(setup_game, bob, carol):
    _, game, _, _, c_cookie = await setup_game()
    await sync_to_async(Block.objects.create)(blocker=bob, blocked=carol)
    assert await closed_with(await open_socket(f"/ws/games/{game['id']}/", c_cookie)) == 4404


# --- a closed account's open pages go dark at once ---------------------------------------------


def deactivate(user, staff) -> None:
    users_deactivate(actor=staff, user_ids=[user.pk], reason="abuse")


def delete(user, staff) -> None:
    account_anonymise(user=user)


@pytest.mark.parametrize(("close", "code"), [(deactivate, 4403), (delete, 4401)])
async def test_closing_an_account_closes_every_socket_of_it(setup_game, bob, staff, close, code):
    a_client, game, a_cookie, b_cookie, _ = await setup_game()
    token = await sync_to_async(app_login)(bob)
    bobs = [
        await open_socket(f"/ws/games/{game['id']}/", b_cookie),
        await open_socket("/ws/me/", b_cookie),
        FramesChecked(application, "/ws/me/", headers=[(b"x-session-token", token.encode())]),
    ]
    alices = await open_socket(f"/ws/games/{game['id']}/", a_cookie)
    for socket in [*bobs, alices]:
        assert (await socket.connect())[0]
        await socket.receive_json_from()

    await sync_to_async(close)(bob, staff)

    for socket in bobs:
        message = await socket.receive_output(timeout=30)
        assert message == {"type": "websocket.close", "code": code}
        await socket.send_input({"type": "websocket.disconnect", "code": code})
        await socket.wait(timeout=30)
    # Its session and its app token are dead too: nothing reaches the account any more.
    assert await closed_with(await open_socket("/ws/me/", b_cookie)) in (4401, 4403)
    b_client = APIClient(headers={"x-session-token": token})
    assert (await sync_to_async(b_client.get)("/api/v1/me/")).status_code in (401, 403)
    # The other player's socket stays open and live: a move (or, for the deleted account, the
    # resignation that settled its game) reaches it.
    if close is deactivate:
        await sync_to_async(a_client.post)(
            f"/api/v1/games/{game['id']}/moves/",
            {"expected_version": game["version"], "move": {"cell": 4}},
            format="json",
        )
    frame = await alices.receive_json_from(timeout=30)
    assert frame["envelope"]["version"] == game["version"] + 1
    await alices.disconnect()


async def test_a_rematch_offer_reaches_the_other_players_page_at_once(setup_game):
    """Asked for on a finished game, a rematch reaches the other player's open page of it in a
    new envelope naming it (`rematch_id`); their invitation to it, which the page answers right
    there, is in the rematch's envelope."""
    a_client, game, _, b_cookie, _ = await setup_game()
    url = f"/api/v1/games/{game['id']}/"
    await sync_to_async(a_client.post)(f"{url}resign/")
    bob_socket = await open_socket(f"/ws/games/{game['id']}/", b_cookie)
    assert (await bob_socket.connect())[0]
    assert (await bob_socket.receive_json_from())["envelope"]["rematch_id"] is None

    rematch = (await sync_to_async(a_client.post)(f"{url}rematch/")).json()

    frame = await bob_socket.receive_json_from()
    assert frame["envelope"]["rematch_id"] == rematch["id"]
    assert frame["envelope"]["you"] == 1
    invited = [(i["user"], i["status"]) for i in rematch["invitations"]]
    assert invited == [("bob", "pending")]
    await bob_socket.disconnect()
