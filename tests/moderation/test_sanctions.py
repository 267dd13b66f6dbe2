"""Sanctions: each imposed and lifted in one transaction with its moderation log entry, its effect
kept on the user, the player told; refusals change nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from greycircle.moderation import sanctions, signals
from greycircle.moderation.errors import (
    ModerationInvalid,
    ModerationNotFound,
    ModerationPermissionDenied,
)
from greycircle.moderation.models import ModerationAction, ModerationActionKind, SanctionKind
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

REASON = "Insulted opponents in three games."


@pytest.fixture
def moderator():
    return UserFactory(username="mod", is_staff=True)


@pytest.fixture
def told():
    """The notices sent to players (`signals.moderation_notice`), as (user_id, data)."""
    notices = []

    def receive(sender, *, user_id, event, data, **kwargs):
        notices.append((user_id, event, data))

    signals.moderation_notice.connect(receive, dispatch_uid="tests.told")
    yield notices
    signals.moderation_notice.disconnect(dispatch_uid="tests.told")


def impose(actor, user, kind, **options):
    return sanctions.sanction_impose(
        actor=actor, user_id=user.pk, kind=kind, reason=REASON, **options
    )


def entries(user):
    return list(ModerationAction.objects.filter(user=user).values_list("action", "reason"))


# --- imposing ------------------------------------------------------------------------------------


def test_a_warning_changes_nothing_but_is_logged_and_told(moderator, alice, told):
    warning = impose(moderator, alice, "warn")

    alice.refresh_from_db()
    assert (alice.chat_muted_until, alice.rated_barred_until, alice.is_active) == (None, None, True)
    assert warning.notice == sanctions.DEFAULT_NOTICES[SanctionKind.WARN]
    assert warning.created_by == moderator
    assert warning.until is None
    assert entries(alice) == [(ModerationActionKind.SANCTION_WARN, REASON)]
    assert told == [
        (
            alice.pk,
            "moderation_notice",
            {
                "sanction": warning.pk,
                "sanction_kind": "warn",
                "lifted": False,
                "notice": warning.notice,
                "until": None,
            },
        )
    ]
    assert list(sanctions.sanctions_active(user=alice)) == [warning]


def test_a_mute_sets_the_users_date_for_the_days_given(moderator, alice, told):
    before = timezone.now()

    mute = impose(moderator, alice, "mute", days=3, notice="  Mind your language.  ")

    alice.refresh_from_db()
    assert alice.chat_muted_until == mute.until
    assert before + timedelta(days=3) <= mute.until <= timezone.now() + timedelta(days=3)
    assert mute.notice == "Mind your language."
    assert alice.rated_barred_until is None
    assert entries(alice) == [(ModerationActionKind.SANCTION_MUTE, REASON)]
    assert told[0][2]["until"] == mute.until.isoformat()


def test_a_rated_bar_sets_the_users_date(moderator, alice):
    bar = impose(moderator, alice, "rated_bar", days=30)

    alice.refresh_from_db()
    assert alice.rated_barred_until == bar.until
    assert alice.chat_muted_until is None
    assert entries(alice) == [(ModerationActionKind.SANCTION_RATED_BAR, REASON)]


def test_a_rename_gives_the_username_given_and_keeps_the_old_one(moderator):
    rude = UserFactory(username="rudename")

    rename = impose(moderator, rude, "rename", username="Polite")

    rude.refresh_from_db()
    assert rude.username == "Polite"
    assert rude.username_skeleton == "polite"
    assert (rename.old_username, rename.new_username) == ("rudename", "Polite")
    assert "Polite" in rename.notice
    assert entries(rude) == [(ModerationActionKind.SANCTION_RENAME, REASON)]


def test_a_rename_without_a_username_gives_a_neutral_free_one(moderator):
    rude = UserFactory(username="rudename")

    rename = impose(moderator, rude, "rename")

    rude.refresh_from_db()
    assert rude.username == rename.new_username
    assert rude.username.startswith("player-")
    assert rude.username[7:].isdigit()


@pytest.mark.parametrize(
    "username",
    ["alice", "ALICE", "\u0430lice", "guest-abc", "bad name!"],
    ids=["taken", "case", "look-alike", "reserved", "shape"],
)
def test_a_rename_to_a_username_sign_up_refuses_is_refused(moderator, alice, username):
    rude = UserFactory(username="rudename")

    with pytest.raises(ModerationInvalid) as refused:
        impose(moderator, rude, "rename", username=username)

    assert refused.value.code == "bad_username"
    rude.refresh_from_db()
    assert rude.username == "rudename"
    assert not rude.sanctions.exists()
    assert not entries(rude)


def test_a_deactivation_goes_through_the_deactivation_path(moderator, alice):
    sanction = impose(moderator, alice, "deactivate")

    alice.refresh_from_db()
    assert not alice.is_active
    assert sanction.kind == SanctionKind.DEACTIVATE
    assert entries(alice) == [(ModerationActionKind.USER_DEACTIVATE, REASON)]


@pytest.mark.parametrize(
    ("kind", "options", "code"),
    [
        ("ban", {}, "bad_kind"),
        ("mute", {}, "days_required"),
        ("mute", {"days": 0}, "bad_days"),
        ("rated_bar", {"days": 366}, "bad_days"),
        ("warn", {"days": 3}, "not_for_kind"),
        ("mute", {"days": 3, "username": "x"}, "not_for_kind"),
        ("warn", {"notice": "x" * 1001}, "notice_too_long"),
    ],
)
def test_bad_requests_are_refused_and_change_nothing(moderator, alice, told, kind, options, code):
    with pytest.raises(ModerationInvalid) as refused:
        impose(moderator, alice, kind, **options)

    assert refused.value.code == code
    alice.refresh_from_db()
    assert alice.chat_muted_until is None
    assert not alice.sanctions.exists()
    assert not entries(alice)
    assert not told


def test_a_reason_is_required(moderator, alice):
    with pytest.raises(ModerationInvalid) as refused:
        sanctions.sanction_impose(actor=moderator, user_id=alice.pk, kind="warn", reason=" ")

    assert refused.value.code == "reason_required"


def test_nobody_sanctions_themselves(staff):
    with pytest.raises(ModerationInvalid) as refused:
        impose(staff, staff, "warn")

    assert refused.value.code == "self"


def test_staff_are_sanctioned_by_a_superuser_only(moderator, staff):
    other = UserFactory(username="othermod", is_staff=True)

    with pytest.raises(ModerationInvalid) as refused:
        impose(moderator, other, "mute", days=1)
    assert refused.value.code == "protected_account"
    with pytest.raises(ModerationInvalid):
        impose(moderator, staff, "warn")

    assert impose(staff, other, "mute", days=1).user == other


def test_a_deactivated_account_is_not_deactivated_again(moderator, alice):
    impose(moderator, alice, "deactivate")

    with pytest.raises(ModerationInvalid) as refused:
        impose(moderator, alice, "deactivate")

    assert refused.value.code == "already_inactive"


def test_no_such_user(moderator):
    with pytest.raises(ModerationNotFound):
        sanctions.sanction_impose(actor=moderator, user_id=999_999, kind="warn", reason=REASON)


def test_a_player_cannot_sanction(alice, bob):
    with pytest.raises(ModerationPermissionDenied) as refused:
        impose(alice, bob, "warn")

    assert refused.value.code == "not_staff"
    assert not bob.sanctions.exists()


# --- lifting -------------------------------------------------------------------------------------


def lift(actor, sanction, reason="Appeal accepted."):
    return sanctions.sanction_lift(actor=actor, sanction_id=sanction.pk, reason=reason)


def test_lifting_a_mute_clears_the_date_logged_and_told(moderator, alice, told):
    mute = impose(moderator, alice, "mute", days=3)

    lifted = lift(moderator, mute)

    alice.refresh_from_db()
    assert alice.chat_muted_until is None
    assert lifted.lifted_by == moderator
    assert lifted.lift_reason == "Appeal accepted."
    assert entries(alice)[0] == (ModerationActionKind.SANCTION_LIFT, "Appeal accepted.")
    assert told[-1][2] == {
        "sanction": mute.pk,
        "sanction_kind": "mute",
        "lifted": True,
        "notice": sanctions.LIFT_NOTICES[SanctionKind.MUTE],
        "until": None,
    }
    assert not sanctions.sanctions_active(user=alice).exists()


def test_lifting_one_of_two_mutes_keeps_the_other_in_force(moderator, alice):
    long = impose(moderator, alice, "mute", days=10)
    short = impose(moderator, alice, "mute", days=2)
    alice.refresh_from_db()
    assert alice.chat_muted_until == long.until  # the later end holds

    lift(moderator, short)
    alice.refresh_from_db()
    assert alice.chat_muted_until == long.until

    short = impose(moderator, alice, "mute", days=2)
    lift(moderator, long)
    alice.refresh_from_db()
    assert alice.chat_muted_until == short.until


def test_lifting_a_rated_bar_clears_its_date(moderator, alice):
    bar = impose(moderator, alice, "rated_bar", days=7)

    lift(moderator, bar)

    alice.refresh_from_db()
    assert alice.rated_barred_until is None


def test_lifting_a_rename_restores_the_old_username(moderator):
    rude = UserFactory(username="rudename")
    rename = impose(moderator, rude, "rename")

    lift(moderator, rename)

    rude.refresh_from_db()
    assert rude.username == "rudename"


def test_lifting_a_rename_whose_old_username_was_taken_is_refused(moderator):
    rude = UserFactory(username="rudename")
    rename = impose(moderator, rude, "rename", username="polite")
    UserFactory(username="RudeName")

    with pytest.raises(ModerationInvalid) as refused:
        lift(moderator, rename)

    assert refused.value.code == "username_taken"
    rude.refresh_from_db()
    rename.refresh_from_db()
    assert rude.username == "polite"
    assert rename.lifted_at is None


def test_lifting_a_deactivation_reactivates(moderator, alice):
    sanction = impose(moderator, alice, "deactivate")

    lift(moderator, sanction)

    alice.refresh_from_db()
    assert alice.is_active
    assert entries(alice)[0] == (ModerationActionKind.USER_REACTIVATE, "Appeal accepted.")


def test_lifting_a_deactivation_of_an_account_reactivated_meanwhile_is_still_logged(
    moderator, alice
):
    from greycircle.moderation.services import users_reactivate

    sanction = impose(moderator, alice, "deactivate")
    users_reactivate(actor=moderator, user_ids=[alice.pk], reason="Admin's own form.")

    lift(moderator, sanction)

    assert entries(alice)[0] == (ModerationActionKind.SANCTION_LIFT, "Appeal accepted.")


def test_lifting_a_warning_withdraws_it(moderator, alice):
    warning = impose(moderator, alice, "warn")

    lift(moderator, warning)

    assert not sanctions.sanctions_active(user=alice).exists()


def test_a_sanction_is_lifted_once(moderator, alice):
    warning = impose(moderator, alice, "warn")
    lift(moderator, warning)

    with pytest.raises(ModerationInvalid) as refused:
        lift(moderator, warning)

    assert refused.value.code == "already_lifted"


def test_a_lift_needs_a_reason_and_an_existing_sanction(moderator, alice):
    warning = impose(moderator, alice, "warn")

    with pytest.raises(ModerationInvalid):
        lift(moderator, warning, reason="")
    with pytest.raises(ModerationNotFound):
        sanctions.sanction_lift(actor=moderator, sanction_id=999_999, reason="x")


# --- selectors and acknowledging -----------------------------------------------------------------


def test_active_sanctions_end_with_their_time_or_acknowledgement(moderator, alice, bob):
    mute = impose(moderator, alice, "mute", days=1)
    warning = impose(moderator, alice, "warn")
    impose(moderator, bob, "warn")

    assert set(sanctions.sanctions_active(user=alice)) == {mute, warning}
    later = timezone.now() + timedelta(days=2)
    assert list(sanctions.sanctions_active(user=alice, now=later)) == [warning]

    sanctions.sanction_acknowledge(user=alice, sanction_id=warning.pk)

    assert list(sanctions.sanctions_active(user=alice)) == [mute]
    assert len(sanctions.sanctions_of(user_id=alice.pk)) == 2


def test_a_player_acknowledges_only_their_own_notices(moderator, alice, bob):
    warning = impose(moderator, alice, "warn")
    mute = impose(moderator, alice, "mute", days=1)

    for user, sanction in [(bob, warning), (alice, mute)]:
        with pytest.raises(ModerationNotFound):
            sanctions.sanction_acknowledge(user=user, sanction_id=sanction.pk)

    assert User.objects.get(pk=alice.pk).chat_muted_until == mute.until


# --- the player told: inbox, push and e-mail as they chose ---------------------------------------


def test_each_sanction_and_lift_reaches_the_players_inbox_and_mail(
    moderator, alice, deliver_notifications
):
    from django_tasks_db.models import DBTaskResult

    from greycircle.notifications.mail_tasks import notification_mail_send
    from greycircle.notifications.models import Notification, NotificationKind
    from tests.notifications.conftest import verify

    verify(alice)
    mute = impose(moderator, alice, "mute", days=2, notice="No insults, please.")
    deliver_notifications()

    told = Notification.objects.get(recipient=alice)
    assert told.kind == NotificationKind.MODERATION_NOTICE
    assert told.text == (
        f"From the moderators: No insults, please. (until {mute.until:%Y-%m-%d %H:%M} UTC)"
    )
    assert REASON not in told.text  # staff's reason stays internal
    mails = DBTaskResult.objects.filter(task_path=notification_mail_send.module_path)
    assert [row.args_kwargs["args"] for row in mails] == [[told.pk]]

    lift(moderator, mute)
    deliver_notifications()

    assert Notification.objects.filter(recipient=alice).count() == 2
    latest = Notification.objects.filter(recipient=alice).order_by("-pk").first()
    assert latest.text == f"From the moderators: {sanctions.LIFT_NOTICES[SanctionKind.MUTE]}"


def test_a_player_who_wants_no_mail_of_it_gets_none(moderator, alice, deliver_notifications):
    from django_tasks_db.models import DBTaskResult

    from greycircle.notifications.mail_tasks import notification_mail_send
    from tests.notifications.conftest import verify

    verify(alice)
    User.objects.filter(pk=alice.pk).update(email_moderation_notice=False)

    impose(moderator, alice, "warn")
    deliver_notifications()

    assert alice.notifications.count() == 1
    assert not DBTaskResult.objects.filter(task_path=notification_mail_send.module_path).exists()


def test_a_deactivated_player_is_still_mailed_why(moderator, alice, deliver_notifications):
    from greycircle.notifications import mail
    from tests.notifications.conftest import verify

    verify(alice)
    impose(moderator, alice, "deactivate", notice="Your account is closed for spam.")
    deliver_notifications()

    notification = alice.notifications.get()
    notification.recipient.refresh_from_db()
    assert not notification.recipient.is_active
    assert mail.mail_refusal(notification) is None
