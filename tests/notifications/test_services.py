"""The inbox as events fill it: texts written for each recipient, no pile-up, reading.

Events go the real way: services change games and friendships, the receivers of what happened
(greycircle.notifications.receivers) queue each event in the change's transaction
(`notifications_send`), and the tests run the task with `deliver_notifications()` as the worker
would, which hands each event to notification_deliver.
"""

from __future__ import annotations

import pytest
from django.db import connection

from accounts import friends
from greycircle.games import invitations, reminders, services
from greycircle.games.models import Invitation
from greycircle.games.services import SeatSpec
from greycircle.notifications.errors import NotificationNotFound
from greycircle.notifications.models import MailSent, Notification, NotificationKind
from greycircle.notifications.selectors import notifications_for, notifications_unread_count
from greycircle.notifications.services import (
    notification_deliver,
    notification_mark_read,
    notifications_mark_all_read,
    notifications_read_for_friends,
    notifications_read_for_game,
)
from greycircle.notifications.signals import notification_kept
from tests.factories import game_started, let_anyone_invite

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("tictactoe")]

KIND = NotificationKind


def inbox(user) -> list[tuple[str, str]]:
    """`user`'s notifications as (kind, text), newest first."""
    return list(
        Notification.objects.filter(recipient=user)
        .order_by("-created", "-pk")
        .values_list("kind", "text")
    )


def play(game, user, cell: int):
    game.refresh_from_db()
    return services.move_submit(
        game_id=game.pk, user=user, move={"cell": cell}, expected_version=game.version
    )


def played(game, moves) -> None:
    """Play `moves`, (user, cell) pairs, in turn."""
    for user, cell in moves:
        play(game, user, cell)


@pytest.fixture
def people_game(alice, bob, deliver_notifications):
    """alice (X, to move) against bob, in play, their inboxes empty."""
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    deliver_notifications()
    Notification.objects.all().delete()
    return game


# --- Friends ---------------------------------------------------------------------------------


def test_a_friend_request_and_its_acceptance_reach_each_side(alice, bob, deliver_notifications):
    sent = friends.friend_request_send(sender=alice, username="bob")
    deliver_notifications()

    [request] = Notification.objects.filter(recipient=bob)
    assert (request.kind, request.text, request.link) == (
        KIND.FRIEND_REQUEST,
        "alice wants to be your friend",
        "/friends/",
    )
    assert request.game is None
    assert not request.read
    assert notifications_unread_count(user=bob) == 1

    friends.friend_request_accept(user=bob, request_id=sent.request.pk)
    deliver_notifications()
    assert inbox(alice) == [(KIND.FRIEND_ACCEPTED, "bob accepted your friend request")]


def test_opening_the_friends_page_reads_friend_notifications_only(
    alice, bob, people_game, deliver_notifications
):
    friends.friend_request_send(sender=alice, username="bob")
    play(people_game, alice, 4)  # bob's turn: a notification about the game
    deliver_notifications()
    assert notifications_unread_count(user=bob) == 2

    assert notifications_read_for_friends(user=bob) == 1
    assert list(Notification.objects.filter(recipient=bob, read=False).values_list("kind")) == [
        (KIND.YOUR_TURN,)
    ]


# --- Invitations -----------------------------------------------------------------------------


def invite(creator, *invitees, **options):
    let_anyone_invite(*invitees)
    return services.game_create(
        creator=creator,
        kind="tictactoe",
        opponents=[SeatSpec(user=user) for user in invitees],
        **options,
    )


def test_an_invitation_and_its_answer(alice, bob, deliver_notifications):
    game = invite(alice, bob)
    deliver_notifications()

    [invitation] = Notification.objects.filter(recipient=bob)
    assert invitation.kind == KIND.INVITATION
    assert invitation.text == "alice invites you to play Tic-tac-toe"
    assert invitation.link == f"/games/{game.pk}/"
    assert invitation.game_id == game.pk

    invitations.invitation_accept(invitation_id=Invitation.objects.get(game=game).pk, user=bob)
    deliver_notifications()
    assert set(inbox(alice)) == {
        (KIND.INVITATION_ANSWERED, "bob accepted your invitation to play Tic-tac-toe"),
        (KIND.YOUR_TURN, "It is your turn in Tic-tac-toe against bob"),
    }


