"""Live games' clocks: the arithmetic of a move's charge, the first turn's limit, the flag.

Time is never waited for: a clock's stretch is moved back in the database, moves carry the
`arrived_at` a server would stamp them with, and the flag's sweep takes `now=`.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from greycircle.games import flags, selectors, services
from greycircle.games.clocks import TimeControl, time_control_check
from greycircle.games.errors import GameInvalid
from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec
from tests.factories import game_started
from tests.games.conftest import refusal

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

LAG = 300  # GAMES_CLOCK_LAG_ALLOWANCE_MS, the default
MINUTE = 60_000


@pytest.fixture
def blitz(alice, bob):
    """alice (seat 0, to move) against bob at 1+2."""
    return game_started(
        creator=alice,
        kind="tictactoe",
        opponents=[SeatSpec(user=bob)],
        time_control=TimeControl(1, 2),
    )


def fresh(game: Game) -> Game:
    return Game.objects.with_seats().get(pk=game.pk)


def stretch_began(game: Game, *, ago: timedelta) -> Game:
    """The game with the running seat's clock started `ago`."""
    Game.objects.filter(pk=game.pk).update(clock_started_at=timezone.now() - ago)
    return fresh(game)


def play(game: Game, user, cell: int, **kwargs) -> Game:
    return services.move_submit(
        game_id=game.pk, user=user, move={"cell": cell}, expected_version=game.version, **kwargs
    )


def past_first_turns(game: Game, alice, bob) -> Game:
    """Both players' first moves played (which their clocks do not count)."""
    game = play(game, alice, 0)
    return play(fresh(game), bob, 4)


# --- time controls -------------------------------------------------------------------------------


def test_a_time_control_is_one_to_sixty_minutes_and_zero_to_sixty_seconds():
    assert TimeControl.parse("3+2") == TimeControl(3, 2)
    assert TimeControl(3, 2).label == "3+2"
    assert (TimeControl(3, 2).initial_ms, TimeControl(3, 2).increment_ms) == (180_000, 2000)
    for minutes, increment in ((0, 0), (61, 0), (5, 61), (5, -1)):
        with pytest.raises(ValueError, match=r"minutes|increment"):
            time_control_check(minutes=minutes, increment=increment)
    with pytest.raises(ValueError, match=r"minutes\+seconds"):
        TimeControl.parse("three")


def test_a_live_game_starts_with_full_clocks_and_no_days_per_move(blitz):
    assert blitz.speed == "live"
    assert blitz.move_deadline is None
    clock = selectors.game_summary_for(game=blitz, viewer=None)["clock"]
    assert clock["time_control"] == "1+2"
    assert clock["remaining_ms"] == [MINUTE, MINUTE]
    assert clock["running"] == 0
    # The first turn has its own limit, not the clock.
    assert clock["first_move_deadline"] == blitz.flag_at
    assert blitz.flag_at - blitz.clock_started_at == timedelta(seconds=30)


def test_a_correspondence_game_has_no_clock(alice, bob):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    summary = selectors.game_summary_for(game=game, viewer=alice)
    assert (summary["speed"], summary["clock"], game.flag_at) == ("correspondence", None, None)
    assert game.move_deadline is not None


# --- a move's charge -----------------------------------------------------------------------------


def test_first_moves_cost_nothing_and_then_the_clock_runs(blitz, alice, bob):
    game = stretch_began(blitz, ago=timedelta(seconds=20))
    game = play(game, alice, 0)
    assert game.clock_remaining_ms == [MINUTE, MINUTE]
    assert game.clock_moved == [True, False]
    game = play(fresh(game), bob, 4)
    assert game.clock_moved == [True, True]
    # alice's clock runs now, from the commit of bob's move.
    assert game.flag_at == game.clock_started_at + timedelta(milliseconds=MINUTE + LAG)


