"""Filing reports: a player reports what they could see, once per target, a few a day; the
automatic reports are never filed twice while one is open."""

import pytest
from django.utils import timezone
from rest_framework.throttling import ScopedRateThrottle

from accounts.friends import user_block
from greycircle.chat import services as chat_services
from greycircle.conversations import services as conversation_services
from greycircle.games.services import SeatSpec
from greycircle.reports import services
from greycircle.reports.errors import ReportInvalid, ReportNotFound, ReportThrottled
from greycircle.reports.models import Report, ReportReason, ReportSource, ReportStatus
from tests.factories import UserFactory, befriend, game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


def refusal(code, **kwargs):
    with pytest.raises((ReportInvalid, ReportNotFound)) as refused:
        services.report_file(**kwargs)
    assert refused.value.code == code
    return refused.value


def test_a_player_reports_a_profile(alice, bob):
    report = services.report_file(
        reporter=alice, reason="offensive_username", comment="  Look at the name.  ", username="BOB"
    )

    assert (report.reporter, report.user, report.source, report.target, report.game) == (
        alice,
        bob,
        ReportSource.PLAYER,
        "",
        None,
    )
    assert (report.reason, report.comment, report.status, report.outcome) == (
        ReportReason.OFFENSIVE_USERNAME,
        "Look at the name.",
        ReportStatus.OPEN,
        "",
    )


def test_a_player_reports_their_opponent_in_a_game_without_naming_them(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    report = services.report_file(reporter=bob, reason="stalling", game_id=game.pk)

    assert (report.user, report.game, report.target) == (alice, game, f"game:{game.pk}")


def test_a_spectator_reports_a_player_of_a_game_they_can_watch(alice, bob, carol):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    refusal("username_required", reporter=carol, reason="cheating", game_id=game.pk)
    refusal("not_found", reporter=carol, reason="cheating", game_id=game.pk, username="dave")
    report = services.report_file(
        reporter=carol, reason="cheating", game_id=game.pk, username="bob"
    )
    assert (report.user, report.game) == (bob, game)


def test_what_the_reporter_cannot_see_is_answered_as_what_does_not_exist(alice, bob, carol):
    unlisted = game_started(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)], unlisted=True
    )
    user_block(blocker=bob, username="carol")

    missing_game = refusal("not_found", reporter=carol, reason="other", game_id=unlisted.pk + 1)
    hidden_game = refusal(
        "not_found", reporter=carol, reason="other", game_id=unlisted.pk, username="alice"
    )
    missing_player = refusal("not_found", reporter=carol, reason="other", username="nobody")
    blocking_player = refusal("not_found", reporter=carol, reason="other", username="bob")

    assert {e.detail for e in (missing_game, hidden_game, missing_player, blocking_player)} == {
        services.NOT_FOUND
    }
    assert not Report.objects.exists()


def test_a_player_one_has_blocked_may_still_be_reported(alice, bob):
    user_block(blocker=alice, username="bob")

    assert services.report_file(reporter=alice, reason="abusive_chat", username="bob").user == bob


def test_a_deactivated_player_is_not_found(alice, bob):
    bob.is_active = False
    bob.save()

    refusal("not_found", reporter=alice, reason="other", username="bob")


def test_nobody_reports_themselves(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    refusal("self", reporter=alice, reason="other", username="alice")
    refusal("self", reporter=alice, reason="other", game_id=game.pk, username="alice")
    assert not Report.objects.exists()


def test_a_staff_member_is_reported_like_anyone(alice, staff):
    # Refusing would tell players who is staff.
    assert services.report_file(reporter=alice, reason="other", username="staffer").user == staff


def test_one_open_report_per_reporter_and_target(alice, bob, carol):
    first = services.report_file(reporter=alice, reason="spam", username="bob")

    refusal("duplicate", reporter=alice, reason="abusive_chat", username="bob")
    services.report_file(reporter=carol, reason="spam", username="bob")  # another reporter
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    services.report_file(reporter=alice, reason="spam", game_id=game.pk)  # another target

    Report.objects.filter(pk=first.pk).update(
        status=ReportStatus.HANDLED, outcome="dismissed", handled_at=timezone.now()
    )
    services.report_file(reporter=alice, reason="spam", username="bob")  # handled: anew
    assert Report.objects.filter(reporter=alice, target="").count() == 2


def test_a_reporter_files_a_few_reports_a_day(alice, monkeypatch, rate_window_still):
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, services.THROTTLE_SCOPE, "2/day")
    for user in UserFactory.create_batch(2):
        services.report_file(reporter=alice, reason="spam", username=user.username)

    with pytest.raises(ReportThrottled) as refused:
        services.report_file(reporter=alice, reason="spam", username=UserFactory().username)

    assert refused.value.code == "throttled"
    assert 0 < refused.value.extra["retry_after"] <= 24 * 3600
    assert Report.objects.count() == 2