def test_a_declined_invitation_is_reported_to_the_inviter(alice, bob, deliver_notifications):
    game = invite(alice, bob)
    invitations.invitation_decline(invitation_id=Invitation.objects.get(game=game).pk, user=bob)
    deliver_notifications()
    assert (KIND.INVITATION_ANSWERED, "bob declined your invitation to play Tic-tac-toe") in inbox(
        alice
    )


def test_a_withdrawn_game_leaves_its_invitation_read_and_adds_nothing(
    alice, bob, deliver_notifications
):
    game = invite(alice, bob)
    deliver_notifications()
    assert notifications_unread_count(user=bob) == 1

    services.game_cancel(game_id=game.pk, user=alice)
    deliver_notifications()

    assert inbox(bob) == [(KIND.INVITATION, "alice invites you to play Tic-tac-toe")]
    assert notifications_unread_count(user=bob) == 0


# --- Turns -----------------------------------------------------------------------------------


def test_your_turn_does_not_pile_up(alice, bob, people_game, deliver_notifications):
    played(people_game, [(alice, 0), (bob, 1), (alice, 2), (bob, 4)])
    deliver_notifications()

    for user, other in ((alice, "bob"), (bob, "alice")):
        turns = Notification.objects.filter(recipient=user, kind=KIND.YOUR_TURN)
        assert [turn.text for turn in turns] == [f"It is your turn in Tic-tac-toe against {other}"]
    assert notifications_unread_count(user=alice) == 1


def test_a_new_turn_replaces_a_read_one_too(alice, bob, people_game, deliver_notifications):
    play(people_game, alice, 0)
    deliver_notifications()
    assert notifications_mark_all_read(user=bob) == 1
    play(people_game, bob, 1)
    play(people_game, alice, 2)
    deliver_notifications()

    [turn] = Notification.objects.filter(recipient=bob, kind=KIND.YOUR_TURN)
    assert not turn.read


def test_a_reminder_replaces_the_your_turn_of_that_game(
    alice, bob, people_game, deliver_notifications
):
    play(people_game, alice, 0)
    deliver_notifications()
    assert inbox(bob) == [(KIND.YOUR_TURN, "It is your turn in Tic-tac-toe against alice")]
    reminders.game_poke(game_id=people_game.pk, user=alice)
    deliver_notifications()

    assert inbox(bob) == [(KIND.REMINDER, "alice reminds you it is your turn in Tic-tac-toe")]


def test_time_running_out_is_written_for_the_player_to_move(alice, bob, people_game):
    delivery = notification_deliver(
        user_id=alice.pk, event="time_running_out", data={"game": people_game.pk}
    )
    assert delivery.notification.kind == KIND.TIME_RUNNING_OUT
    assert delivery.notification.text == "Your time to move in Tic-tac-toe against bob is nearly up"


# --- Game over -------------------------------------------------------------------------------

X_WINS = [(0, 3), (1, 4), (2, None)]
# X: 0 8 7 2 3 / O: 4 1 6 5 — nobody makes a line.
TIE = [(0, 4), (8, 1), (7, 6), (2, 5), (3, None)]


def play_out(game, x, o, pairs) -> None:
    for x_cell, o_cell in pairs:
        play(game, x, x_cell)
        if o_cell is not None:
            play(game, o, o_cell)


def test_the_winner_and_the_loser_are_each_told_their_result(
    alice, bob, people_game, deliver_notifications
):
    play_out(people_game, alice, bob, X_WINS)
    deliver_notifications()

    assert inbox(alice)[0] == (KIND.GAME_OVER, "You won against bob at Tic-tac-toe")
    assert inbox(bob)[0] == (KIND.GAME_OVER, "You lost to alice at Tic-tac-toe")
    # The game is over: no turn is left waiting.
    assert not Notification.objects.filter(kind=KIND.YOUR_TURN).exists()


def test_a_tie_is_a_tie_for_both(alice, bob, people_game, deliver_notifications):
    play_out(people_game, alice, bob, TIE)
    deliver_notifications()

    assert inbox(alice)[0] == (KIND.GAME_OVER, "Tied with bob at Tic-tac-toe")
    assert inbox(bob)[0] == (KIND.GAME_OVER, "Tied with alice at Tic-tac-toe")


def test_a_resignation_tells_the_winner_why(alice, bob, people_game, deliver_notifications):
    # (bob, who resigned, is told nothing when he resigns himself: test_actors.py.)
    services.game_resign(game_id=people_game.pk, user=bob)
    deliver_notifications()

    assert inbox(alice)[0] == (KIND.GAME_OVER, "You won against bob at Tic-tac-toe: bob resigned")


