"""Moves over a game's socket (greycircle.games.consumers.GameConsumer): played by the service that
plays `POST /games/{id}/moves/`, answered on the socket with a `move_ack` or a `move_error` with
that endpoint's codes, the change itself reaching every socket of the game as it always does."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from greycircle.games import frames, services
from greycircle.games.clocks import TimeControl
from greycircle.games.models import Game, Move
from greycircle.games.services import SeatSpec
from tests.api.socket_frames import frames_validator
from tests.factories import UserFactory, game_started
from tests.games.test_consumers import open_socket, signed_in

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("tictactoe", "close_thread_connections"),
]


@pytest.fixture
def game(alice, bob):
    """A tic-tac-toe game in play, alice (seat 0) to move against bob; its id."""

    def make() -> int:
        return game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)]).pk

    return sync_to_async(make)


async def socket_of(user, game_id: int):
    """`user`'s socket of the game, its first frame received."""
    cookie = (await sync_to_async(signed_in)(user))[1]
    socket = await open_socket(f"/ws/games/{game_id}/", cookie)
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from())["type"] == "game"
    return socket


def move_frame(version: int, cell: int, move_id: str = "m1") -> dict[str, Any]:
    frame = {"type": "move", "id": move_id, "expected_version": version, "move": {"cell": cell}}
    frames_validator().validate_component("GameClientSocketFrame", frame)
    return frame


@sync_to_async
def game_now(game_id: int) -> tuple[int, int]:
    """The game's version and its number of moves."""
    return Game.objects.get(pk=game_id).version, Move.objects.filter(game_id=game_id).count()


