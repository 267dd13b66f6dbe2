"""E-mail of notifications: who gets it, what it says, and "your turn" batching.

Mail goes the real way: mail_tasks.notification_mail_enqueue queues a task in the database and the
worker (the `run_tasks` fixture) runs it; the mail is read from the locmem outbox.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import User
from greycircle.games import services
from greycircle.games.services import SeatSpec
from greycircle.notifications import mail, mail_tasks
from greycircle.notifications.models import MailSent, NotificationKind
from tests.notifications.conftest import notify, to_move, verify

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("tictactoe")]

MAILED = [
    (NotificationKind.FRIEND_REQUEST, "email_friend_request"),
    (NotificationKind.INVITATION, "email_game_invitation"),
    (NotificationKind.YOUR_TURN, "email_your_turn"),
    (NotificationKind.GAME_OVER, "email_game_over"),
    (NotificationKind.REMINDER, "email_reminder"),
    (NotificationKind.TIME_RUNNING_OUT, "email_time_running_out"),
]


def mail_for(notification, run_tasks) -> None:
    mail_tasks.notification_mail_enqueue(notification=notification)
    run_tasks()


def opt_in(user, preference: str) -> None:
    setattr(user, preference, True)
    user.save(update_fields=[preference])


@pytest.mark.parametrize(("kind", "preference"), MAILED)
def test_each_kind_opted_into_is_mailed_in_text_and_html(
    kind, preference, people_game, mailoutbox, run_tasks, settings
):
    settings.SITE_URL = "https://games.example.com"
    user = to_move(people_game)
    verify(user)
    opt_in(user, preference)
    notification = notify(user, kind, game=people_game, text="bob & co <want> you")

    mail_for(notification, run_tasks)

    assert len(mailoutbox) == 1
    message = mailoutbox[0]
    assert message.to == [user.email]
    assert message.subject == "bob & co <want> you"
    link = f"https://games.example.com/games/{people_game.pk}/"
    unsubscribe = message.extra_headers["List-Unsubscribe"].strip("<>")
    assert unsubscribe.startswith("https://games.example.com/unsubscribe/")
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert mail.unsubscribe_token_read(unsubscribe.rstrip("/").rsplit("/", 1)[1]) == (
        user.pk,
        preference,
    )
    assert "bob & co <want> you" in message.body
    assert link in message.body
    assert unsubscribe in message.body
    assert mail.PREFERENCE_TOPIC[preference] in message.body
    [(html, mimetype)] = message.alternatives
    assert mimetype == "text/html"
    assert "bob &amp; co &lt;want&gt; you" in html  # escaped in HTML
    assert f'href="{link}"' in html
    assert f'href="{unsubscribe}"' in html
    assert MailSent.objects.filter(notification=notification, recipient=user).exists()


@pytest.mark.parametrize(("kind", "preference"), MAILED)
def test_opted_out_users_get_none(kind, preference, people_game, mailoutbox, run_tasks):
    user = to_move(people_game)
    verify(user)
    setattr(user, preference, False)
    user.save(update_fields=[preference])

    mail_for(notify(user, kind, game=people_game), run_tasks)

    assert mailoutbox == []
    assert not DBTaskResult.objects.exists()  # not even queued


def test_opting_out_after_the_mail_was_queued_stops_it(people_game, alice, mailoutbox, run_tasks):
    verify(alice)
    mail_tasks.notification_mail_enqueue(notification=notify(alice, NotificationKind.GAME_OVER))
    User.objects.filter(pk=alice.pk).update(email_game_over=False)

    run_tasks()

    assert mailoutbox == []


@pytest.mark.parametrize(
    "kind", [NotificationKind.FRIEND_ACCEPTED, NotificationKind.INVITATION_ANSWERED]
)
def test_kinds_without_a_preference_are_not_mailed(kind, alice, mailoutbox, run_tasks):
    verify(alice)
    mail_for(notify(alice, kind), run_tasks)
    assert mailoutbox == []


def test_unverified_or_missing_addresses_get_none(alice, bob, carol, mailoutbox, run_tasks):
    EmailAddress.objects.create(user=alice, email=alice.email, primary=True, verified=False)
    EmailAddress.objects.create(user=bob, email="old@example.com", primary=True, verified=False)
    EmailAddress.objects.create(user=bob, email=bob.email, primary=False, verified=True)
    # carol has an `email` but no allauth address at all
    for user in (alice, bob, carol):
        mail_for(notify(user, NotificationKind.FRIEND_REQUEST), run_tasks)
    assert mailoutbox == []


def test_the_verified_primary_address_gets_it_whatever_the_user_field_says(
    alice, mailoutbox, run_tasks
):
    EmailAddress.objects.create(user=alice, email="a@example.org", primary=True, verified=True)
    User.objects.filter(pk=alice.pk).update(email="stale@example.com")
    alice.refresh_from_db()
    mail_for(notify(alice, NotificationKind.FRIEND_REQUEST), run_tasks)
    assert [message.to for message in mailoutbox] == [["a@example.org"]]


def test_inactive_users_get_none(alice, mailoutbox, run_tasks):
    verify(alice)
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    mail_for(notify(alice, NotificationKind.FRIEND_REQUEST), run_tasks)
    assert mailoutbox == []


def test_a_notification_is_mailed_once_however_often_it_is_queued(alice, mailoutbox, run_tasks):
    verify(alice)
    notification = notify(alice, NotificationKind.FRIEND_REQUEST)
    for _ in range(3):
        mail_tasks.notification_mail_enqueue(notification=notification)
    run_tasks()
    assert len(mailoutbox) == 1


def test_a_failed_send_leaves_no_record(alice, monkeypatch, mailoutbox):
    verify(alice)
    notification = notify(alice, NotificationKind.FRIEND_REQUEST)

    def fail(self, fail_silently=False):
        raise ConnectionRefusedError("smtp down")

    monkeypatch.setattr("django.core.mail.EmailMultiAlternatives.send", fail)
    with pytest.raises(ConnectionRefusedError):
        mail.notification_mail_deliver(notification_id=notification.pk)
    assert not MailSent.objects.exists()


# --- "your turn" ---------------------------------------------------------------------------------


@pytest.fixture
def turn_mail(people_game):
    """The player to move in people_game, verified and asking for "your turn" mail."""
    user = to_move(people_game)
    verify(user)
    opt_in(user, "email_your_turn")
    return user


def test_your_turn_is_off_by_default(people_game, mailoutbox, run_tasks):
    user = to_move(people_game)
    verify(user)
    mail_for(notify(user, NotificationKind.YOUR_TURN, game=people_game), run_tasks)
    assert mailoutbox == []


def test_your_turn_is_mailed_at_most_once_per_game_an_hour(
    people_game, turn_mail, alice, bob, mailoutbox, run_tasks
):
    mail_for(notify(turn_mail, NotificationKind.YOUR_TURN, game=people_game), run_tasks)
    mail_for(notify(turn_mail, NotificationKind.YOUR_TURN, game=people_game), run_tasks)
    assert len(mailoutbox) == 1

    # Both queued before either is sent: still one.
    MailSent.objects.update(sent_at=timezone.now() - timedelta(minutes=61))
    for _ in range(2):
        mail_tasks.notification_mail_enqueue(
            notification=notify(turn_mail, NotificationKind.YOUR_TURN, game=people_game)
        )
    run_tasks()
    assert len(mailoutbox) == 2

    # An hour after the last one, the next one goes.
    MailSent.objects.update(sent_at=timezone.now() - timedelta(minutes=59))
    mail_for(notify(turn_mail, NotificationKind.YOUR_TURN, game=people_game), run_tasks)
    assert len(mailoutbox) == 2
    MailSent.objects.update(sent_at=timezone.now() - timedelta(minutes=61))
    mail_for(notify(turn_mail, NotificationKind.YOUR_TURN, game=people_game), run_tasks)
    assert len(mailoutbox) == 3


def test_your_turn_in_another_game_is_not_held_back(
    people_game, turn_mail, alice, bob, mailoutbox, run_tasks, deliver_notifications
):
    from tests.factories import game_started

    other = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    deliver_notifications()
    DBTaskResult.objects.all().delete()  # whatever starting it queued is not under test
    assert to_move(other) == turn_mail == alice
    mail_for(notify(turn_mail, NotificationKind.YOUR_TURN, game=people_game), run_tasks)
    mail_for(notify(turn_mail, NotificationKind.YOUR_TURN, game=other), run_tasks)
    assert len(mailoutbox) == 2
    # The hourly limit is for "your turn" only.
    mail_for(notify(turn_mail, NotificationKind.REMINDER, game=people_game), run_tasks)
    assert len(mailoutbox) == 3


def test_your_turn_is_not_mailed_while_online(
    people_game, turn_mail, mailoutbox, run_tasks, online
):
    online(turn_mail)
    mail_for(notify(turn_mail, NotificationKind.YOUR_TURN, game=people_game), run_tasks)
    assert mailoutbox == []
    assert not DBTaskResult.objects.exists()


def test_your_turn_is_not_mailed_if_the_player_came_online_before_it_was_sent(
    people_game, turn_mail, mailoutbox, run_tasks, online
):
    mail_tasks.notification_mail_enqueue(
        notification=notify(turn_mail, NotificationKind.YOUR_TURN, game=people_game)
    )
    online(turn_mail)
    run_tasks()
    assert mailoutbox == []


def test_your_turn_is_not_mailed_once_the_turn_has_passed(
    people_game, turn_mail, mailoutbox, run_tasks
):
    mail_tasks.notification_mail_enqueue(
        notification=notify(turn_mail, NotificationKind.YOUR_TURN, game=people_game)
    )
    services.move_submit(
        game_id=people_game.pk,
        user=turn_mail,
        move={"cell": 4},
        expected_version=people_game.version,
    )
    run_tasks()
    assert mailoutbox == []


def test_your_turn_is_not_mailed_in_a_game_against_computers_only(alice, mailoutbox, run_tasks):
    verify(alice)
    opt_in(alice, "email_your_turn")
    game = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )
    assert to_move(game) == alice
    mail_for(notify(alice, NotificationKind.YOUR_TURN, game=game), run_tasks)
    assert mailoutbox == []
    # ...while game over is mailed from any game.
    mail_for(notify(alice, NotificationKind.GAME_OVER, game=game), run_tasks)
    assert len(mailoutbox) == 1


def test_links_that_are_not_paths_on_the_site_lead_home(settings):
    settings.SITE_URL = "https://games.example.com/"
    assert mail.site_url("/games/3/") == "https://games.example.com/games/3/"
    assert mail.site_url("https://elsewhere.example/") == "https://games.example.com/"
    assert mail.site_url("//elsewhere.example/") == "https://games.example.com/"


def test_a_move_mails_the_next_player_who_opted_in_end_to_end(people_game, mailoutbox, run_tasks):
    """Through the real path: a move, its events after commit, the inbox, the task queue."""
    mover = to_move(people_game)
    waiting = next(seat.user for seat in people_game.seats.all() if seat.user != mover)
    verify(waiting)
    opt_in(waiting, "email_your_turn")

    services.move_submit(
        game_id=people_game.pk, user=mover, move={"cell": 4}, expected_version=people_game.version
    )
    run_tasks()

    [message] = mailoutbox
    assert message.to == [waiting.email]
    assert f"/games/{people_game.pk}/" in message.body
    assert "your turn" in message.subject.lower()