def test_an_aborted_game_is_stopped_for_everyone(alice, bob, people_game, deliver_notifications):
    services.game_abort(game_id=people_game.pk)
    deliver_notifications()
    for user, other in ((alice, "bob"), (bob, "alice")):
        assert inbox(user)[0] == (
            KIND.GAME_OVER,
            f"Your game of Tic-tac-toe against {other} was stopped by the staff",
        )


def test_games_against_a_computer_keep_no_turns_or_results(alice, deliver_notifications):
    game = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )
    play(game, alice, 4)
    services.game_resign(game_id=game.pk, user=alice)
    deliver_notifications()

    assert not notifications_for(user=alice).exists()
    assert notifications_unread_count(user=alice) == 0


# --- Games against a computer: no channel, still in order and at most once --------------------


@pytest.fixture
def computer_game(alice):
    """alice (X, to move) against a computer; she has a browser to push to and asks for the
    e-mail of her turns and results: none is sent for such a game all the same."""
    from allauth.account.models import EmailAddress

    from greycircle.push.models import WebPushSubscription

    WebPushSubscription.objects.create(
        user=alice, endpoint="https://push.example.com/push/alice", p256dh="x", auth="y"
    )
    EmailAddress.objects.create(user=alice, email=alice.email, primary=True, verified=True)
    alice.email_your_turn = alice.email_game_over = True
    alice.save(update_fields=["email_your_turn", "email_game_over"])
    return services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )


def told(user, game, event: str, version: int) -> bool:
    """Deliver `event` about `version` of `game` to `user` as the worker does; whether their
    `ws/me/` stream is told it."""
    from greycircle.notifications.delivery import notification_message

    data = {"game": game.pk, "kind": game.kind, "version": version}
    message = notification_message(user_id=user.pk, event=event, data=data)
    if message is not None:
        assert message[1]["inbox"] is None  # no toast, no badge
    return message is not None


def pushed_or_mailed() -> list[str]:
    from django_tasks_db.models import DBTaskResult

    from greycircle.notifications.mail_tasks import notification_mail_send
    from greycircle.push.tasks import app_push_send, webpush_send

    paths = [task.module_path for task in (notification_mail_send, webpush_send, app_push_send)]
    return list(
        DBTaskResult.objects.filter(task_path__in=paths).values_list("task_path", flat=True)
    )


def test_a_computer_games_event_delivered_twice_is_told_once_and_sent_nowhere(alice, computer_game):
    """Issue 21's audit: a task that lost its connection after telling a "your turn" ran again
    and told it a second time (no inbox row to compare with)."""
    assert told(alice, computer_game, "your_turn", 5)
    assert not told(alice, computer_game, "your_turn", 5)
    assert told(alice, computer_game, "game_over", 6)
    assert not told(alice, computer_game, "game_over", 6)

    assert pushed_or_mailed() == []
    assert not notifications_for(user=alice).exists()
    assert notifications_unread_count(user=alice) == 0


def test_a_computer_games_older_event_after_a_newer_one_is_told_to_nobody(alice, computer_game):
    assert told(alice, computer_game, "your_turn", 7)
    assert not told(alice, computer_game, "your_turn", 5)
    assert not told(alice, computer_game, "your_turn", 7)
    assert told(alice, computer_game, "your_turn", 9)


# --- Events the inbox does not keep ----------------------------------------------------------


@pytest.mark.parametrize("event", ["player_joined", "win_claimable", "seat_taken_over", "bogus"])
def test_other_events_are_not_kept(alice, people_game, event):
    delivery = notification_deliver(
        user_id=alice.pk, event=event, data={"game": people_game.pk, "player": "bob"}
    )
    assert delivery.notification is None
    assert delivery.frame() == {"inbox": None, "removed": [], "read": [], "unread_count": 0}
    assert not Notification.objects.exists()


def test_the_frame_carries_the_notification_and_the_count(alice, bob, people_game):
    first = notification_deliver(user_id=bob.pk, event="your_turn", data={"game": people_game.pk})
    second = notification_deliver(user_id=bob.pk, event="your_turn", data={"game": people_game.pk})

    frame = second.frame()
    assert second.notification.pk == first.notification.pk  # refreshed, not added
    assert frame["inbox"] == {
        "id": first.notification.pk,
        "kind": "your_turn",
        "text": "It is your turn in Tic-tac-toe against alice",
        "link": f"/games/{people_game.pk}/",
        "game": people_game.pk,
        "read": False,
        "created": frame["inbox"]["created"],
    }
    assert frame["removed"] == []
    assert frame["unread_count"] == 1


