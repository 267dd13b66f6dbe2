"""The user admin, end to end on the real database through Django's test client."""

from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.messages import get_messages
from django.test import Client
from django.utils import timezone

from accounts.models import User
from greycircle.games.services import SeatSpec, game_resign
from greycircle.moderation.models import ModerationAction
from tests.factories import PASSWORD, UserFactory, game_started

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/accounts/user/"


def change_url(user):
    return f"/admin/accounts/user/{user.pk}/change/"


@pytest.fixture
def staff():
    return UserFactory(username="staffer", is_staff=True, is_superuser=True)


@pytest.fixture
def admin_client(staff):
    client = Client()
    client.force_login(staff)
    return client


def listed_usernames(response):
    return [user.username for user in response.context["cl"].result_list]


def message_texts(response):
    return [str(message) for message in get_messages(response.wsgi_request)]


def run_action(client, action, users, **extra):
    return client.post(
        CHANGELIST,
        {"action": action, "_selected_action": [user.pk for user in users], **extra},
        follow=True,
    )


REASON = "Abusive messages in game chat, reported twice."


def moderate(client, action, users, reason=REASON):
    """`action` on `users`, confirmed on its page with `reason`."""
    return run_action(client, action, users, confirm_moderation="yes", reason=reason)


# --- who may enter ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/admin/", CHANGELIST])
def test_anonymous_visitors_are_sent_to_the_admin_login(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/?next=")


@pytest.mark.parametrize("path", ["/admin/", CHANGELIST])
def test_players_who_are_not_staff_are_sent_to_the_admin_login(alice, path):
    client = Client()
    client.force_login(alice)
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/?next=")


def test_players_cannot_sign_in_to_the_admin(alice):
    response = Client().post(
        "/admin/login/?next=/admin/", {"username": "alice", "password": PASSWORD}
    )
    assert response.status_code == 200  # the form again, with an error
    assert "_auth_user_id" not in response.wsgi_request.session


def test_staff_reach_the_admin(admin_client):
    response = admin_client.get("/admin/")
    assert response.status_code == 200
    assert b"/admin/accounts/user/" in response.content
    assert b"/admin/games/game/" in response.content


# --- the list -----------------------------------------------------------------------------------


def test_changelist_shows_the_columns(admin_client, alice, bob, tictactoe):
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])

    response = admin_client.get(CHANGELIST)

    assert response.status_code == 200
    content = response.content.decode()
    for header in ["Username", "Email address", "Active", "Staff status", "Date joined"]:
        assert header in content
    assert "Last login" in content
    assert "column-game_count" in content
    counts = {user.username: user.game_count for user in response.context["cl"].result_list}
    assert counts == {"alice": 2, "bob": 1, "staffer": 0}


def test_changelist_sorts_by_number_of_games(admin_client, alice, bob, tictactoe):
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])
    column = list(admin_client.get(CHANGELIST).context["cl"].list_display).index("game_count")

    response = admin_client.get(CHANGELIST, {"o": f"-{column}"})

    assert listed_usernames(response) == ["alice", "bob", "staffer"]


def test_search_by_username_and_by_email(admin_client, alice, bob):
    UserFactory(username="dora", email="dora@elsewhere.org")

    assert listed_usernames(admin_client.get(CHANGELIST, {"q": "ali"})) == ["alice"]
    assert listed_usernames(admin_client.get(CHANGELIST, {"q": "elsewhere.org"})) == ["dora"]
    assert listed_usernames(admin_client.get(CHANGELIST, {"q": "nobody-like-this"})) == []


def test_filter_by_active_and_staff(admin_client, alice, bob):
    User.objects.filter(pk=bob.pk).update(is_active=False)

    inactive = admin_client.get(CHANGELIST, {"is_active__exact": "0"})
    assert listed_usernames(inactive) == ["bob"]
    active = admin_client.get(CHANGELIST, {"is_active__exact": "1"})
    assert listed_usernames(active) == ["alice", "staffer"]
    staff = admin_client.get(CHANGELIST, {"is_staff__exact": "1"})
    assert listed_usernames(staff) == ["staffer"]


