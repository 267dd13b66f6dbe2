"""The user admin, end to end on the real database through Django's test client: who may enter,
the list, deactivating, one user's page, deleting (the read-only friendship pages:
tests/accounts/test_admin.py)."""

from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client
from django.utils import timezone

from accounts.models import User
from greycircle.games.services import SeatSpec, game_resign
from greycircle.moderation.models import ModerationAction
from tests.factories import PASSWORD, UserFactory, game_started
from tests.players.user_admin import (
    CHANGELIST,
    REASON,
    change_url,
    listed_usernames,
    message_texts,
    moderate,
    run_action,
)

pytestmark = pytest.mark.django_db


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
        "email_time_running_out": "on",
        "email_moderation_notice": "on",
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
