"""Time per move: deadlines, reminders, claiming the win, computer takeover, the periodic check.

Time is never waited for: the check and the claim take `now=`, or deadlines are moved back in the
database.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from django.utils import timezone

from greycircle.games import deadlines, registry, selectors, services
from greycircle.games.deadlines import deadlines_check, game_claim_win, time_left_words
from greycircle.games.errors import GameInvalid, GamePermissionDenied
from greycircle.games.events import jsonable
from greycircle.games.models import DeadlineNotice, Game, GameStatus, Move
from greycircle.games.services import SeatSpec
from greycircle.ratings.models import RatingChange
from tests.factories import game_started
from tests.games.conftest import refusal

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

DAY = timedelta(days=1)


@pytest.fixture
def duel(alice, bob):
    """alice (seat 0, to move) against bob, three days per move."""
    return game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])


def fresh(game: Game) -> Game:
    return Game.objects.with_seats().get(pk=game.pk)


def time_up(game: Game, *, ago: timedelta = timedelta(seconds=1)) -> Game:
    """The game with the time of its player to move run out `ago`."""
    Game.objects.filter(pk=game.pk).update(move_deadline=timezone.now() - ago)
    return fresh(game)


def play(game: Game, user, cell: int) -> Game:
    return services.move_submit(
        game_id=game.pk, user=user, move={"cell": cell}, expected_version=game.version
    )


# --- the deadline --------------------------------------------------------------------------------


def close_to(moment, expected) -> bool:
    return abs(moment - expected) < timedelta(minutes=1)


def test_the_deadline_starts_with_the_game_and_again_with_every_move(duel, alice, bob):
    assert duel.days_per_move == 3
    assert (duel.status, duel.to_move) == (GameStatus.ACTIVE, 0)
    assert close_to(duel.move_deadline, timezone.now() + 3 * DAY)

    Game.objects.filter(pk=duel.pk).update(
        move_deadline=timezone.now() + timedelta(hours=2), deadline_notice=DeadlineNotice.REMINDED
    )
    moved = play(fresh(duel), alice, 4)

    assert moved.to_move == 1
    assert close_to(moved.move_deadline, timezone.now() + 3 * DAY)
    assert moved.deadline_notice == DeadlineNotice.NONE


@pytest.mark.parametrize("days", [1, 7])
def test_the_time_per_move_is_chosen_when_the_game_is_created_and_a_rematch_keeps_it(
    alice, bob, days
):
    game = game_started(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)], days_per_move=days
    )
    assert game.days_per_move == days
    assert close_to(game.move_deadline, timezone.now() + days * DAY)

    services.game_resign(game_id=game.pk, user=bob)
    rematch = services.game_rematch(game_id=game.pk, user=alice)
    assert rematch.days_per_move == days


def test_a_time_per_move_other_than_1_3_or_7_days_is_refused(alice, bob):
    code = refusal(
        GameInvalid,
        services.game_create,
        creator=alice,
        kind="tictactoe",
        opponents=[SeatSpec(ai_level="first")],
        days_per_move=2,
    ).code
    assert code == "bad_days_per_move"


def test_no_time_runs_against_computers_nor_for_a_game_waiting_for_players(alice, bob):
    against_computer = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )
    waiting = services.game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec()])

    assert against_computer.status == GameStatus.ACTIVE
    assert against_computer.move_deadline is None
    assert waiting.move_deadline is None
    joined = services.game_join(game_id=waiting.pk, user=bob)
    assert joined.move_deadline is not None


def test_the_deadline_ends_with_the_game(duel, alice, bob):
    for cell, player in zip([0, 3, 1, 4, 2], [alice, bob] * 3, strict=False):
        game = play(fresh(duel), player, cell)
    assert game.status == GameStatus.FINISHED
    assert game.move_deadline is None

    other = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    assert services.game_resign(game_id=other.pk, user=bob).move_deadline is None
    third = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    assert services.game_abort(game_id=third.pk).move_deadline is None


# --- reminders -----------------------------------------------------------------------------------


def test_the_player_to_move_is_reminded_once_a_day_before_time_runs_out(
    duel, alice, notifications, deliver_notifications
):
    deadline = duel.move_deadline
    deliver_notifications()  # the game's start: not under test
    notifications.clear()
    assert not deadlines_check(now=deadline - DAY - timedelta(minutes=1))

    checked = deadlines_check(now=deadline - DAY + timedelta(minutes=1))
    deliver_notifications()
    assert checked.reminded == [duel.pk]
    assert notifications == [
        (
            alice.pk,
            "time_running_out",
            # As JSON, as it is told (greycircle.games.signals) and as `ws/me/` sends it.
            jsonable(
                {
                    "game": duel.pk,
                    "kind": "tictactoe",
                    "version": duel.version,
                    "deadline": deadline,
                }
            ),
        )
    ]
    assert fresh(duel).version == duel.version  # nothing a page shows has changed

    assert not deadlines_check(now=deadline - timedelta(hours=1))
    deliver_notifications()
    assert len(notifications) == 1


def test_a_one_day_game_reminds_half_a_day_before(alice, bob):
    game = game_started(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)], days_per_move=1
    )
    assert not deadlines_check(now=game.move_deadline - timedelta(hours=13))
    assert deadlines_check(now=game.move_deadline - timedelta(hours=11)).reminded == [game.pk]


# --- claiming the win ----------------------------------------------------------------------------


def test_claiming_a_win_before_time_is_up_is_refused(duel, bob):
    with pytest.raises(GameInvalid) as refused:
        game_claim_win(game_id=duel.pk, user=bob)

    assert refused.value.code == "time_not_up"
    assert refused.value.detail.startswith("alice still has time to move: 2 days 23 hours")
    assert 3 * 86400 - 120 < refused.value.extra["retry_after"] <= 3 * 86400
    assert refused.value.extra["deadline"] == duel.move_deadline
    assert fresh(duel).status == GameStatus.ACTIVE
    assert not selectors.can_claim_for(game=fresh(duel), seat=1)


def test_only_another_player_of_the_game_may_claim(duel, alice, carol):
    time_up(duel)
    assert refusal(GamePermissionDenied, game_claim_win, game_id=duel.pk, user=carol).code == (
        "not_a_player"
    )
    assert refusal(GameInvalid, game_claim_win, game_id=duel.pk, user=alice).code == "your_turn"


def test_when_time_is_up_the_opponent_claims_the_win(duel, alice, bob):
    game = time_up(duel)
    assert selectors.game_view_for(game=game, viewer=bob)["can_claim"] is True
    assert selectors.game_view_for(game=game, viewer=alice)["can_claim"] is False
    assert selectors.game_view_for(game=game, viewer=None)["can_claim"] is False

    won = game_claim_win(game_id=duel.pk, user=bob)

    assert won.status == GameStatus.FINISHED
    assert won.outcome == {
        "scores": [0, 0],
        "winners": [1],
        "reason": "timeout",
        "rating": {
            "rated": False,
            "reason": "too_short",
            "detail": "Not rated: a game is rated once every player has made 2 moves.",
            "changes": [],
        },
    }
    assert won.move_deadline is None
    assert won.version == duel.version + 1
    assert not RatingChange.objects.filter(game=won).exists(), "nobody had moved"
    assert refusal(GameInvalid, game_claim_win, game_id=duel.pk, user=bob).code == "game_not_active"


def test_the_claim_takes_a_now_and_the_late_player_may_still_move_until_claimed(duel, alice, bob):
    moved = play(time_up(duel), alice, 4)
    late = timezone.now() + timedelta(hours=1)
    # A new deadline: bob's own, so nobody can claim.
    assert refusal(GameInvalid, game_claim_win, game_id=duel.pk, user=alice, now=late).code == (
        "time_not_up"
    )
    assert refusal(GameInvalid, game_claim_win, game_id=duel.pk, user=bob, now=late).code == (
        "your_turn"
    )
    assert moved.to_move == 1


def test_nobody_claims_against_a_computer(alice):
    game = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )
    game = play(game, alice, 4)  # the computer is to move
    assert refusal(GameInvalid, game_claim_win, game_id=game.pk, user=alice).code == "no_deadline"


# --- the periodic check: time up ---------------------------------------------------------------


def test_when_time_is_up_the_check_tells_the_opponent_once_and_every_page(
    duel,
    alice,
    bob,
    notifications,
    django_capture_on_commit_callbacks,
    deliver_notifications,
    monkeypatch,
):
    published = []
    monkeypatch.setattr(
        "greycircle.games.events.game_envelopes_send", lambda *, game: published.append(game.pk)
    )
    now = duel.move_deadline + timedelta(seconds=1)
    deliver_notifications()  # the game's start: not under test
    notifications.clear()

    with django_capture_on_commit_callbacks(execute=True):
        checked = deadlines_check(now=now)
    deliver_notifications()
    assert checked.claimable == [duel.pk]
    assert checked.reminded == []  # too late for a reminder
    assert notifications == [
        (bob.pk, "win_claimable", {"game": duel.pk, "kind": "tictactoe", "player": "alice"})
    ]
    assert published == [duel.pk]
    game = fresh(duel)
    assert game.version == duel.version + 1
    assert game.status == GameStatus.ACTIVE  # until bob claims it

    with django_capture_on_commit_callbacks(execute=True):
        assert not deadlines_check(now=now + DAY)
    deliver_notifications()
    assert len(notifications) == 1
    assert published == [duel.pk]


def test_the_check_leaves_a_game_alone_whose_player_moved_in_time(duel, alice):
    play(time_up(duel), alice, 4)
    assert not deadlines_check(now=timezone.now() + timedelta(hours=1))


def test_time_left_in_words_never_says_more_than_there_is():
    assert time_left_words(3 * DAY - timedelta(seconds=5)) == "2 days 23 hours left"
    assert time_left_words(DAY + timedelta(minutes=10)) == "1 day left"
    assert time_left_words(timedelta(hours=5, minutes=59)) == "5 hours left"
    assert time_left_words(timedelta(minutes=1, seconds=30)) == "1 minute left"
    assert time_left_words(timedelta(seconds=30)) == "less than a minute left"
    assert time_left_words(timedelta(0)) == "time is up"
    assert time_left_words(-DAY) == "time is up"


# --- King's Corner: a computer takes over --------------------------------------------------------


@pytest.fixture
def table(alice, bob, carol):
    """King's Corner for three people; alice (seat 0) is to move."""
    game = game_started(
        creator=alice,
        kind="kingscorner",
        opponents=[SeatSpec(user=bob), SeatSpec(user=carol)],
    )
    assert game.to_move == 0
    return game