def test_filter_by_date_joined(admin_client, alice, bob):
    User.objects.filter(pk=bob.pk).update(date_joined=timezone.now() - timedelta(days=400))
    [date_filter] = [
        spec
        for spec in admin_client.get(CHANGELIST).context["cl"].filter_specs
        if spec.field_path == "date_joined"
    ]
    choices = {
        str(choice["display"]): choice["query_string"]
        for choice in date_filter.choices(admin_client.get(CHANGELIST).context["cl"])
    }

    response = admin_client.get(CHANGELIST + choices["Past 7 days"])

    assert listed_usernames(response) == ["alice", "staffer"]


# --- deactivating and reactivating --------------------------------------------------------------


def test_deactivate_selected_users(admin_client, alice, bob, carol):
    response = moderate(admin_client, "deactivate_users", [alice, bob])

    assert response.status_code == 200
    assert message_texts(response) == ["Deactivated 2 users."]
    assert set(User.objects.filter(is_active=False).values_list("username", flat=True)) == {
        "alice",
        "bob",
    }
    carol.refresh_from_db()
    assert carol.is_active
    assert LogEntry.objects.filter(object_id=str(alice.pk), change_message="Deactivated.").exists()


def test_deactivated_users_lose_their_session(admin_client, alice, client_for):
    player = client_for(alice)
    assert player.get("/api/v1/me/").status_code == 200

    moderate(admin_client, "deactivate_users", [alice])

    assert player.get("/api/v1/me/").status_code in (401, 403)


def test_reactivate_selected_users(admin_client, alice, bob):
    User.objects.filter(pk__in=[alice.pk, bob.pk]).update(is_active=False)

    response = moderate(admin_client, "reactivate_users", [alice])

    assert message_texts(response) == ["Reactivated 1 user."]
    alice.refresh_from_db()
    bob.refresh_from_db()
    assert alice.is_active
    assert not bob.is_active


def test_the_count_is_of_users_actually_changed(admin_client, alice, bob):
    User.objects.filter(pk=bob.pk).update(is_active=False)

    response = moderate(admin_client, "deactivate_users", [alice, bob])

    assert message_texts(response) == ["Deactivated 1 user."]


def test_deactivating_yourself_is_refused(admin_client, staff, alice):
    response = moderate(admin_client, "deactivate_users", [staff, alice])

    assert message_texts(response) == [
        "You cannot deactivate your own account. Nothing was changed."
    ]
    staff.refresh_from_db()
    alice.refresh_from_db()
    assert staff.is_active
    assert alice.is_active
    assert admin_client.get("/admin/").status_code == 200


# --- one user's page ----------------------------------------------------------------------------


def test_user_page_shows_settings_and_email_preferences(admin_client, alice):
    User.objects.filter(pk=alice.pk).update(show_helpers=False, email_your_turn=True)

    response = admin_client.get(change_url(alice))

    assert response.status_code == 200
    content = response.content.decode()
    assert "Settings" in content
    assert "E-mail preferences" in content
    form = response.context["adminform"].form
    for field in ["show_helpers", *User.EMAIL_PREFERENCES]:
        assert field in form.fields
    assert form.initial["show_helpers"] is False
    assert form.initial["email_your_turn"] is True


def test_staff_can_change_a_users_settings(admin_client, alice):
    data = {
        "username": "alice",
        "email": alice.email,
        "is_active": "on",
        "show_helpers": "on",
        "email_friend_request": "on",
        "email_game_invitation": "on",
        "email_reminder": "on",
        # Unticked boxes are simply absent: email_your_turn and email_game_over.
        "moderation_reason": "She asked us by e-mail to stop the game-over mails.",
    }

    response = admin_client.post(change_url(alice), data)

    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.email_friend_request
    assert not alice.email_game_over
    assert not alice.email_your_turn
    assert alice.show_helpers
    [entry] = ModerationAction.objects.all()
    assert (entry.user, entry.action, entry.reason) == (
        alice,
        "user_change",
        "She asked us by e-mail to stop the game-over mails.",
    )
    assert entry.description == "Changed alice: e-mail when a game ends."


