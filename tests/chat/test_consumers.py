"""Game chat over the game's socket (greycircle.chat.consumers, real consumers through the full
ASGI app): `chat` frames answered `chat_ack` / `chat_error`, and `chat_message` to each socket
whose user may see it. A socket that must not get a message is shown to have skipped it: the
next message it does get comes first (a channel's messages arrive in order)."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from rest_framework.test import APIClient

from accounts.friends import user_block
from accounts.models import User
from greycircle.chat import services
from greycircle.chat.models import GameMessage
from greycircle.games.services import SeatSpec, move_submit
from tests.api.socket_frames import frames_validator
from tests.factories import UserFactory, befriend, game_started
from tests.games.test_consumers import open_socket, signed_in

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("tictactoe", "close_thread_connections"),
]


@pytest.fixture
def game(alice, bob):
    """Tic-tac-toe in play between alice and bob; its id."""

    def make() -> int:
        return game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)]).pk

    return sync_to_async(make)


async def socket_of(user, game_id: int):
    cookie = (await sync_to_async(signed_in)(user))[1]
    socket = await open_socket(f"/ws/games/{game_id}/", cookie)
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from())["type"] == "game"
    return socket


def chat(body: str, room: str = "players", chat_id: str = "c1") -> dict:
    frame = {"type": "chat", "id": chat_id, "room": room, "body": body}
    frames_validator().validate_component("GameClientSocketFrame", frame)
    return frame


async def said(socket) -> tuple[str, str]:
    """The next `chat_message` frame's author and body."""
    frame = await socket.receive_json_from()
    assert frame["type"] == "chat_message", frame
    return frame["message"]["author"]["username"], frame["message"]["body"]


async def test_a_players_message_reaches_both_players_and_no_spectator(game, alice, bob, carol):
    game_id = await game()
    a, b, c = [await socket_of(user, game_id) for user in (alice, bob, carol)]

    await a.send_json_to(chat("good luck <b>bob</b>"))
    ack = await a.receive_json_from()
    assert (ack["type"], ack["id"]) == ("chat_ack", "c1")
    assert ack["message"]["body"] == "good luck <b>bob</b>"
    assert ack["message"]["hidden"] is False
    assert await said(a) == ("alice", "good luck <b>bob</b>")
    assert await said(b) == ("alice", "good luck <b>bob</b>")

    # Carol, a spectator, skipped it: her next message is her own in the spectators' room. The
    # players never get that one while the game runs.
    await c.send_json_to(chat("bob is lost", room="spectators", chat_id="s1"))
    assert (await c.receive_json_from())["type"] == "chat_ack"
    assert await said(c) == ("carol", "bob is lost")
    await b.send_json_to(chat("thanks", chat_id="b1"))
    assert (await b.receive_json_from())["type"] == "chat_ack"
    assert await said(b) == ("bob", "thanks")
    assert await said(a) == ("bob", "thanks")
    for socket in (a, b, c):
        await socket.disconnect()


async def test_a_message_sent_on_the_socket_then_over_http_is_posted_once(game, alice, bob):
    """The panel's fallback: no answer in time on the socket, it posts the same id over HTTP."""
    game_id = await game()
    a, b = await socket_of(alice, game_id), await socket_of(bob, game_id)

    await a.send_json_to(chat("good luck", chat_id="c0ffee-1"))
    ack = await a.receive_json_from()

    def post_over_http() -> dict:
        client = APIClient()
        client.force_login(alice)
        sent = {"id": "c0ffee-1", "room": "players", "body": "good luck"}
        answer = client.post(f"/api/v1/games/{game_id}/chat/", sent, format="json")
        assert answer.status_code == 201
        return answer.json()

    assert await sync_to_async(post_over_http)() == ack["message"]
    assert await sync_to_async(GameMessage.objects.count)() == 1
    # Each socket got the message once: the next frame after it is bob's next message.
    assert await said(a) == ("alice", "good luck")
    assert await said(b) == ("alice", "good luck")
    await b.send_json_to(chat("thanks", chat_id="b1"))
    assert (await b.receive_json_from())["type"] == "chat_ack"
    for socket in (a, b):
        assert await said(socket) == ("bob", "thanks")
    for socket in (a, b):
        await socket.disconnect()


async def test_refusals_come_back_as_chat_errors(game, alice, carol):
    game_id = await game()
    a, c = await socket_of(alice, game_id), await socket_of(carol, game_id)

    await c.send_json_to(chat("let me in"))
    refused = await c.receive_json_from()
    assert (refused["type"], refused["id"], refused["code"]) == ("chat_error", "c1", "not_a_player")

    await a.send_json_to({"type": "chat", "id": "c2", "room": "players"})
    invalid = await a.receive_json_from()
    assert (invalid["type"], invalid["code"]) == ("chat_error", "invalid")
    assert "body" in invalid["fields"]

    await a.send_json_to(chat("x" * 501, chat_id="c3"))
    assert (await a.receive_json_from())["code"] == "message_too_long"
    for socket in (a, c):
        await socket.disconnect()


