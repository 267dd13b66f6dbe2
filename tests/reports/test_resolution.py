"""Resolving reports (greycircle.reports.resolution): each action with its log entry and its
effect, the reports handled, the reporters thanked without the outcome; refusals change nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from greycircle.chat.errors import MessageForbidden
from greycircle.chat.selectors import game_messages_for
from greycircle.chat.services import game_message_post
from greycircle.conversations.selectors import messages_for
from greycircle.games.errors import GamePermissionDenied
from greycircle.games.rated_bar import rated_bar_check
from greycircle.games.services import SeatSpec
from greycircle.moderation import sanctions
from greycircle.moderation.errors import ModerationInvalid, ModerationPermissionDenied
from greycircle.moderation.models import ModerationAction, ModerationActionKind, SanctionKind
from greycircle.notifications.models import Notification, NotificationKind
from greycircle.reports import resolution
from greycircle.reports.models import Report, ReportOutcome, ReportStatus
from tests.factories import UserFactory, game_started
from tests.reports.desk_helpers import REASON, chat_lines, conversation_lines, report

pytestmark = pytest.mark.django_db


@pytest.fixture
def moderator():
    return UserFactory(username="mod", is_staff=True)


def resolve(moderator, reports, action, **options):
    return resolution.reports_resolve(
        actor=moderator,
        report_ids=[r.pk for r in reports],
        action=action,
        reason=REASON,
        **options,
    )


def test_assigning_takes_the_player_s_open_reports(moderator, alice, bob, carol):
    first = report(bob, reporter=alice, target="a")
    second = report(bob, reporter=carol, target="b", assigned_to=UserFactory(is_staff=True))
    other = report(carol, reporter=alice)

    assert resolution.reports_assign(actor=moderator, user_id=bob.pk) == 2

    assert {r.assigned_to for r in Report.objects.filter(pk__in=[first.pk, second.pk])} == {
        moderator
    }
    other.refresh_from_db()
    assert other.assigned_to is None


def test_a_player_cannot_assign(alice, bob):
    report(bob, reporter=alice)
    with pytest.raises(ModerationPermissionDenied):
        resolution.reports_assign(actor=alice, user_id=bob.pk)


def test_dismissing_handles_the_reports_and_records_it(moderator, alice, bob, carol):
    reports = [report(bob, reporter=alice, target="a"), report(bob, reporter=carol, target="b")]

    resolve(moderator, reports, "dismiss")

    entry = ModerationAction.objects.get(user=bob)
    assert (entry.action, entry.actor, entry.reason) == (
        ModerationActionKind.REPORTS_DISMISS,
        moderator,
        REASON,
    )
    assert f"#{reports[0].pk}" in entry.description
    for handled in Report.objects.filter(user=bob):
        assert handled.status == ReportStatus.HANDLED
        assert handled.outcome == ReportOutcome.DISMISSED
        assert (handled.handled_by, handled.moderation_action) == (moderator, entry)
        assert handled.handled_at is not None
    assert not sanctions.sanctions_of(user_id=bob.pk).exists()


def test_warning_imposes_the_sanction_and_links_its_log_entry(moderator, alice, bob):
    filed = report(bob, reporter=alice)

    resolve(moderator, [filed], "warn", notice="Mind your words.")

    [warning] = sanctions.sanctions_of(user_id=bob.pk)
    assert (warning.kind, warning.notice) == (SanctionKind.WARN, "Mind your words.")
    filed.refresh_from_db()
    assert filed.outcome == ReportOutcome.ACTIONED
    assert filed.moderation_action.action == ModerationActionKind.SANCTION_WARN


def test_muting_sets_the_player_s_mute_and_they_cannot_post(moderator, alice, bob, tictactoe):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    resolve(moderator, [report(bob, reporter=alice)], "mute", days=3)

    bob.refresh_from_db()
    assert bob.chat_muted_until > timezone.now() + timedelta(days=2)
    with pytest.raises(MessageForbidden) as refused:
        game_message_post(user=bob, game_id=game.pk, room="players", body="hello")
    assert refused.value.code == "chat_muted"
    assert ModerationAction.objects.filter(
        user=bob, action=ModerationActionKind.SANCTION_MUTE
    ).exists()


def test_barring_from_rated_games_sets_the_bar(moderator, alice, bob):
    resolve(moderator, [report(bob, reporter=alice, reason="sandbagging")], "rated_bar", days=7)

    bob.refresh_from_db()
    assert bob.rated_barred_until > timezone.now() + timedelta(days=6)
    with pytest.raises(GamePermissionDenied) as refused:
        rated_bar_check(user=bob)
    assert refused.value.code == "rated_barred"


def test_renaming_gives_the_player_the_new_username(moderator, alice):
    rude = UserFactory(username="rudename")
    filed = report(rude, reporter=alice, reason="offensive_username")

    resolve(moderator, [filed], "rename", username="calmname")

    rude.refresh_from_db()
    assert rude.username == "calmname"
    filed.refresh_from_db()
    assert filed.moderation_action.action == ModerationActionKind.SANCTION_RENAME


def test_deactivating_deactivates_and_links_the_deactivation(moderator, alice, bob):
    filed = report(bob, reporter=alice)

    resolve(moderator, [filed], "deactivate")

    bob.refresh_from_db()
    assert not bob.is_active
    filed.refresh_from_db()
    assert filed.moderation_action.action == ModerationActionKind.USER_DEACTIVATE


def test_each_reporter_is_thanked_once_without_the_outcome(
    moderator, alice, bob, carol, deliver_notifications
):
    rude = UserFactory(username="rudename")
    reports = [
        report(rude, reporter=alice, target="a"),
        report(rude, reporter=alice, target="b"),
        report(rude, reporter=carol, target="c"),
        report(rude),  # automatic: nobody to thank
    ]

    resolve(moderator, reports, "rename", username="calmname")
    deliver_notifications()

    told = Notification.objects.filter(kind=NotificationKind.REPORT_HANDLED)
    assert sorted(n.recipient.username for n in told) == ["alice", "carol"]
    for notification in told:
        assert notification.text == (
            "Thank you: the moderators have looked at your report about rudename"
        )
    assert not Notification.objects.filter(recipient=bob).exists()


def _flagged(message):
    message.hidden = True
    message.save()
    return message


def _bobs_two_messages_reported(alice, bob, *, flagged):
    """Bob's line in a game's chat and his message to Alice, each reported: by the screening
    (`flagged`: the automatic report of a shadow-hidden message) or by Alice."""
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    [message] = chat_lines(game, bob, alice, 1)
    [note] = conversation_lines(bob, alice, 1)
    if flagged:
        filed = [
            report(bob, game_message=_flagged(message), target="m"),
            report(bob, direct_message=_flagged(note), target="d"),
        ]
    else:
        filed = [
            report(bob, reporter=alice, game_message=message, target="m"),
            report(bob, reporter=alice, direct_message=note, target="d"),
        ]
    return game, message, note, filed


def test_a_dismissed_flagged_message_is_shown_again(moderator, alice, bob, tictactoe):
    _, message, note, filed = _bobs_two_messages_reported(alice, bob, flagged=True)

    resolve(moderator, filed, "dismiss")

    for reviewed in (message, note):
        reviewed.refresh_from_db()
        assert (reviewed.hidden, reviewed.reviewed_at is not None) == (False, True)


def test_an_actioned_flagged_message_stays_hidden(moderator, alice, bob, tictactoe):
    _, message, note, filed = _bobs_two_messages_reported(alice, bob, flagged=True)

    resolve(moderator, filed, "mute", days=1)

    for reviewed in (message, note):
        reviewed.refresh_from_db()
        assert (reviewed.hidden, reviewed.reviewed_at is not None) == (True, True)


def _seen_by(user, game, note):
    """Which of the two reported messages `user` sees: in the game's chat, in the conversation."""
    chat = [m.pk for m in game_messages_for(viewer=user, game=game, room="players")]
    thread = messages_for(user=user, conversation=note.conversation).values_list("pk", flat=True)
    return (chat, list(thread))