def test_user_page_lists_their_games(admin_client, alice, bob, carol, tictactoe):
    first = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    second = game_started(creator=carol, kind="tictactoe", opponents=[SeatSpec(user=alice)])
    game_resign(game_id=second.pk, user=carol)
    others = game_started(creator=bob, kind="tictactoe", opponents=[SeatSpec(user=carol)])

    response = admin_client.get(change_url(alice))

    content = response.content.decode()
    assert f'href="/admin/games/game/{first.pk}/change/">Game #{first.pk}</a>' in content
    assert f'href="/admin/games/game/{second.pk}/change/">Game #{second.pk}</a>' in content
    assert f"Game #{others.pk}<" not in content
    assert "<td>In play</td>" in content
    assert "<td>Finished</td>" in content
    assert "<td>tictactoe</td>" in content
    # Seat indices: alice is seat 0 of the first game and seat 1 of the second.
    assert "<tr><td>1</td><td>" in content
    assert "<tr><td>0</td><td>" in content
    assert f'href="/admin/games/game/?player={alice.pk}"' in content
    assert "Showing the latest 2 of 2 games." in content


def test_user_page_without_games(admin_client, alice):
    response = admin_client.get(change_url(alice))

    assert "No games yet." in response.content.decode()


# --- deleting -----------------------------------------------------------------------------------


def test_a_user_without_games_can_be_deleted(admin_client, alice):
    page = admin_client.get(change_url(alice))
    assert f"/admin/accounts/user/{alice.pk}/delete/" in page.content.decode()

    response = admin_client.post(
        f"/admin/accounts/user/{alice.pk}/delete/", {"post": "yes", "reason": REASON}
    )

    assert response.status_code == 302
    assert not User.objects.filter(pk=alice.pk).exists()


def test_a_user_who_has_played_cannot_be_deleted(admin_client, alice, bob, tictactoe):
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    page = admin_client.get(change_url(alice))
    assert f"/admin/accounts/user/{alice.pk}/delete/" not in page.content.decode()
    assert "Deactivate them instead" in page.content.decode()

    response = admin_client.post(
        f"/admin/accounts/user/{alice.pk}/delete/", {"post": "yes", "reason": REASON}
    )
    assert response.status_code == 403
    assert User.objects.filter(pk=alice.pk).exists()


def test_bulk_delete_refuses_players_and_says_to_deactivate(admin_client, alice, bob, tictactoe):
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])

    response = run_action(admin_client, "delete_selected", [alice, bob], post="yes", reason=REASON)

    [message] = message_texts(response)
    assert message.startswith("Not deleted: alice has played.")
    assert "Deactivate them instead" in message
    assert User.objects.filter(pk__in=[alice.pk, bob.pk]).count() == 2


def test_bulk_delete_still_deletes_users_without_games(admin_client, alice, bob):
    confirm = run_action(admin_client, "delete_selected", [alice, bob])
    assert "Are you sure" in confirm.content.decode()

    run_action(admin_client, "delete_selected", [alice, bob], post="yes", reason=REASON)

    assert not User.objects.filter(pk__in=[alice.pk, bob.pk]).exists()


# --- moderation: every action on a user asks why and is recorded --------------------------------


def user_form_data(user, **changes):
    """The user's page as posted unchanged, with `changes` (None: a box left unticked)."""
    data = {
        "username": user.username,
        "email": user.email,
        "is_active": "on" if user.is_active else None,
        "show_helpers": "on" if user.show_helpers else None,
        **{name: "on" if getattr(user, name) else None for name in User.EMAIL_PREFERENCES},
        **changes,
    }
    return {name: value for name, value in data.items() if value is not None}


def entries():
    return list(ModerationAction.objects.order_by("pk"))


@pytest.mark.parametrize("action", ["deactivate_users", "reactivate_users"])
def test_an_action_asks_why_first_and_changes_nothing(admin_client, alice, bob, action):
    User.objects.filter(pk=bob.pk).update(is_active=False)

    response = run_action(admin_client, action, [alice, bob])

    assert response.status_code == 200
    content = response.content.decode()
    assert '<textarea name="reason"' in content
    assert f'name="action" value="{action}"' in content
    assert f'name="_selected_action" value="{alice.pk}"' in content
    assert "<li>alice" in content
    assert "<li>bob" in content
    assert message_texts(response) == []
    assert set(User.objects.values_list("username", "is_active")) == {
        ("alice", True),
        ("bob", False),
        ("staffer", True),
    }
    assert entries() == []


