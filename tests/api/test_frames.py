"""The sockets' frames are published components of `/api/schema/`, and the server keeps to them.

The consumer tests check every frame they receive (tests/api/socket_frames.py); here: the
components are served and strict, and every notification event the server tells reaches `ws/me/`
in a frame that validates, each event through the service that tells it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import jsonschema
import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import friends
from greycircle.asgi import application
from greycircle.games import invitations, reminders, services
from greycircle.games.deadlines import deadlines_check, game_claim_win
from greycircle.games.models import Game, Invitation
from greycircle.games.services import SeatSpec
from greycircle.notifications.frames import NotificationEventSerializer
from tests.api.openapi_responses import ComponentValidator
from tests.api.socket_frames import FramesChecked
from tests.factories import game_started, let_anyone_invite

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("tictactoe", "close_thread_connections"),
]

DAY = timedelta(days=1)


@pytest.fixture
def served() -> dict[str, Any]:
    """The components `/api/schema/` serves."""

    def get() -> dict[str, Any]:
        response = APIClient().get("/api/schema/", {"format": "json"})
        assert response.status_code == 200
        return response.json()["components"]["schemas"]

    return sync_to_async(get)


async def test_the_schema_serves_each_streams_frames_told_apart_by_type(served):
    schemas = await served()
    mappings = {
        name: sorted(schemas[name]["discriminator"]["mapping"])
        for name in (
            "GameSocketFrame",
            "MeSocketFrame",
            "LobbySocketFrame",
            "ClientSocketFrame",
            "GameClientSocketFrame",
        )
    }
    assert mappings == {
        "GameSocketFrame": [
            "chat_ack",
            "chat_error",
            "chat_message",
            "chat_message_removed",
            "error",
            "game",
            "move_ack",
            "move_error",
            "pong",
        ],
        "MeSocketFrame": [
            "direct_message",
            "direct_message_removed",
            "error",
            "game_started",
            "hello",
            "messages_unread",
            "notification",
            "pong",
            "unread",
        ],
        "LobbySocketFrame": ["error", "pong", "pools"],
        "ClientSocketFrame": ["ping"],
        "GameClientSocketFrame": ["chat", "move", "ping"],
    }
    # The frames carry the REST API's own components, the kinds' envelopes among them.
    game = schemas["GameFrame"]["properties"]
    assert game["envelope"]["allOf"] == [{"$ref": "#/components/schemas/GameEnvelope"}]
    assert game["moves"]["items"] == {"$ref": "#/components/schemas/MoveLogEntry"}
    assert {"$ref": "#/components/schemas/TictactoeGame"} in schemas["GameEnvelope"]["oneOf"]
    inbox = schemas["NotificationFrame"]["properties"]["inbox"]
    assert inbox["allOf"] == [{"$ref": "#/components/schemas/Notification"}]


@pytest.mark.parametrize(
    ("component", "frame"),
    [
        ("GameSocketFrame", {"type": "ping"}),
        ("GameSocketFrame", {"type": "game", "envelope": {"kind": "tictactoe", "id": 1}}),
        ("GameSocketFrame", {"type": "error", "code": "teapot", "detail": "No."}),
        ("MeSocketFrame", {"type": "hello", "user": "bob"}),
        ("MeSocketFrame", {"type": "unread", "unread_count": "2", "read": []}),
        ("MeSocketFrame", {"type": "notification", "notification": {"event": "party"}}),
        (
            "MeSocketFrame",
            {"type": "notification", "notification": {"event": "your_turn", "game": 1}},
        ),
        ("ClientSocketFrame", {"type": "pong"}),
        ("ClientSocketFrame", {"type": "move", "id": "m", "expected_version": 1, "move": {}}),
        ("GameClientSocketFrame", {"type": "move", "id": "m", "expected_version": 1}),
        ("GameClientSocketFrame", {"type": "move", "expected_version": 1, "move": {"cell": 4}}),
        ("GameSocketFrame", {"type": "move_ack", "id": "m"}),
        ("GameSocketFrame", {"type": "move_error", "code": "stale_version", "detail": "No."}),
    ],
)
async def test_a_frame_off_its_component_is_refused(served, component, frame):
    validator = ComponentValidator({"components": {"schemas": await served()}})
    with pytest.raises(jsonschema.ValidationError):
        validator.validate_component(component, frame)


async def test_a_notification_without_its_inbox_members_is_a_frame_too(served):
    """The database failing leaves the event without what it did to the inbox: it still goes out
    (greycircle.notifications.delivery.notification_message)."""
    validator = ComponentValidator({"components": {"schemas": await served()}})
    event = {"event": "friend_accepted", "by": "bob", "user": 2}
    validator.validate_component("MeSocketFrame", {"type": "notification", "notification": event})


# --- every event the server tells, on a real stream ---------------------------------------------


def signed_in_cookie(user) -> bytes:
    client = APIClient()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def streams(*users) -> dict[str, FramesChecked]:
    """Each user's `ws/me/`, its hello received."""
    sockets = {}
    for user in users:
        cookie = await sync_to_async(signed_in_cookie)(user)
        socket = FramesChecked(
            application, "/ws/me/", headers=[(b"origin", b"http://testserver"), (b"cookie", cookie)]
        )
        assert (await socket.connect())[0]
        assert (await socket.receive_json_from())["type"] == "hello"
        sockets[user.username] = socket
    return sockets


