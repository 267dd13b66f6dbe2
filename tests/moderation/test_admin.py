"""The moderation log in the admin: searchable and filterable, and an audit log — nobody, not even
a superuser, adds, edits or deletes an entry there."""

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from greycircle.games.services import SeatSpec
from greycircle.moderation import services
from greycircle.moderation.flags import flag_raise
from greycircle.moderation.models import Flag, FlagKind, ModerationAction
from tests.factories import UserFactory, game_started, moderator_make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

CHANGELIST = "/admin/moderation/moderationaction/"
FLAGS = "/admin/moderation/flag/"


@pytest.fixture
def entries(staff, alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    services.users_deactivate(actor=staff, user_ids=[alice.pk], reason="Spam in invitations")
    services.game_abort(actor=staff, game_id=game.pk, reason="Stuck after a server bug")
    return list(ModerationAction.objects.order_by("pk"))


def listed(response):
    return list(response.context["cl"].result_list)


def test_the_log_lists_who_what_when_why_and_links_the_targets(admin_client, entries):
    deactivated, aborted = entries

    response = admin_client.get(CHANGELIST)

    assert listed(response) == [aborted, deactivated]  # newest first
    content = response.content.decode()
    for column in ["created", "actor", "action", "description", "target", "reason"]:
        assert f"column-{column}" in content
    assert "Spam in invitations" in content
    assert f'href="/admin/accounts/user/{deactivated.user_id}/change/">alice</a>' in content
    assert f'href="/admin/games/game/{aborted.game_id}/change/">Game #{aborted.game_id}</a>' in (
        content
    )


def test_the_log_is_searchable_and_filterable(admin_client, entries, staff):
    deactivated, aborted = entries
    other = UserFactory(username="othermod", is_staff=True)
    services.users_deactivate(
        actor=other, user_ids=[aborted.game.seats.get(index=1).user_id], reason="Bad words"
    )

    assert len(listed(admin_client.get(CHANGELIST, {"q": "staffer"}))) == 2
    assert listed(admin_client.get(CHANGELIST, {"q": "alice"})) == [aborted, deactivated]
    assert [e.reason for e in listed(admin_client.get(CHANGELIST, {"q": "othermod"}))] == [
        "Bad words"
    ]
    assert listed(admin_client.get(CHANGELIST, {"q": "server bug"})) == [aborted]
    assert listed(admin_client.get(CHANGELIST, {"action__exact": "game_abort"})) == [aborted]
    assert listed(admin_client.get(CHANGELIST, {"user__id__exact": deactivated.user_id})) == [
        deactivated
    ]
    assert listed(admin_client.get(CHANGELIST, {"game__id__exact": aborted.game_id})) == [aborted]


def test_the_log_cannot_be_added_to_edited_or_deleted(admin_client, entries):
    entry = entries[0]

    assert admin_client.get(f"{CHANGELIST}add/").status_code == 403
    page = admin_client.get(f"{CHANGELIST}{entry.pk}/change/")
    assert page.status_code == 200  # to read
    assert "Spam in invitations" in page.content.decode()
    assert "<textarea" not in page.content.decode()
    response = admin_client.post(
        f"{CHANGELIST}{entry.pk}/change/", {"reason": "Rewritten", "description": "x"}
    )
    assert response.status_code == 403
    assert admin_client.get(f"{CHANGELIST}{entry.pk}/delete/").status_code == 403
    assert admin_client.post(f"{CHANGELIST}{entry.pk}/delete/", {"post": "yes"}).status_code == (
        403
    )
    assert admin_client.get(CHANGELIST).context["action_form"] is None  # no bulk delete
    admin_client.post(
        CHANGELIST, {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"}
    )
    entry.refresh_from_db()
    assert entry.reason == "Spam in invitations"
    assert ModerationAction.objects.count() == 2


def test_staff_need_the_view_permission_to_read_the_log(entries):
    staff = UserFactory(is_staff=True)
    client = Client()
    client.force_login(staff)
    assert client.get(CHANGELIST).status_code == 403

    staff.user_permissions.add(Permission.objects.get(codename="view_moderationaction"))

    assert client.get(CHANGELIST).status_code == 200


# --- flags ----------------------------------------------------------------------------------------


@pytest.fixture
def flags(staff, alice, bob, carol):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    reviewed = flag_raise(
        kind=FlagKind.QUICK_WINS,
        user_id=carol.pk,
        game=game,
        games=10,
        description="carol won 10 quick games.",
    )
    services.flags_review(actor=staff, flag_ids=[reviewed.pk], reason="A strong player.")
    open_flag = flag_raise(
        kind=FlagKind.QUICK_LOSSES,
        user_id=alice.pk,
        other_user_id=bob.pk,
        game=game,
        games=3,
        description="bob lost quickly to alice 3 times in 7 days.",
    )
    return open_flag, Flag.objects.get(pk=reviewed.pk)


def test_flags_are_listed_open_first_with_links_to_the_accounts_and_the_game(admin_client, flags):
    open_flag, reviewed = flags

    response = admin_client.get(FLAGS)

    assert listed(response) == [open_flag, reviewed]
    content = response.content.decode()
    assert "bob lost quickly to alice 3 times in 7 days." in content
    assert f'href="/admin/accounts/user/{open_flag.user_id}/change/">alice</a> against ' in content
    assert (
        f'href="/admin/games/game/{open_flag.game_id}/change/">Game #{open_flag.game_id}</a>'
        in (content)
    )
    assert "reviewed by staffer" in content
    assert listed(admin_client.get(FLAGS, {"reviewed": "no"})) == [open_flag]
    assert listed(admin_client.get(FLAGS, {"q": "bob"})) == [open_flag]
    assert listed(admin_client.get(FLAGS, {"kind__exact": "quick_wins"})) == [reviewed]


def test_flags_cannot_be_added_edited_or_deleted(admin_client, flags):
    open_flag, _ = flags

    assert admin_client.get(f"{FLAGS}add/").status_code == 403
    assert admin_client.get(f"{FLAGS}{open_flag.pk}/change/").status_code == 200
    assert (
        admin_client.post(f"{FLAGS}{open_flag.pk}/change/", {"description": "x"}).status_code == 403
    )
    assert admin_client.post(f"{FLAGS}{open_flag.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Flag.objects.count() == 2


def test_reviewing_a_flag_asks_why_and_records_it(admin_client, flags, staff):
    open_flag, _ = flags
    chosen = {"action": "review_selected", "_selected_action": [open_flag.pk]}

    asked = admin_client.post(FLAGS, chosen)
    assert asked.status_code == 200
    assert "Mark these flags reviewed?" in asked.content.decode()
    assert (
        admin_client.post(FLAGS, {**chosen, "confirm_moderation": "yes", "reason": ""}).status_code
        == 200
    )
    open_flag.refresh_from_db()
    assert open_flag.reviewed_at is None, "no reason, no review"

    done = admin_client.post(
        FLAGS,
        {**chosen, "confirm_moderation": "yes", "reason": "Spare account, deactivated."},
        follow=True,
    )

    assert done.status_code == 200
    open_flag.refresh_from_db()
    assert open_flag.reviewed_by == staff
    entry = ModerationAction.objects.get(action="flag_review", reason="Spare account, deactivated.")
    assert entry.user_id == open_flag.user_id


def test_staff_without_the_change_permission_may_read_flags_but_not_review_them(flags):
    open_flag, _ = flags
    reader = UserFactory(is_staff=True)
    reader.user_permissions.add(Permission.objects.get(codename="view_flag"))
    client = Client()
    client.force_login(reader)

    assert client.get(FLAGS).status_code == 200
    client.post(
        FLAGS,
        {
            "action": "review_selected",
            "_selected_action": [open_flag.pk],
            "confirm_moderation": "yes",
            "reason": "Looks fine.",
        },
    )
    open_flag.refresh_from_db()
    assert open_flag.reviewed_at is None


# --- sanctions -----------------------------------------------------------------------------------

SANCTIONS = "/admin/moderation/sanction/"


@pytest.fixture
def moderator():
    """Staff in the Moderators group, not a superuser."""
    return moderator_make()


@pytest.fixture
def moderator_client(moderator):
    client = Client()
    client.force_login(moderator)
    return client


def test_a_moderator_lists_sanctions_read_only_and_filters_them(moderator_client, moderator, bob):
    from greycircle.moderation.sanctions import sanction_impose, sanction_lift

    mute = sanction_impose(actor=moderator, user_id=bob.pk, kind="mute", reason="Rude", days=2)
    warning = sanction_impose(actor=moderator, user_id=bob.pk, kind="warn", reason="Rude again")
    sanction_lift(actor=moderator, sanction_id=warning.pk, reason="Misread the chat.")

    response = moderator_client.get(SANCTIONS)

    assert listed(response) == [warning, mute]
    content = response.content.decode()
    assert "Rude again" in content
    assert f'href="/admin/accounts/user/{bob.pk}/change/">bob</a>' in content
    assert listed(moderator_client.get(SANCTIONS, {"status": "active"})) == [mute]
    assert listed(moderator_client.get(SANCTIONS, {"status": "lifted"})) == [warning]
    assert moderator_client.get(f"{SANCTIONS}{mute.pk}/change/").status_code == 200
    assert moderator_client.get(f"{SANCTIONS}add/").status_code == 403


def test_a_moderator_lifts_a_sanction_with_a_reason(moderator_client, moderator, bob):
    from greycircle.moderation.sanctions import sanction_impose

    bar = sanction_impose(actor=moderator, user_id=bob.pk, kind="rated_bar", reason="Farm", days=9)
    chosen = {"action": "lift_selected", "_selected_action": [bar.pk]}

    asked = moderator_client.post(SANCTIONS, chosen)
    assert "Lift these sanctions?" in asked.content.decode()
    moderator_client.post(SANCTIONS, {**chosen, "confirm_moderation": "yes", "reason": ""})
    bar.refresh_from_db()
    assert bar.lifted_at is None, "no reason, no lift"

    moderator_client.post(
        SANCTIONS, {**chosen, "confirm_moderation": "yes", "reason": "Appeal: a sibling played."}
    )

    bar.refresh_from_db()
    bob.refresh_from_db()
    assert bar.lifted_by == moderator
    assert bob.rated_barred_until is None
    assert ModerationAction.objects.filter(
        action="sanction_lift", reason="Appeal: a sibling played."
    ).exists()


def test_players_and_staff_outside_the_group_never_reach_the_sanctions(alice):
    staff_only = Client()
    staff_only.force_login(UserFactory(is_staff=True))
    player = Client()
    player.force_login(alice)

    assert staff_only.get(SANCTIONS).status_code == 403
    assert player.get(SANCTIONS).status_code == 302  # to the admin's log-in page
