"""Preferences per kind and channel (greycircle.notifications.preferences): the grid, its
defaults, the migration of the old e-mail choices, and each channel respecting them."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django_tasks_db.models import DBTaskResult

from accounts.models import User
from greycircle.games.services import SeatSpec
from greycircle.notifications import mail, preferences, selectors
from greycircle.notifications.models import Notification, NotificationKind
from greycircle.notifications.services import notification_deliver
from greycircle.players.data import account_data_export
from greycircle.push import tasks as push_tasks
from greycircle.push import webpush
from greycircle.push.models import WebPushSubscription
from tests.factories import game_started
from tests.notifications.conftest import notify, verify

KIND = NotificationKind
PUSHED_BY_DEFAULT = {
    KIND.YOUR_TURN,
    KIND.INVITATION,
    KIND.FRIEND_REQUEST,
    KIND.GAME_OVER,
    KIND.REMINDER,
    KIND.TIME_RUNNING_OUT,
    KIND.MESSAGE,
    KIND.MODERATION_NOTICE,
}


def subscribe(user) -> None:
    """A browser of `user` subscribed to Web Push (its keys are never used here)."""
    WebPushSubscription.objects.create(
        user=user, endpoint=f"https://push.example/{user.pk}", p256dh="k" * 87, auth="a" * 22
    )


def pushes():
    return DBTaskResult.objects.filter(task_path=push_tasks.webpush_send.module_path)


def set_preferences(user, **values) -> None:
    User.objects.filter(pk=user.pk).update(**values)
    user.refresh_from_db()


# --- the grid and its defaults ------------------------------------------------------------------


def test_every_kind_has_a_row_kept_in_the_inbox_and_pushed_and_some_are_mailed():
    assert set(User.NOTIFICATION_CHANNELS) == set(KIND.values)
    for kind, channels in User.NOTIFICATION_CHANNELS.items():
        assert {"inbox", "push"} <= set(channels) <= {"inbox", "push", "email"}, kind
        for name in channels.values():
            assert User._meta.get_field(name).get_internal_type() == "BooleanField"
    # Mail goes exactly for the kinds with an e-mail box, each unsubscribable.
    assert set(mail.PREFERENCE_OF_KIND) == {
        kind for kind, channels in User.NOTIFICATION_CHANNELS.items() if "email" in channels
    }
    assert set(mail.PREFERENCE_OF_KIND.values()) | {"email_digest"} == set(User.EMAIL_PREFERENCES)
    assert set(User.EMAIL_PREFERENCES) == set(mail.PREFERENCE_TOPIC)


def test_the_defaults(db):
    user = User.objects.create_user("dora")
    for kind in KIND:
        assert preferences.channel_wanted(user=user, kind=kind, channel="inbox"), kind
        assert preferences.channel_wanted(user=user, kind=kind, channel="push") == (
            kind in PUSHED_BY_DEFAULT
        ), kind
    mailed = {
        kind for kind in KIND if preferences.channel_wanted(user=user, kind=kind, channel="email")
    }
    assert mailed == {
        KIND.FRIEND_REQUEST,
        KIND.INVITATION,
        KIND.GAME_OVER,
        KIND.REMINDER,
        KIND.TIME_RUNNING_OUT,
        KIND.MODERATION_NOTICE,
    }
    assert (user.push_only_away, user.email_only_away, user.email_digest) == (True, True, False)


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_each_users_e_mail_choices():
    before, after = (
        [("accounts", "0005_user_guest_deleted")],
        [("accounts", "0006_notification_preferences")],
    )
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    OldUser = executor.loader.project_state(before).apps.get_model("accounts", "User")
    OldUser.objects.create(username="quiet", email_reminder=False, email_your_turn=True)
    OldUser.objects.create(username="default")
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        # The model as of `after`: today's has columns later migrations add.
        MigratedUser = executor.loader.project_state(after).apps.get_model("accounts", "User")
        quiet = MigratedUser.objects.get(username="quiet")
        default = MigratedUser.objects.get(username="default")
        # "Time running out" was mailed by the reminders' preference: it keeps that choice.
        assert (quiet.email_reminder, quiet.email_time_running_out) == (False, False)
        assert quiet.email_your_turn is True
        assert (default.email_reminder, default.email_time_running_out) == (True, True)
        assert (quiet.push_your_turn, quiet.inbox_your_turn) == (True, True)
    finally:
        # Back to the latest schema first: today's model cannot even delete at an older one.
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
        User.objects.all().delete()


# --- the inbox ----------------------------------------------------------------------------------


def test_a_kind_kept_out_of_the_inbox_is_neither_listed_nor_counted_but_still_pushed(bob):
    set_preferences(bob, inbox_friend_request=False)
    subscribe(bob)

    delivery = notification_deliver(user_id=bob.pk, event="friend_request", data={"by": "alice"})

    kept = Notification.objects.get(recipient=bob)
    assert kept.in_inbox is False
    assert list(selectors.notifications_for(user=bob)) == []
    assert selectors.notifications_unread_count(user=bob) == 0
    # The live frame still tells of the event, with nothing for the inbox.
    assert delivery.frame()["inbox"] is None
    assert delivery.frame()["unread_count"] == 0
    assert pushes().count() == 1

    set_preferences(bob, inbox_friend_request=True)
    notification_deliver(user_id=bob.pk, event="friend_accepted", data={"by": "alice"})
    assert [n.kind for n in selectors.notifications_for(user=bob)] == [KIND.FRIEND_ACCEPTED]


def test_a_play_notification_refreshed_into_a_kind_kept_out_leaves_the_inbox_in_order(
    tictactoe, alice, bob
):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    set_preferences(bob, inbox_game_over=False)
    notification_deliver(user_id=bob.pk, event="your_turn", data={"game": game.pk, "version": 5})
    [shown] = selectors.notifications_for(user=bob)

    over = notification_deliver(
        user_id=bob.pk, event="game_over", data={"game": game.pk, "version": 6}
    )
    late = notification_deliver(
        user_id=bob.pk, event="your_turn", data={"game": game.pk, "version": 5}
    )

    assert over.frame()["inbox"] is None
    assert over.frame()["removed"] == [shown.pk]  # pages take it off their list
    assert list(selectors.notifications_for(user=bob)) == []
    # The hidden "game over" still orders the game's notifications: a late "your turn" is dropped.
    assert late.applied is False
    assert Notification.objects.get(recipient=bob).kind == KIND.GAME_OVER


# --- push ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(KIND))
def test_each_kind_is_pushed_as_its_preference_says(bob, kind):
    subscribe(bob)
    field = User.NOTIFICATION_CHANNELS[kind]["push"]
    for wanted in (True, False):
        set_preferences(bob, **{field: wanted})
        notification = notify(bob, kind)
        assert push_tasks.push_enqueue(notification=notification) is wanted
        assert (webpush.notification_pushable(notification.pk) is not None) is wanted


def test_push_while_on_the_site_only_for_those_who_ask(bob, online):
    subscribe(bob)
    online(bob)
    assert push_tasks.push_enqueue(notification=notify(bob, KIND.FRIEND_REQUEST)) is False

    set_preferences(bob, push_only_away=False)
    notification = notify(bob, KIND.FRIEND_REQUEST)
    assert push_tasks.push_enqueue(notification=notification) is True
    assert webpush.notification_pushable(notification.pk) is not None


def test_a_push_turned_off_after_it_was_queued_is_not_sent(bob):
    subscribe(bob)
    notification = notify(bob, KIND.YOUR_TURN)
    assert push_tasks.push_enqueue(notification=notification)
    set_preferences(bob, push_your_turn=False)
    assert webpush.notification_pushable(notification.pk) is None


# --- e-mail -------------------------------------------------------------------------------------


def test_no_e_mail_of_any_kind_while_on_the_site_unless_asked_for(alice, online, mailoutbox):
    verify(alice)
    online(alice)
    request = notify(alice, KIND.FRIEND_REQUEST)
    assert mail.mail_refusal(request) == "recipient online"

    set_preferences(alice, email_only_away=False)
    request.recipient = alice
    assert mail.mail_refusal(request) is None
    assert mail.notification_mail_deliver(notification_id=request.pk)
    assert len(mailoutbox) == 1


def test_time_running_out_is_mailed_by_its_own_preference(alice):
    verify(alice)
    set_preferences(alice, email_reminder=False)
    assert mail.mail_refusal(notify(alice, KIND.TIME_RUNNING_OUT)) is None
    set_preferences(alice, email_time_running_out=False)
    assert mail.mail_refusal(notify(alice, KIND.TIME_RUNNING_OUT)) == "recipient opted out"


# --- the settings page and the API --------------------------------------------------------------


def test_the_settings_grid_has_a_box_only_where_a_kind_is_sent(alice, client):
    client.force_login(alice)
    html = client.get("/settings/").content.decode()

    table = re.search(r'<table class="preferences__grid".*?</table>', html, re.S).group(0)
    assert re.findall(r'<th scope="col">([^<]*)</th>', table) == [
        "When…",
        "Inbox",
        "Push",
        "E-mail",
    ]
    rows = re.findall(r"<tr>\s*<th scope=\"row\">([^<]*)</th>(.*?)</tr>", table, re.S)
    boxes = {label: re.findall(r'name="([a-z_]+)"', cells) for label, cells in rows}
    assert boxes["Someone accepts my friend request"] == [
        "inbox_friend_accepted",
        "push_friend_accepted",
    ]
    assert boxes["It is my turn in a game with other people"] == [
        "inbox_your_turn",
        "push_your_turn",
        "email_your_turn",
    ]
    assert len(boxes) == len(KIND)
    # Each box has a label naming its row and column, for screen readers.
    assert (
        '<label class="visually-hidden" for="id_push_your_turn">'
        "It is my turn in a game with other people: Push</label>"
    ) in table
    assert 'name="push_only_away"' in html
    assert 'name="email_digest"' in html


def test_the_grid_is_saved_from_the_page(client, alice):
    client.force_login(alice)
    # A box left unticked is simply absent from the POST.
    response = client.post("/settings/", {"inbox_your_turn": "on", "email_digest": "on"})

    assert response.status_code == 302
    alice.refresh_from_db()
    assert (alice.inbox_your_turn, alice.push_your_turn, alice.email_digest) == (True, False, True)
    assert (alice.inbox_game_over, alice.push_only_away) == (False, False)


def test_the_api_reads_and_changes_each_preference(alice, client_for):
    client = client_for(alice)
    me = client.get("/api/v1/me/").json()
    assert {name: me[name] for name in User.NOTIFICATION_PREFERENCES} == {
        name: User._meta.get_field(name).get_default() for name in User.NOTIFICATION_PREFERENCES
    }

    response = client.patch(
        "/api/v1/me/", {"push_your_turn": False, "email_digest": True}, format="json"
    )

    assert response.status_code == 200
    alice.refresh_from_db()
    assert (alice.push_your_turn, alice.email_digest) == (False, True)


def test_my_data_holds_every_preference(alice):
    User.objects.filter(pk=alice.pk).update(push_your_turn=False, email_digest=True)
    alice.refresh_from_db()
    settings = account_data_export(user=alice)["settings"]
    assert {name: settings[name] for name in User.NOTIFICATION_PREFERENCES} == {
        name: getattr(alice, name) for name in User.NOTIFICATION_PREFERENCES
    }
    assert (settings["push_your_turn"], settings["email_digest"]) == (False, True)