async def told_of(
    sockets: dict[str, FramesChecked],
    deliver: Callable[[], None],
    change: Callable[[], Any],
    *awaited: tuple[str, str],
) -> set[str]:
    """Make `change` and deliver the notifications it queued; the events the streams told of it,
    once every awaited `(user, event)` has arrived (every frame validated on receipt)."""
    await sync_to_async(change)()
    await sync_to_async(deliver)()
    seen: dict[str, set[str]] = {name: set() for name in sockets}

    def note(name: str, frame: dict[str, Any]) -> None:
        if frame["type"] == "notification":
            seen[name].add(frame["notification"]["event"])

    for name, event in awaited:
        while event not in seen[name]:
            note(name, await sockets[name].receive_json_from())
    for name, socket in sockets.items():  # and whatever else has arrived by now
        while not await socket.receive_nothing(timeout=0.01):
            note(name, await socket.receive_json_from())
    return set().union(*seen.values())


async def close(sockets: dict[str, FramesChecked]) -> None:
    for socket in sockets.values():
        await socket.disconnect()


def invitation(game: Game, user) -> int:
    return Invitation.objects.get(game=game, invitee=user).pk


def invite(creator, invitee, *, on_decline: str = "cancel") -> Game:
    return services.game_create(
        creator=creator, kind="tictactoe", opponents=[SeatSpec(user=invitee)], on_decline=on_decline
    )


# Every event, with the test below that has the server tell it.
TOLD = {
    "invitations": {
        "invitation",
        "invitation_accepted",
        "your_turn",
        "invitation_declined",
        "invitation_cancelled",
        "invitation_expired",
        "player_joined",
        "game_withdrawn",
    },
    "play": {"your_turn", "reminder", "time_running_out", "win_claimable", "game_over"},
    "takeover": {"seat_taken_over"},
    "friends": {"friend_request", "friend_accepted"},
    # tests/conversations/test_frames.py
    "messages": {"message"},
    # tests/moderation/test_frames.py
    "moderation": {"moderation_notice"},
}


def test_the_events_told_below_are_every_event_of_the_component():
    assert set().union(*TOLD.values()) == set(NotificationEventSerializer.variants)