@pytest.mark.parametrize("action", ["deactivate_users", "reactivate_users"])
@pytest.mark.parametrize("reason", ["", "  \n "])
def test_an_action_without_a_reason_is_refused(admin_client, alice, bob, action, reason):
    User.objects.filter(pk=bob.pk).update(is_active=False)

    response = moderate(admin_client, action, [alice, bob], reason=reason)

    assert response.status_code == 200
    assert "Say why: a reason is required" in response.content.decode()
    assert message_texts(response) == []
    assert set(User.objects.values_list("username", "is_active")) == {
        ("alice", True),
        ("bob", False),
        ("staffer", True),
    }
    assert entries() == []
    assert not LogEntry.objects.exists()


def test_deactivating_records_who_what_when_and_why_for_each_user_changed(
    admin_client, staff, alice, bob, carol
):
    User.objects.filter(pk=carol.pk).update(is_active=False)
    before = timezone.now()

    moderate(admin_client, "deactivate_users", [alice, bob, carol], reason="  Spam accounts.  ")

    assert [(e.actor, e.action, e.user, e.game, e.reason, e.description) for e in entries()] == [
        (staff, "user_deactivate", alice, None, "Spam accounts.", "Deactivated alice."),
        (staff, "user_deactivate", bob, None, "Spam accounts.", "Deactivated bob."),
    ]  # carol was inactive already: nothing done, nothing recorded
    assert all(before <= entry.created <= timezone.now() for entry in entries())


def test_reactivating_records_it(admin_client, staff, alice):
    User.objects.filter(pk=alice.pk).update(is_active=False)

    moderate(admin_client, "reactivate_users", [alice], reason="Appeal accepted.")

    [entry] = entries()
    assert (entry.actor, entry.action, entry.user, entry.reason) == (
        staff,
        "user_reactivate",
        alice,
        "Appeal accepted.",
    )
    assert entry.description == "Reactivated alice."


def test_deactivating_yourself_records_nothing(admin_client, staff, alice):
    moderate(admin_client, "deactivate_users", [staff, alice])

    assert entries() == []


def test_unticking_active_on_the_user_page_needs_a_reason(admin_client, alice):
    response = admin_client.post(change_url(alice), user_form_data(alice, is_active=None))

    assert response.status_code == 200
    assert "Say why: a reason is required" in response.content.decode()
    alice.refresh_from_db()
    assert alice.is_active
    assert entries() == []


def test_unticking_active_with_a_reason_deactivates_and_records_it(admin_client, staff, alice):
    data = user_form_data(
        alice, is_active=None, email="new@example.com", moderation_reason="Ban evasion."
    )

    response = admin_client.post(change_url(alice), data)

    assert response.status_code == 302
    alice.refresh_from_db()
    assert not alice.is_active
    [entry] = entries()
    assert (entry.actor, entry.action, entry.user, entry.reason) == (
        staff,
        "user_deactivate",
        alice,
        "Ban evasion.",
    )
    assert entry.description == "Deactivated alice; also changed: email address."


def test_ticking_active_with_a_reason_reactivates_and_records_it(admin_client, alice):
    User.objects.filter(pk=alice.pk).update(is_active=False)
    alice.refresh_from_db()

    data = user_form_data(alice, is_active="on", moderation_reason="Appeal accepted.")
    admin_client.post(change_url(alice), data)

    alice.refresh_from_db()
    assert alice.is_active
    assert [(e.action, e.reason) for e in entries()] == [("user_reactivate", "Appeal accepted.")]


def test_any_change_on_the_user_page_needs_a_reason(admin_client, alice):
    response = admin_client.post(change_url(alice), user_form_data(alice, username="alicia"))

    assert response.status_code == 200
    alice.refresh_from_db()
    assert alice.username == "alice"
    assert entries() == []

    data = user_form_data(alice, username="alicia", moderation_reason="Offensive username.")
    assert admin_client.post(change_url(alice), data).status_code == 302

    alice.refresh_from_db()
    assert alice.username == "alicia"
    [entry] = entries()
    assert (entry.action, entry.description) == (
        "user_change",
        "Changed alice: username (now alicia).",
    )