def test_a_refreshed_notification_is_new_for_e_mail_too(alice, bob, people_game):
    turn = notification_deliver(user_id=bob.pk, event="your_turn", data={"game": people_game.pk})
    mailed = MailSent.objects.create(
        recipient=bob, kind=KIND.YOUR_TURN, game=people_game, notification=turn.notification
    )
    Notification.objects.filter(pk=turn.notification.pk).update(read=True)

    again = notification_deliver(user_id=bob.pk, event="your_turn", data={"game": people_game.pk})

    assert again.notification.pk == turn.notification.pk
    assert not again.notification.read
    assert again.notification.created > turn.notification.created
    mailed.refresh_from_db()
    assert mailed.notification is None  # so its mail may be sent (the hourly limit still holds)


def test_one_notification_per_game_is_kept_even_if_there_were_more(alice, bob, people_game):
    older = [
        Notification.objects.create(
            recipient=bob, kind=kind, text="old", link="/", game=people_game
        )
        for kind in (KIND.YOUR_TURN, KIND.REMINDER)
    ]
    delivery = notification_deliver(
        user_id=bob.pk, event="reminder", data={"game": people_game.pk, "by": "alice"}
    )
    assert delivery.notification.pk == older[1].pk
    assert delivery.removed == [older[0].pk]
    assert inbox(bob) == [(KIND.REMINDER, "alice reminds you it is your turn in Tic-tac-toe")]


# --- Reading ---------------------------------------------------------------------------------


def test_marking_read_one_all_and_by_game(alice, bob, people_game, deliver_notifications):
    other = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    friends.friend_request_send(sender=alice, username="bob")
    play(people_game, alice, 0)
    play(other, alice, 0)
    deliver_notifications()
    assert notifications_unread_count(user=bob) == 4  # invitation, request, two turns

    request = Notification.objects.get(recipient=bob, kind=KIND.FRIEND_REQUEST)
    assert notification_mark_read(user=bob, notification_id=request.pk).read
    assert notifications_unread_count(user=bob) == 3

    assert notifications_read_for_game(user=bob, game_id=people_game.pk) == 1
    assert notifications_read_for_game(user=bob, game_id=people_game.pk) == 0
    assert notifications_unread_count(user=bob) == 2

    assert notifications_mark_all_read(user=bob) == 2
    assert notifications_unread_count(user=bob) == 0


def test_nobody_reads_anothers_notifications(alice, bob, deliver_notifications):
    friends.friend_request_send(sender=alice, username="bob")
    deliver_notifications()
    request = Notification.objects.get(recipient=bob)

    with pytest.raises(NotificationNotFound):
        notification_mark_read(user=alice, notification_id=request.pk)
    assert notifications_mark_all_read(user=alice) == 0
    request.refresh_from_db()
    assert not request.read


def test_each_notification_kept_is_told_to_the_channels_beyond_the_inbox(bob, people_game):
    """Web Push and app push hear of every notification kept, new or refreshed (news again),
    inside the transaction that keeps it (`signals.notification_kept`)."""
    kept = []

    def heard(sender, notification, **kwargs):
        kept.append((notification.pk, notification.recipient_id, connection.in_atomic_block))

    notification_kept.connect(heard)
    try:
        data = {"game": people_game.pk}
        first = notification_deliver(user_id=bob.pk, event="your_turn", data=data)
        again = notification_deliver(user_id=bob.pk, event="your_turn", data=data)
        notification_deliver(user_id=bob.pk, event="joined", data=data)  # not for the inbox
    finally:
        notification_kept.disconnect(heard)
    assert first.notification.pk == again.notification.pk  # refreshed, one per game
    assert kept == [(first.notification.pk, bob.pk, True)] * 2


# --- Version order, at most once ---------------------------------------------------------------


def _notification_rows():
    from django_tasks_db.models import DBTaskResult

    from greycircle.notifications.tasks import notifications_send

    return DBTaskResult.objects.ready().filter(task_path=notifications_send.module_path)