def test_an_actioned_message_is_hidden_from_everyone_but_its_author_and_staff(
    moderator, alice, bob, tictactoe
):
    game, message, note, filed = _bobs_two_messages_reported(alice, bob, flagged=False)
    assert _seen_by(alice, game, note) == ([message.pk], [note.pk])

    resolve(moderator, filed, "mute", days=1)

    assert _seen_by(alice, game, note) == ([], [])
    assert _seen_by(bob, game, note) == ([message.pk], [note.pk])  # its author still sees it
    assert _seen_by(moderator, game, note)[0] == [message.pk]  # staff read the game's chat
    for reviewed in (message, note):
        reviewed.refresh_from_db()
        assert (reviewed.hidden, reviewed.reviewed_at is not None) == (True, True)


def test_a_dismissed_visible_message_stays_visible(moderator, alice, bob, tictactoe):
    game, message, note, filed = _bobs_two_messages_reported(alice, bob, flagged=False)

    resolve(moderator, filed, "dismiss")

    assert _seen_by(alice, game, note) == ([message.pk], [note.pk])
    for reviewed in (message, note):
        reviewed.refresh_from_db()
        assert (reviewed.hidden, reviewed.reviewed_at is not None) == (False, True)


@pytest.mark.parametrize(
    ("action", "options", "code"),
    [
        ("ban", {}, "bad_action"),
        ("dismiss", {"days": 3}, "not_for_kind"),
        ("mute", {}, "days_required"),
    ],
)
def test_bad_requests_change_nothing(moderator, alice, bob, action, options, code):
    filed = report(bob, reporter=alice)

    with pytest.raises(ModerationInvalid) as refused:
        resolve(moderator, [filed], action, **options)

    assert refused.value.code == code
    filed.refresh_from_db()
    assert filed.status == ReportStatus.OPEN
    assert not ModerationAction.objects.exists()
    bob.refresh_from_db()
    assert bob.chat_muted_until is None


def test_reports_handled_already_or_of_two_players_are_refused(moderator, alice, bob, carol):
    bobs, carols = report(bob, reporter=alice), report(carol, reporter=alice)
    with pytest.raises(ModerationInvalid) as refused:
        resolve(moderator, [bobs, carols], "warn")
    assert refused.value.code == "several_players"

    resolve(moderator, [bobs], "dismiss")
    with pytest.raises(ModerationInvalid) as refused:
        resolve(moderator, [bobs], "warn")
    assert refused.value.code == "not_open"
    assert not sanctions.sanctions_of(user_id=bob.pk).exists()


def test_a_reason_is_required(moderator, alice, bob):
    filed = report(bob, reporter=alice)
    with pytest.raises(ModerationInvalid) as refused:
        resolution.reports_resolve(
            actor=moderator, report_ids=[filed.pk], action="dismiss", reason="  "
        )
    assert refused.value.code == "reason_required"


def test_a_player_cannot_resolve(alice, bob):
    filed = report(bob, reporter=alice)
    with pytest.raises(ModerationPermissionDenied):
        resolve(alice, [filed], "dismiss")
    assert User.objects.get(pk=bob.pk).is_active
