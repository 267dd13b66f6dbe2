"""Who is told what (greycircle.notifications.receivers), from what the platform tells has
happened (greycircle.games.signals): its arguments are plain JSON, the news of a game change
follows from them alone, and every piece of news is queued in its change's transaction."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.db import transaction
from django_tasks_db.models import DBTaskResult

from accounts import friends
from greycircle.games import invitations, reminders, services, signals
from greycircle.games.events import user_group
from greycircle.games.models import Invitation
from greycircle.games.services import SeatSpec
from greycircle.notifications.models import Notification
from greycircle.notifications.receivers import game_change_news
from greycircle.notifications.tasks import notifications_send
from tests.factories import let_anyone_invite

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("tictactoe")]


@pytest.fixture
def told() -> Iterator[list[tuple[str, dict]]]:
    """What the platform tells, as (signal name, its arguments but the sender)."""
    heard: list[tuple[str, dict]] = []
    named = {
        "game_changed": signals.game_changed,
        "invitation_changed": signals.invitation_changed,
        "game_news": signals.game_news,
    }
    listeners = {}
    for name, signal in named.items():

        def listen(sender, *, signal, name=name, **arguments):
            heard.append((name, arguments))

        listeners[name] = listen
        signal.connect(listen, weak=False)
    yield heard
    for name, signal in named.items():
        signal.disconnect(listeners[name])


def test_what_happened_is_told_in_plain_json(alice, bob, told):
    let_anyone_invite(bob)
    game = services.game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    invitation = Invitation.objects.get(game=game)
    invitations.invitation_accept(invitation_id=invitation.pk, user=bob)
    services.move_submit(
        game_id=game.pk, user=alice, move={"cell": 4}, expected_version=game.version + 1
    )
    reminders.game_poke(game_id=game.pk, user=alice)

    assert [name for name, _ in told] == [
        "game_changed",  # set up, bob invited
        "game_changed",  # bob accepted: the game starts
        "invitation_changed",
        "game_changed",  # alice's move
        "game_news",  # alice reminds bob
    ]
    for _, arguments in told:
        assert json.loads(json.dumps(arguments)) == arguments
    created = told[0][1]
    assert created["created"] is True
    assert created["invitations"] == [
        {
            "seat": invitation.seat,
            "invitation": invitation.pk,
            "expires_at": created["invitations"][0]["expires_at"],
        }
    ]
    assert isinstance(created["invitations"][0]["expires_at"], str)
    assert told[2][1]["invitation"] == {
        "invitation": invitation.pk,
        "status": "accepted",
        "game": game.pk,
        "kind": "tictactoe",
        "version": game.version + 1,
        "inviter_id": alice.pk,
        "inviter": "alice",
        "invitee_id": bob.pk,
        "invitee": "bob",
    }
    assert told[4][1] == {
        "user_id": bob.pk,
        "event": "reminder",
        "data": {"game": game.pk, "kind": "tictactoe", "version": game.version + 2, "by": "alice"},
    }


def facts(**game) -> dict:
    """A tic-tac-toe game between alice (1, seat 0, who set it up) and bob (2, seat 1)."""
    return {
        "game": 7,
        "kind": "tictactoe",
        "version": 3,
        "status": "active",
        "to_move": 1,
        "outcome": None,
        "created_by": 1,
        "live": False,
        "seats": [
            {"index": 0, "user_id": 1, "name": "alice", "is_person": True, "first_turn": False},
            {"index": 1, "user_id": 2, "name": "bob", "is_person": True, "first_turn": False},
        ],
        **game,
    }


def news(
    *, actor=None, created=False, invitations=(), joined=None, ended=False, cancelled=False, **game
):
    """The news of a change that left the game as `facts(**game)`."""
    return game_change_news(
        game=facts(**game),
        created=created,
        invitations=list(invitations),
        joined=joined,
        ended=ended,
        cancelled=cancelled,
        actor=actor,
    )


ABOUT = {"game": 7, "kind": "tictactoe", "version": 3}


def test_the_news_of_a_move_is_for_the_player_to_move_but_not_its_maker():
    assert news(actor=1) == [{"user_id": 2, "event": "your_turn", "data": ABOUT}]
    assert news(actor=2) == []  # nobody is told of their own change, even when it is their turn


def test_in_a_live_game_only_a_first_turn_is_told():
    """Its players are at the board with their clocks running; a first turn has a short limit
    of its own, past which the game is aborted."""
    seats = facts()["seats"]
    first = [seats[0], {**seats[1], "first_turn": True}]
    assert news(actor=1, live=True, seats=first) == [
        {"user_id": 2, "event": "your_turn", "data": ABOUT}
    ]
    assert news(actor=1, live=True) == []


def test_a_new_game_invites_everyone_but_its_creator_with_their_invitation():
    invitation = {"seat": 1, "invitation": 11, "expires_at": "2026-12-08T10:00:00Z"}
    assert news(actor=1, created=True, invitations=[invitation], status="open", to_move=0) == [
        {
            "user_id": 2,
            "event": "invitation",
            "data": {
                "by": "alice",
                **ABOUT,
                "invitation": 11,
                "expires_at": invitation["expires_at"],
            },
        }
    ]


def test_the_end_of_a_game_is_told_to_every_player_but_the_actor():
    outcome = {"winners": [0], "reason": "line"}
    assert news(actor=1, ended=True, status="finished", to_move=None, outcome=outcome) == [
        {"user_id": 2, "event": "game_over", "data": {"outcome": outcome, **ABOUT}}
    ]
    assert [item["user_id"] for item in news(ended=True, status="finished", to_move=None)] == [1, 2]


def test_a_seat_taken_is_told_to_the_others_and_a_withdrawn_game_to_its_guests():
    joined = news(actor=2, joined=1, status="open", to_move=None)
    withdrawn = news(actor=1, cancelled=True, status="cancelled", to_move=None)
    # Kept in no inbox row, each has a key of its own that has it applied at most once.
    assert [item.pop("key") != "" for item in joined + withdrawn] == [True, True]
    assert joined == [{"user_id": 1, "event": "player_joined", "data": {"player": "bob", **ABOUT}}]
    assert withdrawn == [
        {"user_id": 2, "event": "game_withdrawn", "data": {"by": "alice", **ABOUT}}
    ]


# --- The outbox ------------------------------------------------------------------------------


def outbox() -> list[tuple[int, str]]:
    """The notifications queued for the task worker, as (user_id, event)."""
    rows = DBTaskResult.objects.filter(task_path=notifications_send.module_path)
    return [(item["user_id"], item["event"]) for row in rows for item in row.args_kwargs["args"][0]]


class Undone(Exception):
    """A failure before the commit."""


def friend_request(alice, bob, game) -> tuple[Callable[[], object], object, str]:
    return lambda: friends.friend_request_send(sender=alice, username="bob"), bob, "friend_request"


def invitation_answer(alice, bob, game) -> tuple[Callable[[], object], object, str]:
    let_anyone_invite(bob)
    invited = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)], on_decline="open_seat"
    )
    invitation = Invitation.objects.get(game=invited)
    DBTaskResult.objects.all().delete()  # the invitation's own news: not under test
    return (
        lambda: invitations.invitation_decline(invitation_id=invitation.pk, user=bob),
        alice,
        "invitation_declined",
    )


def reminder(alice, bob, game) -> tuple[Callable[[], object], object, str]:
    # Reminding is limited per pair (in the cache): the undone reminder must not count.
    return lambda: reminders.game_poke(game_id=game.pk, user=bob), alice, "reminder"


@pytest.mark.django_db  # the test's transaction is never committed: nothing after a commit runs
@pytest.mark.parametrize("made", [friend_request, invitation_answer, reminder])
def test_the_news_is_queued_in_its_changes_transaction_and_reaches_the_recipient(
    made, alice, bob, people_game, deliver_notifications
):
    """Before, the news was told after the commit: a failure then lost it (a friend request
    answered 201 whose recipient never heard of it). Now it rolls back and commits with the
    change, and the task worker tells it, to the inbox and to `ws/me/`."""
    from django.core.cache import cache

    change, recipient, event = made(alice, bob, people_game)
    inside = []
    with contextlib.suppress(Undone), transaction.atomic():
        change()
        inside = outbox()
        raise Undone
    assert inside == [(recipient.pk, event)]
    assert outbox() == []
    cache.clear()

    change()
    assert outbox() == [(recipient.pk, event)]

    async def delivered() -> dict:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(user_group(recipient.pk), channel)
        await sync_to_async(deliver_notifications)()
        return await layer.receive(channel)

    frame = async_to_sync(delivered)()
    assert frame["notification"]["event"] == event
    kept = Notification.objects.get(pk=frame["inbox"]["id"])
    assert (kept.recipient, kept.read) == (recipient, False)
    assert frame["unread_count"] == Notification.objects.filter(recipient=recipient).count()