def test_an_older_your_turn_delivered_after_game_over_leaves_game_over(alice, bob, people_game):
    """Two workers ran one game's notifications at once (issue 21): the task of the move before
    the last one ("your turn" for alice) ends after that of the winning move ("game over")."""
    from greycircle.notifications.tasks import notifications_send

    play_out(people_game, alice, bob, X_WINS)
    rows = list(_notification_rows().order_by("-enqueued_at", "-pk"))
    for row in rows:  # newest first
        notifications_send.call(*row.args_kwargs["args"])

    assert inbox(alice) == [(KIND.GAME_OVER, "You won against bob at Tic-tac-toe")]
    assert inbox(bob) == [(KIND.GAME_OVER, "You lost to alice at Tic-tac-toe")]
    over = Notification.objects.get(recipient=alice)
    people_game.refresh_from_db()
    assert over.game_version == people_game.version


def test_the_same_event_delivered_twice_changes_nothing_the_second_time(alice, bob, people_game):
    play(people_game, alice, 0)
    people_game.refresh_from_db()
    data = {"game": people_game.pk, "kind": "tictactoe", "version": people_game.version}
    kept = []

    def heard(sender, notification, **kwargs):
        kept.append(notification.pk)

    notification_kept.connect(heard)
    try:
        first = notification_deliver(user_id=bob.pk, event="your_turn", data=data)
        notification_mark_read(user=bob, notification_id=first.notification.pk)
        again = notification_deliver(user_id=bob.pk, event="your_turn", data=data)
    finally:
        notification_kept.disconnect(heard)

    assert first.applied
    assert not again.applied
    assert kept == [first.notification.pk]  # pushed and mailed once
    [turn] = Notification.objects.filter(recipient=bob)
    assert turn.read  # not made new again


def test_an_older_event_is_told_to_nobody(alice, bob, people_game):
    """The stale "your turn" leaves no frame on `ws/me/` either: no toast on a finished game.
    (What alice's stream receives next is the event sent after it.)"""
    from asgiref.sync import async_to_sync, sync_to_async
    from channels.layers import get_channel_layer

    from greycircle.games.events import user_group
    from greycircle.notifications import delivery

    play_out(people_game, alice, bob, X_WINS)
    people_game.refresh_from_db()
    about = {"game": people_game.pk, "kind": "tictactoe"}
    stale = {"version": people_game.version - 2, **about}
    over = {"outcome": people_game.outcome, "version": people_game.version, **about}

    async def listen() -> list[str]:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(user_group(alice.pk), channel)
        for event, data in (("game_over", over), ("your_turn", stale), ("player_joined", about)):
            news = [{"user_id": alice.pk, "event": event, "data": data}]
            await sync_to_async(delivery.notifications_publish)(news=news)
        return [(await layer.receive(channel))["notification"]["event"] for _ in range(2)]

    told = async_to_sync(listen)()
    assert told == ["game_over", "player_joined"]
    assert inbox(alice)[0][0] == KIND.GAME_OVER


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL; CI has it")
def test_two_deliveries_to_one_recipient_about_one_game_take_turns(alice, bob, people_game):
    """While one worker keeps alice's "game over" (its transaction still open), another's older
    "your turn" waits for it, then finds it newer and changes nothing (without the lock, it
    would not see the uncommitted row and would add a second notification)."""
    import threading

    from django.db import connections, transaction

    from greycircle.notifications.tasks import notifications_send
    from tests.games.conftest import wait_for

    play_out(people_game, alice, bob, X_WINS)
    older, newer = (
        row.args_kwargs["args"] for row in _notification_rows().order_by("-enqueued_at")[:2][::-1]
    )
    holding, release = threading.Event(), threading.Event()

    def deliver_newer() -> None:
        with transaction.atomic():
            notifications_send.call(*newer)
            holding.set()
            release.wait()
        connections.close_all()

    def deliver_older() -> None:
        notifications_send.call(*older)
        connections.close_all()

    first = threading.Thread(target=deliver_newer)
    first.start()
    assert holding.wait(30)
    second = threading.Thread(target=deliver_older)
    second.start()
    with connection.cursor() as cursor:

        def waiting() -> bool:
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            )
            return cursor.fetchone()[0] > 0

        wait_for(waiting, timeout=60, message=lambda: "no delivery waits for the lock")
    release.set()
    first.join(30)
    second.join(30)

    assert inbox(alice) == [(KIND.GAME_OVER, "You won against bob at Tic-tac-toe")]
