"""The flag's fall: takeover on time in King's Corner for three, and a move racing the flag (one of
them wins, the same way for everybody). The flag falling on its own in worker processes is
tests/games/test_clock_loop.py."""

from __future__ import annotations

import dataclasses
import threading
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from greycircle.games import flags, registry, results, selectors, services
from greycircle.games.clocks import TimeControl
from greycircle.games.errors import GameError
from greycircle.games.models import Game, GameStatus, Move
from greycircle.games.services import SeatSpec
from greycircle.notifications.models import Notification, NotificationKind
from greycircle.players.data import account_data_export
from greycircle.players.serializers import GameDataSerializer
from greycircle.profiles.selectors import profile_statistics
from greycircle.ratings.models import RatingChange
from tests.factories import game_started
from tests.games.conftest import live_past_first_turns

LAG = 300  # GAMES_CLOCK_LAG_ALLOWANCE_MS, the default


def fresh(game: Game) -> Game:
    return Game.objects.with_seats().get(pk=game.pk)


def end_turn(game: Game, user) -> Game:
    return services.move_submit(
        game_id=game.pk, user=user, move={"action": "end_turn"}, expected_version=game.version
    )


# --- King's Corner for three: the computer takes over ----------------------------------------


@pytest.mark.django_db(transaction=True)
def test_in_kings_corner_for_three_the_computer_takes_over_a_seat_out_of_time(
    alice, bob, carol, run_tasks, monkeypatch
):
    # The computer ends its turn at once: what it plays is the AI's business.
    kind = registry.get("kingscorner")
    monkeypatch.setitem(
        registry._KINDS,
        "kingscorner",
        dataclasses.replace(
            kind, computer=lambda state, **thinking: kind.rules.parse_move({"action": "end_turn"})
        ),
    )
    game = game_started(
        creator=alice,
        kind="kingscorner",
        opponents=[SeatSpec(user=bob), SeatSpec(user=carol)],
        time_control=TimeControl(3, 5),
    )
    for user in (alice, bob, carol):  # everybody's first turn, which the clocks do not count
        game = end_turn(fresh(game), user)
    game = fresh(game)
    assert (game.to_move, game.clock_moved) == (0, [True, True, True])

    assert flags.flags_fall(now=game.flag_at) == {game.pk: flags.FLAG_TAKEN_OVER}

    game = fresh(game)
    seat = game.seats.all()[0]
    assert (seat.user, seat.ai_level) == (alice, "normal")
    assert game.status == GameStatus.ACTIVE
    stopped = game.clock_remaining_ms[0]
    assert stopped == 0
    assert game.flag_at is None  # the computer plays alice's seat: no clock runs
    assert selectors.game_view_for(game=game, viewer=bob)["can_claim"] is False

    run_tasks()  # the computer plays alice's turn

    game = fresh(game)
    assert Move.objects.filter(game=game, seat=0, player=None).exists()
    assert game.to_move == 1
    # alice's clock stays stopped (no increment for the computer's turn); bob's runs.
    assert game.clock_remaining_ms[0] == stopped
    assert game.flag_at == game.clock_started_at + timedelta(
        milliseconds=game.clock_remaining_ms[1] + LAG
    )


# --- a move racing the flag --------------------------------------------------------------------


@pytest.fixture
def blitz_past_first_turns(alice, bob, tictactoe):
    """A factory: alice (to move) against bob at 1+0, both past their first moves."""

    def make() -> Game:
        return live_past_first_turns(creator=alice, opponent=bob, time_control=TimeControl(1, 0))

    return make


