"""The automatic signals filed as reports: a message the screening flagged, rating farming
(the ratings' flags), stalling (live games lost on time), each filed once while it is open."""

from datetime import timedelta

import pytest

from greycircle.chat import services as chat_services
from greycircle.chat.models import GameMessage
from greycircle.chat.signals import message_flagged
from greycircle.conversations import services as conversation_services
from greycircle.games import flags, services
from greycircle.games.clocks import TimeControl
from greycircle.games.services import SeatSpec
from greycircle.moderation.models import Flag
from greycircle.reports.models import Report, ReportReason, ReportSource
from tests.factories import befriend, game_started
from tests.games.conftest import live_past_first_turns

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """`with committed(): change`: what waits for the change's commit runs as it ends (the
    test's transaction never commits)."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def test_a_chat_message_the_screening_flagged_is_reported_once(alice, bob, committed):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    with committed():
        message = chat_services.game_message_post(
            user=bob, game_id=game.pk, room="players", body="You are a piece of shit."
        )
    assert message.hidden

    [report] = Report.objects.all()
    assert (report.user, report.reporter, report.source, report.reason) == (
        bob,
        None,
        ReportSource.SCREENING,
        ReportReason.ABUSIVE_CHAT,
    )
    assert (report.game_message, report.game, report.target) == (
        message,
        game,
        f"game_message:{message.pk}",
    )
    assert report.comment.startswith("The screening flagged the message (")

    message_flagged.send(sender=GameMessage, message=message, reason="again")
    assert Report.objects.count() == 1


def test_a_direct_message_the_screening_flagged_is_reported(alice, bob, committed):
    befriend(alice, bob)
    conversation = conversation_services.conversation_start(user=bob, username="alice")
    with committed():
        message = conversation_services.direct_message_send(
            user=bob, conversation_id=conversation.pk, body="shit player"
        )

    [report] = Report.objects.all()
    assert (report.user, report.source, report.direct_message, report.target) == (
        bob,
        ReportSource.SCREENING,
        message,
        f"direct_message:{message.pk}",
    )


def lose_quickly(loser, winner, committed):
    game = game_started(creator=winner, kind="tictactoe", opponents=[SeatSpec(user=loser)])
    with committed():
        services.game_resign(game_id=game.pk, user=loser)
    return game


def test_rating_farming_flagged_by_the_ratings_is_reported_once_per_flag(alice, bob, committed):
    for _ in range(2):
        lose_quickly(bob, alice, committed)
    assert not Report.objects.exists()

    third = lose_quickly(bob, alice, committed)
    [flag] = Flag.objects.all()
    [report] = Report.objects.all()
    assert (report.user, report.source, report.reason, report.game) == (
        alice,
        ReportSource.SIGNAL,
        ReportReason.SANDBAGGING,
        third,
    )
    assert (report.target, report.comment) == (f"flag:{flag.pk}", flag.description)

    lose_quickly(bob, alice, committed)  # the flag grows: its report stays the one
    assert Report.objects.count() == 1


def lose_on_time(loser, winner, committed):
    """A live game in which both moved, `loser`'s flag falling."""
    game = live_past_first_turns(creator=loser, opponent=winner, time_control=TimeControl(1, 0))
    with committed():
        fallen = flags.flags_fall(now=game.flag_at + timedelta(milliseconds=1))
    assert fallen == {game.pk: flags.FLAG_TIMEOUT}
    return game


def test_a_player_who_lets_live_games_run_out_of_time_is_reported(alice, bob, settings, committed):
    settings.REPORTS_STALLING_COUNT = 2
    first = lose_on_time(alice, bob, committed)
    assert not Report.objects.filter(reason=ReportReason.STALLING).exists()

    second = lose_on_time(alice, bob, committed)

    [report] = Report.objects.filter(reason=ReportReason.STALLING)
    assert (report.user, report.source, report.reason, report.game) == (
        alice,
        ReportSource.SIGNAL,
        ReportReason.STALLING,
        second,
    )
    assert report.comment == (
        f"alice lost 2 live games on time within 24 h after moving in them: "
        f"#{first.pk}, #{second.pk}."
    )
    lose_on_time(alice, bob, committed)  # still open: no second report
    assert Report.objects.filter(reason=ReportReason.STALLING).count() == 1


def test_games_a_handled_stalling_report_counted_are_not_counted_again(
    alice, bob, settings, committed
):
    settings.REPORTS_STALLING_COUNT = 2
    for _ in range(2):
        lose_on_time(alice, bob, committed)
    Report.objects.update(status="handled", outcome="dismissed")

    lose_on_time(alice, bob, committed)

    assert Report.objects.filter(reason=ReportReason.STALLING).count() == 1