@sync_to_async
def over_http(user, game_id: int, frame: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The same move as `POST /games/{id}/moves/` answers it: status and body."""
    client = APIClient()
    client.force_login(user)
    answer = client.post(
        f"/api/v1/games/{game_id}/moves/",
        {"expected_version": frame["expected_version"], "move": frame["move"]},
        format="json",
        headers={"Idempotency-Key": frame["id"]},
    )
    return answer.status_code, answer.json()


async def still_open(*sockets) -> None:
    for socket in sockets:
        await socket.send_json_to({"type": "ping"})
        assert await socket.receive_json_from() == {"type": "pong"}


async def test_a_move_is_acked_and_its_game_frame_follows_on_every_socket(game, alice, bob):
    game_id = await game()
    version, _ = await game_now(game_id)
    alices, bobs = await socket_of(alice, game_id), await socket_of(bob, game_id)

    await alices.send_json_to(move_frame(version, 4, "a-move"))

    assert await alices.receive_json_from() == {
        "type": "move_ack",
        "id": "a-move",
        "version": version + 1,
    }
    for socket, you in ((alices, 0), (bobs, 1)):
        frame = await socket.receive_json_from()
        assert frame["type"] == "game"
        assert (frame["envelope"]["version"], frame["envelope"]["you"]) == (version + 1, you)
        assert frame["envelope"]["state"]["cells"][4] == 0
        assert [(entry["number"], entry["cell"]) for entry in frame["moves"]] == [(1, 4)]
    assert await game_now(game_id) == (version + 1, 1)

    # An illegal move is refused by the rules, as over HTTP.
    await bobs.send_json_to(move_frame(version + 1, 4, "b-move"))
    refused = await bobs.receive_json_from()
    assert (refused["type"], refused["id"], refused["code"]) == (
        "move_error",
        "b-move",
        "illegal_move",
    )
    assert await game_now(game_id) == (version + 1, 1)
    await alices.disconnect()
    await bobs.disconnect()


async def test_the_same_id_again_plays_once_and_is_acked_again_over_the_socket_or_http(game, alice):
    """What the page relies on when an ack is late: the move sent again, by socket or over HTTP
    with the id as its Idempotency-Key, is not played twice."""
    game_id = await game()
    version, _ = await game_now(game_id)
    socket = await socket_of(alice, game_id)
    frame = move_frame(version, 4, "once")

    await socket.send_json_to(frame)
    assert (await socket.receive_json_from())["type"] == "move_ack"
    assert (await socket.receive_json_from())["type"] == "game"
    await socket.send_json_to(frame)
    assert await socket.receive_json_from() == {
        "type": "move_ack",
        "id": "once",
        "version": version + 1,
    }
    status, envelope = await over_http(alice, game_id, frame)
    assert (status, envelope["version"]) == (200, version + 1)

    assert await game_now(game_id) == (version + 1, 1)
    assert await socket.receive_nothing(timeout=0.1)  # no change, so no game frame
    await socket.disconnect()


async def test_each_refusal_is_the_rest_endpoints_own_and_changes_nothing(game, alice, bob, carol):
    game_id = await game()
    version, _ = await game_now(game_id)
    guest = await sync_to_async(UserFactory)(username="guest-1", is_guest=True)
    sockets = {user.username: await socket_of(user, game_id) for user in (alice, bob, carol, guest)}
    refusals = [
        (alice, move_frame(version - 1, 4, "stale"), "stale_version"),
        (alice, move_frame(version, 4, "x") | {"move": {"cell": "c5"}}, "malformed"),
        (bob, move_frame(version, 4, "early"), "not_your_turn"),
        (carol, move_frame(version, 4, "spectator"), "not_a_player"),
        (guest, move_frame(version, 4, "guest"), "not_a_player"),
    ]
    answers = {}
    for user, frame, code in refusals:
        socket = sockets[user.username]
        await socket.send_json_to(frame)
        refused = answers[code] = await socket.receive_json_from()
        assert (refused["type"], refused["id"], refused["code"]) == (
            "move_error",
            frame["id"],
            code,
        )
        # The body HTTP answers, code, detail and extra members alike.
        status, body = await over_http(user, game_id, frame)
        assert status >= 400
        assert {key: value for key, value in refused.items() if key not in ("type", "id")} == body
    assert answers["stale_version"]["current_version"] == version

    assert await game_now(game_id) == (version, 0)
    await still_open(*sockets.values())
    for socket in sockets.values():
        assert await socket.receive_nothing(timeout=0.01)
        await socket.disconnect()


BAD_MOVE_FRAMES = [
    ({"type": "move", "expected_version": 1, "move": {"cell": 4}}, "id", None),
    ({"type": "move", "id": "x" * 129, "expected_version": 1, "move": {"cell": 4}}, "id", None),
    ({"type": "move", "id": 7, "expected_version": 1, "move": {"cell": 4}}, "id", None),
    ({"type": "move", "id": "", "expected_version": 1, "move": {"cell": 4}}, "id", ""),
    (
        {"type": "move", "id": "v", "expected_version": "1", "move": {"cell": 4}},
        "expected_version",
        "v",
    ),
    (
        {"type": "move", "id": "v", "expected_version": -1, "move": {"cell": 4}},
        "expected_version",
        "v",
    ),
    ({"type": "move", "id": "v", "move": {"cell": 4}}, "expected_version", "v"),
    ({"type": "move", "id": "m", "expected_version": 1, "move": [4]}, "move", "m"),
    ({"type": "move", "id": "m", "expected_version": 1}, "move", "m"),
]


async def test_a_malformed_move_frame_is_refused_by_field_and_changes_nothing(game, alice):
    game_id = await game()
    version, _ = await game_now(game_id)
    socket = await socket_of(alice, game_id)
    for frame, field, echoed in BAD_MOVE_FRAMES:
        await socket.send_json_to(frame)
        refused = await socket.receive_json_from()
        assert (refused["type"], refused["code"], refused["id"]) == (
            "move_error",
            "invalid",
            echoed,
        ), frame
        assert list(refused["fields"]) == [field], frame
        assert refused["detail"]
    # Too large or too deep to be read: refused before anything looks at it, as every frame is.
    padded = move_frame(version, 4) | {"move": {"cell": 4, "pad": "x" * 5000}}
    nested = move_frame(version, 4) | {"move": {"cell": 4, "deep": json.loads("[" * 8 + "]" * 8)}}
    for frame, code in ((padded, "too_large"), (nested, "too_deep")):
        await socket.send_json_to(frame)
        refused = await socket.receive_json_from()
        assert (refused["type"], refused["code"]) == ("error", code)
    assert await game_now(game_id) == (version, 0)
    await still_open(socket)
    await socket.disconnect()


async def test_a_game_over_takes_no_move(game, alice):
    game_id = await game()
    await sync_to_async(services.game_resign)(game_id=game_id, user=alice)
    version, moves = await game_now(game_id)
    socket = await socket_of(alice, game_id)
    await socket.send_json_to(move_frame(version, 4, "late"))
    refused = await socket.receive_json_from()
    assert (refused["type"], refused["id"], refused["code"]) == (
        "move_error",
        "late",
        "game_not_active",
    )
    assert await game_now(game_id) == (version, moves)
    await socket.disconnect()


async def test_a_move_that_arrives_after_the_flag_is_refused_time_up_and_the_game_ends(alice, bob):
    """A live game's move is timed by the frame's arrival, as a request's is by its own."""

    def make() -> int:
        game = game_started(
            creator=alice,
            kind="tictactoe",
            opponents=[SeatSpec(user=bob)],
            time_control=TimeControl(1, 0),
        )
        for user, cell in ((alice, 0), (bob, 4)):  # first turns are not on the clock
            version = Game.objects.get(pk=game.pk).version
            services.move_submit(
                game_id=game.pk, user=user, move={"cell": cell}, expected_version=version
            )
        # alice's minute (and the lag allowance) ran out a second ago.
        started = timezone.now() - timedelta(minutes=1, seconds=1)
        flag_at = started + timedelta(minutes=1, milliseconds=300)
        Game.objects.filter(pk=game.pk).update(clock_started_at=started, flag_at=flag_at)
        return game.pk

    game_id = await sync_to_async(make)()
    version, _ = await game_now(game_id)
    socket = await socket_of(alice, game_id)
    await socket.send_json_to(move_frame(version, 1, "too-late"))
    refused = await socket.receive_json_from()
    assert (refused["type"], refused["id"], refused["code"]) == (
        "move_error",
        "too-late",
        "time_up",
    )
    ended = (await socket.receive_json_from())["envelope"]
    assert (ended["status"], ended["outcome"]["reason"]) == ("finished", "timeout")
    assert ended["move_count"] == 2
    await socket.disconnect()


async def test_moves_over_the_socket_spend_the_http_moves_budget(
    game, alice, monkeypatch, rate_window_still
):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "moves", "1/min")
    game_id = await game()
    version, _ = await game_now(game_id)
    socket = await socket_of(alice, game_id)
    status, _ = await over_http(alice, game_id, move_frame(version - 1, 4, "spent"))
    assert status == 409

    await socket.send_json_to(move_frame(version, 4, "one-too-many"))
    refused = await socket.receive_json_from()
    assert (refused["type"], refused["id"], refused["code"]) == (
        "move_error",
        "one-too-many",
        "throttled",
    )
    assert 1 <= refused["retry_after"] <= 60
    assert await game_now(game_id) == (version, 0)
    await socket.disconnect()