async def test_each_socket_leaves_out_what_its_user_may_not_see(game, alice, bob, carol):
    game_id = await game()
    dave = await sync_to_async(UserFactory)(username="dave")
    await sync_to_async(user_block)(blocker=dave, username=carol.username)
    await sync_to_async(befriend)(alice, bob)
    a, b = await socket_of(alice, game_id), await socket_of(bob, game_id)
    c, d = await socket_of(carol, game_id), await socket_of(dave, game_id)

    # A flagged message: its author sees it (hidden), the other player does not.
    await a.send_json_to(chat("what a sh1t move", chat_id="f"))
    ack = await a.receive_json_from()
    assert ack["message"]["hidden"] is True
    assert (await a.receive_json_from())["message"]["hidden"] is True
    # Links: clickable for a friend, plain for a stranger (both spectators here see none of it).
    await a.send_json_to(chat("see example.com", chat_id="l"))
    await a.receive_json_from()
    assert (await a.receive_json_from())["message"]["links"] is True
    link = await b.receive_json_from()  # the flagged one never came
    assert (link["message"]["body"], link["message"]["links"]) == ("see example.com", True)

    # A block either way: dave never gets carol's message, nor carol dave's.
    await c.send_json_to(chat("from carol", room="spectators", chat_id="c"))
    await c.receive_json_from()
    assert await said(c) == ("carol", "from carol")
    await d.send_json_to(chat("from dave", room="spectators", chat_id="d"))
    await d.receive_json_from()
    assert await said(d) == ("dave", "from dave")  # carol's never came
    eve = await sync_to_async(UserFactory)(username="eve")
    await sync_to_async(services.game_message_post)(
        user=eve, game_id=game_id, room="spectators", body="from eve"
    )
    assert await said(c) == ("eve", "from eve")  # dave's never came
    assert await said(d) == ("eve", "from eve")
    for socket in (a, b, c, d):
        await socket.disconnect()


async def test_a_game_switched_off_stops_its_messages(game, alice, bob):
    """A message published while bob's chat was off here never reaches him, even if his socket
    reads it only after he turned chat on again (the message names who had it off)."""
    game_id = await game()
    a, b = await socket_of(alice, game_id), await socket_of(bob, game_id)

    await sync_to_async(services.game_chat_switch)(user=bob, game_id=game_id, on=False)
    await a.send_json_to(chat("are you there?"))
    await a.receive_json_from()
    assert await said(a) == ("alice", "are you there?")

    await sync_to_async(services.game_chat_switch)(user=bob, game_id=game_id, on=True)
    await a.send_json_to(chat("and now?", chat_id="c2"))
    await a.receive_json_from()
    assert await said(b) == ("alice", "and now?")  # the first never came
    for socket in (a, b):
        await socket.disconnect()


async def test_chat_off_in_the_settings_stops_every_message(game, alice, bob):
    game_id = await game()
    await sync_to_async(User.objects.filter(pk=bob.pk).update)(chat_enabled=False)
    a, b = await socket_of(alice, game_id), await socket_of(bob, game_id)

    await a.send_json_to(chat("anyone?"))
    await a.receive_json_from()
    assert await said(a) == ("alice", "anyone?")
    played = await sync_to_async(move_submit)(
        game_id=game_id, user=alice, move={"cell": 4}, expected_version=1
    )
    frame = await b.receive_json_from()  # the message never came: the move's frame is next
    assert (frame["type"], frame["envelope"]["version"]) == ("game", played.version)
    for socket in (a, b):
        await socket.disconnect()


async def test_a_block_made_while_both_sockets_are_open_stops_the_next_message_at_once(
    game, alice, bob
):
    """Blocked users never see each other's messages: not even on a socket that read its user's
    friends a moment before the block (no wait for that read to go stale)."""
    game_id = await game()
    a, b = await socket_of(alice, game_id), await socket_of(bob, game_id)
    await a.send_json_to(chat("hello"))
    await a.receive_json_from()
    for socket in (a, b):
        assert await said(socket) == ("alice", "hello")  # both sockets read their relations

    await sync_to_async(user_block)(blocker=alice, username=bob.username)
    await b.send_json_to(chat("you cheat", chat_id="b1"))
    assert (await b.receive_json_from())["type"] == "chat_ack"
    assert await said(b) == ("bob", "you cheat")
    await a.send_json_to(chat("bye", chat_id="c2"))
    await a.receive_json_from()
    assert await said(a) == ("alice", "bye")  # bob's never came
    await b.send_json_to(chat("still here", chat_id="b2"))
    await b.receive_json_from()
    assert await said(b) == ("bob", "still here")  # alice's "bye" never came
    for socket in (a, b):
        await socket.disconnect()


async def test_a_message_staff_hid_leaves_the_open_pages_but_its_author_s(game, alice, bob):
    """A report acted on hides its message (greycircle.reports.resolution reviews it so): every
    socket of its room drops it; its author keeps it, marked hidden, as a flagged one of theirs."""
    game_id = await game()
    a, b = await socket_of(alice, game_id), await socket_of(bob, game_id)
    await b.send_json_to(chat("you play like my cat", chat_id="b1"))
    posted = (await b.receive_json_from())["message"]
    for socket in (a, b):
        assert await said(socket) == ("bob", "you play like my cat")

    def hide() -> None:
        message = GameMessage.objects.get(pk=posted["id"])
        services.game_message_review(message=message, visible=False)

    await sync_to_async(hide)()
    removed = await a.receive_json_from()
    frames_validator().validate_component("GameSocketFrame", removed)
    assert removed == {"type": "chat_message_removed", "id": posted["id"], "room": "players"}
    await a.send_json_to(chat("thanks, mods", chat_id="c2"))
    await a.receive_json_from()
    assert await said(b) == ("alice", "thanks, mods")  # bob was not told to drop his own
    for socket in (a, b):
        await socket.disconnect()
