"""Moderation in the user admin: every action on a user asks why and is recorded."""

from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.utils import timezone

from accounts.models import User
from greycircle.games.services import SeatSpec
from greycircle.moderation.models import ModerationAction
from tests.players.user_admin import (
    REASON,
    change_url,
    message_texts,
    moderate,
    run_action,
)

pytestmark = pytest.mark.django_db


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