async def test_invitations_and_their_answers_are_told_in_frames_of_the_schema(
    alice, bob, carol, deliver_notifications
):
    await sync_to_async(let_anyone_invite)(bob, carol)
    sockets = await streams(alice, bob, carol)
    games: list[Game] = []

    def invited() -> None:
        games.append(invite(alice, bob))

    told = await told_of(sockets, deliver_notifications, invited, ("bob", "invitation"))

    def accept() -> None:
        invitations.invitation_accept(invitation_id=invitation(games[0], bob), user=bob)

    told |= await told_of(
        sockets,
        deliver_notifications,
        accept,
        ("alice", "invitation_accepted"),
        ("alice", "your_turn"),
    )

    def decline() -> None:
        game = invite(alice, bob)
        invitations.invitation_decline(invitation_id=invitation(game, bob), user=bob)

    told |= await told_of(
        sockets,
        deliver_notifications,
        decline,
        ("bob", "invitation"),
        ("alice", "invitation_declined"),
    )

    def cancel_invitation() -> None:
        game = invite(alice, bob, on_decline="open_seat")
        invitations.invitation_cancel(invitation_id=invitation(game, bob), user=alice)

    told |= await told_of(
        sockets,
        deliver_notifications,
        cancel_invitation,
        ("bob", "invitation"),
        ("bob", "invitation_cancelled"),
    )

    def expire() -> None:
        game = invite(alice, bob)
        Invitation.objects.filter(game=game).update(expires_at=timezone.now() - DAY)
        invitations.invitations_expire()

    told |= await told_of(
        sockets,
        deliver_notifications,
        expire,
        ("bob", "invitation"),
        ("alice", "invitation_expired"),
    )

    def withdraw_after_a_join() -> None:
        game = services.game_create(
            creator=alice, kind="kingscorner", opponents=[SeatSpec(), SeatSpec()]
        )
        services.game_join(game_id=game.pk, user=carol)
        services.game_cancel(game_id=game.pk, user=alice)

    told |= await told_of(
        sockets,
        deliver_notifications,
        withdraw_after_a_join,
        ("alice", "player_joined"),
        ("carol", "game_withdrawn"),
    )
    await close(sockets)
    assert told == TOLD["invitations"]


async def test_a_games_turns_reminders_deadlines_and_result_are_told_in_frames_of_the_schema(
    alice, bob, deliver_notifications
):
    sockets = await streams(alice, bob)
    games: list[Game] = []

    def start() -> None:
        games.append(game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)]))

    await told_of(
        sockets, deliver_notifications, start, ("bob", "invitation"), ("alice", "your_turn")
    )
    [game] = games

    def move() -> None:
        played = services.move_submit(
            game_id=game.pk, user=alice, move={"cell": 4}, expected_version=game.version
        )
        games.append(played)

    told = await told_of(sockets, deliver_notifications, move, ("bob", "your_turn"))
    deadline = games[-1].move_deadline

    def poke() -> None:
        reminders.game_poke(game_id=game.pk, user=alice)

    told |= await told_of(sockets, deliver_notifications, poke, ("bob", "reminder"))

    def near_the_deadline() -> None:
        deadlines_check(now=deadline - DAY + timedelta(minutes=1))

    told |= await told_of(
        sockets, deliver_notifications, near_the_deadline, ("bob", "time_running_out")
    )

    def past_the_deadline() -> None:
        deadlines_check(now=deadline + timedelta(seconds=1))

    told |= await told_of(
        sockets, deliver_notifications, past_the_deadline, ("alice", "win_claimable")
    )

    def claim() -> None:
        game_claim_win(game_id=game.pk, user=alice, now=deadline + timedelta(seconds=2))

    told |= await told_of(sockets, deliver_notifications, claim, ("bob", "game_over"))
    await close(sockets)
    assert told == TOLD["play"]


async def test_a_seat_taken_over_is_told_in_a_frame_of_the_schema(
    alice, bob, carol, deliver_notifications
):
    sockets = await streams(alice)
    games: list[Game] = []

    def start() -> None:
        opponents = [SeatSpec(user=bob), SeatSpec(user=carol)]
        games.append(game_started(creator=alice, kind="kingscorner", opponents=opponents))

    await told_of(sockets, deliver_notifications, start, ("alice", "your_turn"))
    [game] = games

    def past_the_deadline() -> None:
        deadlines_check(now=game.move_deadline + timedelta(seconds=1))

    told = await told_of(
        sockets, deliver_notifications, past_the_deadline, ("alice", "seat_taken_over")
    )
    await close(sockets)
    assert told == TOLD["takeover"]


async def test_friend_requests_and_answers_are_told_in_frames_of_the_schema(
    alice, bob, deliver_notifications
):
    sockets = await streams(alice, bob)
    sent = []

    def ask() -> None:
        sent.append(friends.friend_request_send(sender=alice, username="bob").request)

    told = await told_of(sockets, deliver_notifications, ask, ("bob", "friend_request"))

    def answer() -> None:
        friends.friend_request_accept(user=bob, request_id=sent[0].pk)

    told |= await told_of(sockets, deliver_notifications, answer, ("alice", "friend_accepted"))
    await close(sockets)
    assert told == TOLD["friends"]