def test_in_kings_corner_for_two_the_win_is_claimed_as_anywhere(alice, bob):
    game = game_started(creator=alice, kind="kingscorner", opponents=[SeatSpec(user=bob)])
    assert selectors.takeover_level_for(game=game) is None
    won = game_claim_win(game_id=game.pk, user=bob, now=game.move_deadline)
    assert won.outcome["winners"] == [1]


def test_in_kings_corner_for_three_nobody_wins_on_time(table, bob):
    game = time_up(table)
    assert selectors.game_view_for(game=game, viewer=bob)["can_claim"] is False
    assert refusal(GameInvalid, game_claim_win, game_id=table.pk, user=bob).code == (
        "takeover_instead"
    )


@pytest.mark.django_db(transaction=True)
def test_in_kings_corner_for_three_a_computer_takes_the_absent_players_seat_and_plays(
    table, alice, bob, carol, run_tasks, monkeypatch
):
    # The computer that takes over ends its turn at once: what it plays is the AI's business
    # (a real one may, rarely, go out in its first turn and end the game); this test is about the
    # seat changing hands.
    kind = registry.get("kingscorner")
    end_turn = kind.rules.parse_move({"action": "end_turn"})
    monkeypatch.setitem(
        registry._KINDS,
        "kingscorner",
        dataclasses.replace(kind, computer=lambda state, **thinking: end_turn),
    )
    now = table.move_deadline + timedelta(seconds=1)

    checked = deadlines_check(now=now)

    assert checked.taken_over == [table.pk]
    game = fresh(table)
    seat = game.seats.all()[0]
    assert (seat.user, seat.ai_level, seat.taken_over_at) == (alice, "normal", now)
    assert seat.name == "alice (computer)"
    assert game.move_deadline is None  # a computer is to move
    # alice still sees the game from her seat, but may no longer play it.
    envelope = selectors.game_view_for(game=game, viewer=alice)
    assert envelope["you"] == 0
    assert envelope["legal_moves"] == []
    assert envelope["seats"][0]["taken_over"] is True
    assert envelope["seats"][0]["user"] == "alice"
    code = refusal(
        GamePermissionDenied,
        services.move_submit,
        game_id=game.pk,
        user=alice,
        move={"action": "end_turn"},
        expected_version=game.version,
    ).code
    assert code == "seat_taken_over"
    assert not selectors.games_for_user(user=alice, which="my_turn").exists()
    assert not deadlines_check(now=now)

    run_tasks()  # the computer plays alice's turn

    game = fresh(game)
    assert Move.objects.filter(game=game, seat=0, player=None).exists()
    assert game.to_move == 1
    assert close_to(game.move_deadline, timezone.now() + 3 * DAY)  # bob's time runs
    assert list(selectors.games_for_user(user=bob, which="my_turn")) == [game]