async def test_the_me_stream_takes_no_moves(game, alice):
    game_id = await game()
    version, _ = await game_now(game_id)
    cookie = (await sync_to_async(signed_in)(alice))[1]
    socket = await open_socket("/ws/me/", cookie)
    assert (await socket.connect())[0]
    await socket.receive_json_from()
    await socket.send_json_to(move_frame(version, 4))
    refused = await socket.receive_json_from()
    assert (refused["type"], refused["code"]) == ("error", "unsupported")
    assert await game_now(game_id) == (version, 0)
    await socket.disconnect()


def test_the_hand_check_of_a_move_frame_agrees_with_its_serializer():
    """`frames.move_frame_read` takes every move the serializer takes, as it reads them, and
    none it refuses (the serializer then words the refusal)."""
    good = [
        move_frame(3, 4),
        {"type": "move", "id": "x" * 128, "expected_version": 0, "move": {}},
        {"type": "move", "id": "a", "expected_version": 2**31 - 1, "move": {"c": [1]}},
    ]
    too_big = {"type": "move", "id": "a", "expected_version": 2**31, "move": {}}
    as_float = {"type": "move", "id": "a", "expected_version": 1.0, "move": {}}
    as_bool = {"type": "move", "id": "a", "expected_version": True, "move": {}}
    for frame in [*good, too_big, as_float, as_bool] + [bad for bad, _, _ in BAD_MOVE_FRAMES]:
        serializer = frames.MoveFrameSerializer(data=frame)
        expected = dict(serializer.validated_data) if serializer.is_valid() else None
        assert frames.move_frame_read(frame) == expected, frame


async def test_a_key_sent_again_at_the_current_version_plays_nothing(game, alice, bob):
    """A key is looked up only for a move sent at an older version (a repeat of a move played
    comes with the version before it); at the current one the move log's unique key refuses it,
    and the answer is the repeat's: the game as it is."""
    game_id = await game()
    version, _ = await game_now(game_id)
    alices = await socket_of(alice, game_id)
    await alices.send_json_to(move_frame(version, 4, move_id="once"))
    assert (await alices.receive_json_from())["type"] == "move_ack"
    await alices.receive_json_from()  # the move's game frame
    bobs = await socket_of(bob, game_id)
    await bobs.send_json_to(move_frame(version + 1, 0, move_id="b1"))
    assert (await bobs.receive_json_from())["type"] == "move_ack"
    await alices.receive_json_from()  # bob's move's game frame

    await alices.send_json_to(move_frame(version + 2, 8, move_id="once"))

    assert await alices.receive_json_from() == {
        "type": "move_ack",
        "id": "once",
        "version": version + 2,
    }
    assert await game_now(game_id) == (version + 2, 2)
    for socket in (alices, bobs):
        await socket.disconnect()