def test_bad_reports_are_refused_and_change_nothing(alice, bob):
    refusal("no_target", reporter=alice, reason="spam")
    refusal("unknown_reason", reporter=alice, reason="ugly", username="bob")
    refusal("comment_too_long", reporter=alice, reason="spam", username="bob", comment="x" * 1001)
    assert not Report.objects.exists()


def test_a_guest_reports_no_player_nor_game(alice, bob):
    guest = UserFactory(is_guest=True)
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    refusal("guest", reporter=guest, reason="spam", username="bob")
    refusal("guest", reporter=guest, reason="spam", game_id=game.pk, username="bob")


def test_the_automatic_report_of_a_kind_is_filed_once_while_open(alice):
    def file(**kwargs):
        return services.report_file_automatic(
            user=alice, reason="stalling", source="signal", comment="Lost 3 on time.", **kwargs
        )

    first = file()
    assert (first.reporter, first.source, first.reason) == (None, "signal", "stalling")
    assert file() is None
    assert file(target="game:1") is not None  # another target
    Report.objects.filter(pk=first.pk).update(status="handled", outcome="actioned")
    assert file() is not None


def test_many_players_reporting_one_in_a_day_files_a_signal_report(bob, settings):
    settings.REPORTS_BURST_COUNT = 3
    reporters = UserFactory.create_batch(4)
    for reporter in reporters[:2]:
        services.report_file(reporter=reporter, reason="abusive_chat", username="bob")
    assert not Report.objects.filter(source=ReportSource.SIGNAL).exists()

    services.report_file(reporter=reporters[2], reason="cheating", username="bob")
    services.report_file(reporter=reporters[3], reason="cheating", username="bob")

    [burst] = Report.objects.filter(source=ReportSource.SIGNAL)
    assert (burst.user, burst.reason, burst.reporter, burst.target) == (
        bob,
        ReportReason.OTHER,
        None,
        services.BURST_TARGET,
    )
    assert burst.comment == "3 players reported bob within 24 h (abusive chat: 2, cheating: 1)."


def test_a_handled_burst_is_not_counted_again(bob, settings):
    settings.REPORTS_BURST_COUNT = 2
    reporters = UserFactory.create_batch(3)
    for reporter in reporters[:2]:
        services.report_file(reporter=reporter, reason="spam", username="bob")
    Report.objects.filter(source=ReportSource.SIGNAL).update(status="handled", outcome="dismissed")

    services.report_file(reporter=reporters[2], reason="spam", username="bob")

    assert Report.objects.filter(source=ReportSource.SIGNAL).count() == 1


# --- messages ----------------------------------------------------------------------------------


def chat(game, user, body, room="players"):
    return chat_services.game_message_post(user=user, game_id=game.pk, room=room, body=body)


def test_a_player_reports_a_message_of_the_game_chat(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    message = chat(game, bob, "You play like a potato.")

    report = services.report_file(reporter=alice, reason="abusive_chat", game_message_id=message.pk)

    assert (report.user, report.game, report.game_message, report.target) == (
        bob,
        game,
        message,
        f"game_message:{message.pk}",
    )
    refusal("self", reporter=bob, reason="abusive_chat", game_message_id=message.pk)


def test_a_chat_message_the_reporter_could_not_read_is_not_found(alice, bob, carol):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    players_only = chat(game, bob, "Hello there.")
    flagged = chat(game, bob, "You are a piece of shit.")
    assert flagged.hidden

    # carol watches, but the players' room is theirs while the game goes on
    refusal("not_found", reporter=carol, reason="spam", game_message_id=players_only.pk)
    # a flagged message is hidden from alice (and reported by the screening already)
    refusal("not_found", reporter=alice, reason="abusive_chat", game_message_id=flagged.pk)
    refusal("not_found", reporter=alice, reason="spam", game_message_id=flagged.pk + 100)


def test_a_guest_reports_a_message_they_read(alice, bob, carol):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    message = chat(game, carol, "Buy cheap gold at example.com", room="spectators")
    guest = UserFactory(is_guest=True)

    report = services.report_file(reporter=guest, reason="spam", game_message_id=message.pk)

    assert (report.reporter, report.user) == (guest, carol)


def test_a_friend_reports_a_direct_message(alice, bob, carol):
    befriend(alice, bob)
    conversation = conversation_services.conversation_start(user=bob, username="alice")
    message = conversation_services.direct_message_send(
        user=bob, conversation_id=conversation.pk, body="Rematch or you are a coward."
    )

    report = services.report_file(reporter=alice, reason="other", direct_message_id=message.pk)

    assert (report.user, report.direct_message, report.game, report.target) == (
        bob,
        message,
        None,
        f"direct_message:{message.pk}",
    )
    refusal("not_found", reporter=carol, reason="other", direct_message_id=message.pk)
    refusal("self", reporter=bob, reason="other", direct_message_id=message.pk)


def test_one_target_at_a_time(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    message = chat(game, bob, "Hi.")

    refusal(
        "one_target", reporter=alice, reason="spam", game_id=game.pk, game_message_id=message.pk
    )
    refusal("one_target", reporter=alice, reason="spam", username="bob", game_message_id=message.pk)