def test_a_rematch_invites_a_taken_over_player_again_as_a_person(table, alice, bob):
    deadlines_check(now=table.move_deadline + timedelta(seconds=1))
    services.game_resign(game_id=table.pk, user=bob)

    rematch = services.game_rematch(game_id=table.pk, user=bob)

    seats = {seat.user_id: seat.ai_level for seat in rematch.seats.all()}
    assert seats == {alice.pk: "", bob.pk: "", table.seats.all()[2].user_id: ""}


# --- the worker runs the check -----------------------------------------------------------------


def test_the_workers_periodic_sweeps_check_the_deadlines(duel):
    from greycircle.runtime.sweeps import sweeps_registered

    time_up(duel)
    for sweep in sweeps_registered():  # one round of every worker's sweeps
        sweep.run()

    assert fresh(duel).deadline_notice == DeadlineNotice.EXPIRED


def test_a_broken_game_does_not_stop_the_check_of_the_others(alice, bob, carol, monkeypatch):
    first = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    second = game_started(creator=carol, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    for game in (first, second):
        time_up(game)
    handle = deadlines._deadline_handle

    def broken(game_id, *, now):
        if game_id == first.pk:
            raise RuntimeError("broken")
        return handle(game_id, now=now)

    monkeypatch.setattr(deadlines, "_deadline_handle", broken)
    assert deadlines_check().claimable == [second.pk]


def test_the_migration_gives_games_in_play_between_people_a_first_deadline(duel, alice):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("greycircle.games.migrations.0006_deadlines")
    computer = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )
    Game.objects.update(move_deadline=None)

    migration.deadlines_start(apps, None)

    assert close_to(fresh(duel).move_deadline, timezone.now() + 3 * DAY)
    assert fresh(computer).move_deadline is None