def test_saving_the_user_page_unchanged_needs_no_reason_and_records_nothing(admin_client, alice):
    response = admin_client.post(change_url(alice), user_form_data(alice))

    assert response.status_code == 302
    assert entries() == []


def test_staff_cannot_deactivate_themselves_on_their_page(admin_client, staff):
    data = user_form_data(staff, is_active=None, moderation_reason="Oops")
    data |= {"is_staff": "on", "is_superuser": "on"}

    response = admin_client.post(change_url(staff), data)

    assert response.status_code == 200
    assert "You cannot deactivate your own account." in response.content.decode()
    staff.refresh_from_db()
    assert staff.is_active
    assert entries() == []


def test_setting_a_password_needs_a_reason_and_is_recorded(admin_client, staff, alice):
    url = f"/admin/accounts/user/{alice.pk}/password/"
    new = {"password1": "a-Brand-new-Passw0rd", "password2": "a-Brand-new-Passw0rd"}
    new |= {"usable_password": "true", "set-password": "1"}
    page = admin_client.get(url)
    assert '<textarea name="reason"' in page.content.decode()
    old_hash = alice.password

    refused = admin_client.post(url, new)

    assert refused.status_code == 200
    assert "Say why: a reason is required" in refused.content.decode()
    alice.refresh_from_db()
    assert alice.password == old_hash
    assert entries() == []

    response = admin_client.post(url, {**new, "reason": "Lost access; identity checked."})

    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("a-Brand-new-Passw0rd")
    [entry] = entries()
    assert (entry.actor, entry.action, entry.user, entry.reason, entry.description) == (
        staff,
        "user_password",
        alice,
        "Lost access; identity checked.",
        "Set a new password for alice.",
    )


def test_deleting_a_user_asks_why_and_refuses_without_a_reason(admin_client, alice):
    url = f"/admin/accounts/user/{alice.pk}/delete/"
    assert '<textarea name="reason"' in admin_client.get(url).content.decode()

    response = admin_client.post(url, {"post": "yes", "reason": " "})

    assert response.status_code == 200
    assert "Say why: a reason is required" in response.content.decode()
    assert User.objects.filter(pk=alice.pk).exists()
    assert entries() == []


def test_deleting_a_user_is_recorded_and_the_entry_outlives_them(admin_client, staff, alice):
    pk = alice.pk

    admin_client.post(f"/admin/accounts/user/{pk}/delete/", {"post": "yes", "reason": REASON})

    assert not User.objects.filter(pk=pk).exists()
    [entry] = entries()
    assert (entry.actor, entry.action, entry.user, entry.reason, entry.description) == (
        staff,
        "user_delete",
        None,
        REASON,
        f"Deleted the account alice (#{pk}).",
    )


def test_bulk_deleting_users_asks_why_and_records_each(admin_client, staff, alice, bob):
    confirm = run_action(admin_client, "delete_selected", [alice, bob])
    assert '<textarea name="reason"' in confirm.content.decode()

    refused = run_action(admin_client, "delete_selected", [alice, bob], post="yes", reason="")
    assert "Say why: a reason is required" in refused.content.decode()
    assert User.objects.filter(pk__in=[alice.pk, bob.pk]).count() == 2
    assert entries() == []

    run_action(admin_client, "delete_selected", [alice, bob], post="yes", reason=REASON)

    assert not User.objects.filter(pk__in=[alice.pk, bob.pk]).exists()
    assert sorted(entry.description for entry in entries()) == [
        f"Deleted the account alice (#{alice.pk}).",
        f"Deleted the account bob (#{bob.pk}).",
    ]


def test_staff_cannot_delete_themselves(admin_client, staff):
    response = admin_client.post(
        f"/admin/accounts/user/{staff.pk}/delete/", {"post": "yes", "reason": REASON}
    )

    assert response.status_code == 403
    assert User.objects.filter(pk=staff.pk).exists()