def race(game: Game, alice, *, arrives: timedelta) -> tuple[str, dict]:
    """alice's move arriving `arrives` after the flag, and the clocks' loop looking just after
    it, at once in two threads; what the move got ("played" or its error code), and the
    loop's result."""
    start = threading.Barrier(2)
    results: dict[str, object] = {}

    def move() -> None:
        start.wait()
        try:
            services.move_submit(
                game_id=game.pk,
                user=alice,
                move={"cell": 1},
                expected_version=game.version,
                arrived_at=game.flag_at + arrives,
            )
            results["move"] = "played"
        except GameError as error:
            results["move"] = error.code
        finally:
            connections.close_all()

    def loop() -> None:
        start.wait()
        try:
            results["loop"] = flags.flags_fall(now=game.flag_at + timedelta(milliseconds=1))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=move), threading.Thread(target=loop)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results["move"], results["loop"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("arrives_ms", [-2, 2])
def test_a_move_racing_the_flag_either_is_played_or_gets_time_up_never_both(
    blitz_past_first_turns, alice, arrives_ms
):
    """Whichever takes the game's lock first decides: the move, played if it arrived in time
    (and the loop then finds the flag moved on), or the flag, which ends the game on time (and
    the move, however early it arrived, gets `time_up`). Never a move played in a game that
    ended on time, nor a game ended twice."""
    seen = set()
    for _ in range(4):
        game = blitz_past_first_turns()
        version = game.version

        got, fallen = race(game, alice, arrives=timedelta(milliseconds=arrives_ms))

        game = fresh(game)
        seen.add(got)
        if got == "played":
            assert game.status == GameStatus.ACTIVE
            assert (game.move_count, game.version, fallen) == (3, version + 1, {})
            assert arrives_ms < 0  # only a move in time is ever played
            # Out of the way of the next round's loop, which looks a minute ahead.
            services.game_resign(game_id=game.pk, user=alice)
        else:
            assert got == "time_up"
            assert game.status == GameStatus.FINISHED
            assert (game.outcome["reason"], game.outcome["winners"]) == ("timeout", [1])
            assert (game.move_count, game.version) == (2, version + 1)
            assert fallen in ({}, {game.pk: flags.FLAG_TIMEOUT})  # the loop, or the move
    print(f"a move {arrives_ms:+d} ms after the flag got: {sorted(seen)}")


@pytest.mark.django_db
def test_a_move_after_the_loop_ended_the_game_on_time_gets_time_up(blitz_past_first_turns, alice):
    game = blitz_past_first_turns()
    flags.flags_fall(now=game.flag_at)
    with pytest.raises(GameError) as refused:
        services.move_submit(
            game_id=game.pk,
            user=alice,
            move={"cell": 1},
            expected_version=game.version,
            arrived_at=game.flag_at - timedelta(milliseconds=5),
        )
    assert refused.value.code == "time_up"
    assert fresh(game).move_count == 2


@pytest.mark.django_db
def test_a_loop_behind_the_clock_still_records_the_real_time(alice, bob, tictactoe):
    """A worker that lowered its priority runs its loop behind the clock (greycircle.runtime
    .timers): what it decides is due is by that clock, what it records is not."""
    game = game_started(
        creator=alice,
        kind="tictactoe",
        opponents=[SeatSpec(user=bob)],
        time_control=TimeControl(1, 0),
    )
    Game.objects.filter(pk=game.pk).update(flag_at=timezone.now() - timedelta(seconds=2))
    before = timezone.now()

    assert flags.flags_fall(now=before - timedelta(seconds=1)) == {game.pk: flags.FLAG_ABORTED}

    assert fresh(game).finished_at >= before


# --- Aborted: why, for everyone who reads it, and counted for nobody -------------------------


def over_for(game: Game, user) -> str:
    """The game's line in `user`'s lists (greycircle.games.results)."""
    game = fresh(game)
    return results.game_result_for(
        kind=game.kind,
        status=game.status,
        outcome=game.outcome,
        seats=selectors.seats_json(game=game),
        you=selectors.seat_index_for(game=game, viewer=user),
    ).text


@pytest.mark.django_db
def test_a_first_move_not_made_in_time_aborts_the_game_saying_whose_it_was(
    alice, bob, tictactoe, deliver_notifications
):
    game = game_started(
        creator=alice,
        kind="tictactoe",
        opponents=[SeatSpec(user=bob)],
        time_control=TimeControl(1, 0),
        rated=True,
    )
    game = services.move_submit(
        game_id=game.pk, user=alice, move={"cell": 0}, expected_version=game.version
    )
    deliver_notifications()

    assert flags.flags_fall(now=game.flag_at) == {game.pk: flags.FLAG_ABORTED}

    game = fresh(game)
    assert (game.status, game.outcome) == (
        GameStatus.ABORTED,
        {"reason": "no_first_move", "seat": 1},
    )
    assert over_for(game, alice) == "Aborted: bob did not make a first move in time"
    assert over_for(game, bob) == "Aborted: you did not make a first move in time"
    deliver_notifications()
    told = dict(
        Notification.objects.filter(kind=NotificationKind.GAME_OVER).values_list(
            "recipient__username", "text"
        )
    )
    assert told == {
        "alice": "Your game of Tic-tac-toe against bob was aborted: bob did not make a first "
        "move in time",
        "bob": "Your game of Tic-tac-toe against alice was aborted: you did not make a first "
        "move in time",
    }
    # Still counted for nobody: no rating moved, no result in the profiles.
    assert not RatingChange.objects.exists()
    assert profile_statistics(user=alice, viewer=bob) == []


@pytest.mark.django_db
def test_a_game_the_staff_abort_says_so(alice, bob, tictactoe):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])

    services.game_abort(game_id=game.pk)

    assert fresh(game).outcome == {"reason": "staff"}
    assert over_for(game, alice) == over_for(game, bob) == "Stopped by the staff"
    [exported] = account_data_export(user=alice)["games"]
    assert GameDataSerializer(exported).data["outcome"] == {"reason": "staff"}
