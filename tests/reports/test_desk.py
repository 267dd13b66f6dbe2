"""The desk's selectors (greycircle.reports.desk): the queue of open reports by player, and the
evidence of a case."""

import pytest

from greycircle.games.services import SeatSpec, game_resign
from greycircle.reports import desk
from greycircle.reports.models import ReportReason, ReportSource, ReportStatus
from tests.factories import UserFactory, game_started
from tests.reports.desk_helpers import chat_lines, conversation_lines, report

pytestmark = pytest.mark.django_db


def test_the_queue_groups_open_reports_by_player_oldest_first(alice, bob, carol, staff):
    report(bob, reporter=alice, ago_hours=2, target="a")
    report(bob, reporter=carol, reason=ReportReason.SPAM, ago_hours=1, target="b")
    report(bob, reporter=alice, reason=ReportReason.SPAM, ago_hours=0, target="c")
    report(carol, reporter=alice, ago_hours=5, assigned_to=staff)
    handled = report(alice, reporter=bob, ago_hours=9)
    handled.status, handled.outcome = ReportStatus.HANDLED, "dismissed"
    handled.save()

    queue = desk.report_queue(viewer=staff)

    assert [entry.user for entry in queue] == [carol, bob]  # alice's report is handled
    carol_entry, bob_entry = queue
    assert bob_entry.count == 3
    assert bob_entry.reasons == [("Spam", 2), ("Abusive chat", 1)]
    assert bob_entry.sources == [("A player", 3)]
    assert bob_entry.oldest < bob_entry.newest
    assert bob_entry.assigned_to == []
    assert carol_entry.assigned_to == ["staffer"]


def test_the_queue_filters_players_and_still_counts_all_their_open_reports(
    alice, bob, carol, staff
):
    other = UserFactory(is_staff=True)
    report(bob, reporter=alice, target="a", assigned_to=staff)
    report(bob, reporter=carol, reason=ReportReason.SPAM, target="b")
    report(carol, reason=ReportReason.SANDBAGGING, source=ReportSource.SIGNAL)
    report(alice, reporter=bob, assigned_to=other)

    def users(**filters):
        return [entry.user for entry in desk.report_queue(viewer=staff, **filters)]

    assert users(assigned="mine") == [bob]
    assert users(assigned="unassigned") == [carol]
    assert users(reason="spam") == [bob]
    assert desk.report_queue(viewer=staff, reason="spam")[0].count == 2
    assert users(source="signal") == [carol]
    assert users(reason="no-such-reason") == [bob, carol, alice]


def test_games_against_the_same_accounts_show_quick_losses(alice, bob, carol, tictactoe):
    for _ in range(3):
        game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
        game_resign(game_id=game.pk, user=bob)  # no move made: a quick loss of bob's
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=carol)])
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])

    first, second = desk.player_opponents(user_id=alice.pk)

    assert (first.user, first.games, first.won, first.lost, first.quick_wins) == (bob, 3, 3, 0, 3)
    assert (second.user, second.games, second.won, second.lost) == (carol, 1, 0, 0)
    [seen_from_bob] = desk.player_opponents(user_id=bob.pk)
    assert (seen_from_bob.user, seen_from_bob.lost, seen_from_bob.quick_losses) == (alice, 3, 3)


def test_a_reported_game_message_comes_with_its_room_s_messages_around_it(alice, bob, tictactoe):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    lines = chat_lines(game, bob, alice, 9)
    chat_lines(game, alice, bob, 2, room="spectators")  # another room: not its context
    lines[3].hidden = True  # flagged: shadow-hidden, shown to staff marked
    lines[3].save()
    filed = report(bob, reporter=alice, game_message=lines[4], game=game)

    context = desk.message_context(report=filed)

    assert [line.body for line in context.lines] == [f"line {n}" for n in range(1, 8)]
    assert [line.reported for line in context.lines] == [n == 4 for n in range(1, 8)]
    assert [line.hidden for line in context.lines] == [n == 3 for n in range(1, 8)]
    assert context.game_id == game.pk
    assert f"game #{game.pk}" in context.where


def test_a_reported_direct_message_comes_with_its_conversation_around_it(alice, bob):
    lines = conversation_lines(bob, alice, 3)
    filed = report(bob, reporter=alice, direct_message=lines[0])

    context = desk.message_context(report=filed)

    assert [(line.author, line.body) for line in context.lines] == [
        ("bob", "note 0"),
        ("alice", "note 1"),
        ("bob", "note 2"),
    ]
    assert context.where == "the conversation between alice and bob"
    assert desk.message_context(report=report(bob, reporter=alice, target="profile")) is None