def test_a_user_with_friends_notifications_and_invitations_can_still_be_deleted(
    admin_client, alice, bob, carol, tictactoe
):
    from accounts import friends
    from greycircle.games import invitations
    from greycircle.games.services import game_create
    from greycircle.notifications.models import Notification
    from tests.factories import let_anyone_invite

    friends.friend_request_send(sender=alice, username="bob")
    friends.user_block(blocker=carol, username="alice")
    Notification.objects.create(recipient=alice, kind="reminder", text="bob reminds you")
    let_anyone_invite(alice)
    game = game_create(
        creator=bob, kind="tictactoe", opponents=[SeatSpec(user=alice)], on_decline="open_seat"
    )
    invitations.invitation_decline(invitation_id=game.invitations.get().pk, user=alice)
    assert game.invitations.filter(invitee=alice).exists()
    assert alice.notifications.exists()
    url = f"/admin/accounts/user/{alice.pk}/delete/"
    page = admin_client.get(url).content.decode()
    assert "Are you sure" in page  # not "Cannot delete": these rows go with her
    for admin_path in ["accounts/friendrequest", "accounts/block", "notifications/notification"]:
        assert f'href="/admin/{admin_path}/' in page
    assert 'href="/admin/games/invitation/' in page

    response = admin_client.post(url, {"post": "yes", "reason": REASON})

    assert response.status_code == 302
    assert not User.objects.filter(pk=alice.pk).exists()


def test_the_user_page_shows_their_moderation_log_newest_first(admin_client, staff, alice, bob):
    moderate(admin_client, "deactivate_users", [alice], reason="First <warning>")
    ModerationAction.objects.update(created=timezone.now() - timedelta(days=3))
    moderate(admin_client, "reactivate_users", [alice], reason="Appeal accepted")
    moderate(admin_client, "deactivate_users", [bob], reason="Not about alice")

    content = admin_client.get(change_url(alice)).content.decode()

    assert "Moderation" in content
    assert '<table class="moderation-log">' in content
    assert "<td>staffer</td><td>Reactivated alice.</td><td>Appeal accepted</td>" in content
    assert "<td>staffer</td><td>Deactivated alice.</td><td>First &lt;warning&gt;</td>" in content
    assert content.index("Appeal accepted") < content.index("First &lt;warning&gt;")
    assert "Not about alice" not in content
    assert f"/admin/moderation/moderationaction/?user__id__exact={alice.pk}" not in content  # few


def test_the_user_page_without_moderation_says_so(admin_client, alice):
    assert "No moderation actions." in admin_client.get(change_url(alice)).content.decode()


# --- friend requests, friendships, blocks: searchable, read-only --------------------------------


def test_staff_search_friendships_requests_and_blocks_but_cannot_change_them(
    admin_client, alice, bob, carol
):
    from accounts import friends
    from accounts.models import Block, FriendRequest, Friendship

    friends.friend_request_accept(
        user=bob, request_id=friends.friend_request_send(sender=alice, username="bob").request.pk
    )
    friends.friend_request_send(sender=carol, username="alice")
    friends.user_block(blocker=carol, username="bob")

    for path, query, count in [
        ("/admin/accounts/friendship/", "alice", 2),
        ("/admin/accounts/friendrequest/", "carol", 1),
        ("/admin/accounts/block/", "bob", 1),
        ("/admin/accounts/block/", "nobody", 0),
    ]:
        response = admin_client.get(path, {"q": query})
        assert response.status_code == 200
        assert len(response.context["cl"].result_list) == count
        assert response.context["action_form"] is None  # no delete, no other action
    for model, path in [
        (Friendship, "/admin/accounts/friendship/"),
        (FriendRequest, "/admin/accounts/friendrequest/"),
        (Block, "/admin/accounts/block/"),
    ]:
        row = model.objects.first()
        assert admin_client.get(f"{path}add/").status_code == 403
        assert admin_client.post(f"{path}{row.pk}/delete/", {"post": "yes"}).status_code == 403
        assert admin_client.post(f"{path}{row.pk}/change/", {}).status_code == 403
    assert (Friendship.objects.count(), FriendRequest.objects.count(), Block.objects.count()) == (
        2,
        1,
        1,
    )