def test_a_move_is_charged_its_time_less_the_lag_allowance_plus_the_increment(blitz, alice, bob):
    game = stretch_began(past_first_turns(blitz, alice, bob), ago=timedelta(seconds=10))
    arrived = game.clock_started_at + timedelta(seconds=10)
    game = play(game, alice, 1, arrived_at=arrived)
    assert game.clock_remaining_ms[0] == MINUTE - (10_000 - LAG) + 2000
    assert game.clock_remaining_ms[1] == MINUTE
    assert game.flag_at == game.clock_started_at + timedelta(milliseconds=MINUTE + LAG)


def test_a_move_within_the_lag_allowance_costs_nothing_but_still_earns_the_increment(
    blitz, alice, bob
):
    game = past_first_turns(blitz, alice, bob)
    game = play(game, alice, 1, arrived_at=game.clock_started_at + timedelta(milliseconds=LAG))
    assert game.clock_remaining_ms[0] == MINUTE + 2000


def test_the_envelope_shows_who_runs_since_when(blitz, alice, bob):
    game = past_first_turns(blitz, alice, bob)
    clock = selectors.game_view_for(game=game, viewer=bob)["clock"]
    assert clock["running"] == 0
    assert clock["running_since"] == game.clock_started_at
    assert clock["first_move_deadline"] is None
    assert clock["server_time"] >= game.clock_started_at
    assert clock["lag_allowance_ms"] == LAG


# --- the flag --------------------------------------------------------------------------------


def test_the_flag_falls_with_no_request_and_the_player_loses_on_time(blitz, alice, bob):
    game = past_first_turns(blitz, alice, bob)
    assert flags.flags_fall(now=game.flag_at - timedelta(milliseconds=1)) == {}

    assert flags.flags_fall(now=game.flag_at) == {game.pk: flags.FLAG_TIMEOUT}

    game = fresh(game)
    assert game.status == GameStatus.FINISHED
    assert game.outcome["winners"] == [1]
    assert game.outcome["reason"] == "timeout"
    assert game.clock_remaining_ms[0] == 0
    assert game.flag_at is None
    # Once fallen, it falls no more.
    assert flags.flags_fall(now=game.finished_at + timedelta(minutes=5)) == {}


def test_a_first_turn_past_its_limit_aborts_the_game_unrated(blitz):
    assert flags.flags_fall(now=blitz.flag_at) == {blitz.pk: flags.FLAG_ABORTED}
    game = fresh(blitz)
    assert (game.status, game.flag_at) == (GameStatus.ABORTED, None)
    assert game.outcome == {"reason": "no_first_move", "seat": 0}


def test_a_move_that_arrives_after_the_flag_is_not_played_and_ends_the_game(blitz, alice, bob):
    game = past_first_turns(blitz, alice, bob)
    code = refusal(
        GameInvalid,
        services.move_submit,
        game_id=game.pk,
        user=alice,
        move={"cell": 1},
        expected_version=game.version,
        arrived_at=game.flag_at + timedelta(milliseconds=1),
    ).code
    assert code == "time_up"
    game = fresh(game)
    assert game.status == GameStatus.FINISHED
    assert game.outcome["winners"] == [1]
    assert game.move_count == 2


def test_a_move_that_arrives_just_before_the_flag_is_played(blitz, alice, bob):
    game = past_first_turns(blitz, alice, bob)
    game = play(game, alice, 1, arrived_at=game.flag_at - timedelta(milliseconds=1))
    assert game.status == GameStatus.ACTIVE
    assert game.clock_remaining_ms[0] == 1 + 2000  # a millisecond left, and the increment
    assert flags.flags_fall(now=timezone.now()) == {}


def test_a_rematch_keeps_the_time_control_and_rating(blitz, alice, bob):
    game = past_first_turns(blitz, alice, bob)
    flags.flags_fall(now=game.flag_at)
    rematch = services.game_rematch(game_id=game.pk, user=bob)
    assert (rematch.clock_initial_ms, rematch.clock_increment_ms) == (MINUTE, 2000)
    assert rematch.rated is True


def test_an_imported_record_cannot_be_live(alice):
    code = refusal(
        GameInvalid,
        services.game_create,
        creator=alice,
        kind="circles",
        opponents=[SeatSpec(ai_level="easy")],
        record="f5",
        time_control=TimeControl(5, 0),
    ).code
    assert code == "bad_time_control"
