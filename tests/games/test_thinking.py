"""A computer thinks for its whole budget, or less while computer turns queue up."""

import pytest
from django.utils import timezone

from greycircle.games import tasks, thinking
from greycircle.games.models import WorkerHeartbeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def budget(settings):
    settings.GAMES_AI_BUDGET_MS = 1000
    settings.GAMES_AI_MIN_BUDGET_MS = 100


def workers_alive(count: int) -> None:
    now = timezone.now()
    for number in range(count):
        WorkerHeartbeat.objects.create(worker_id=f"w{number}", started_at=now, beat_at=now)


def turns_waiting(count: int) -> None:
    for game_id in range(count):
        tasks.ai_turn_enqueue(game_id=1000 + game_id, version=1)


def test_with_no_turn_waiting_a_computer_thinks_its_whole_budget(budget):
    workers_alive(2)
    assert thinking.ai_budget_ms() == 1000


def test_the_budget_shrinks_with_the_turns_waiting_per_worker(budget):
    workers_alive(2)
    turns_waiting(2)
    assert thinking.ai_budget_ms() == 500  # 1000 x 2 workers / (2 + 2 waiting)


def test_a_long_queue_leaves_the_least_budget(budget):
    workers_alive(1)
    turns_waiting(30)
    assert thinking.ai_budget_ms() == 100


def test_a_silent_worker_does_not_count(budget):
    workers_alive(2)
    WorkerHeartbeat.objects.filter(worker_id="w0").update(
        beat_at=timezone.now() - timezone.timedelta(seconds=60)
    )
    turns_waiting(2)
    assert thinking.ai_budget_ms() == 333  # 1000 x 1 worker / (1 + 2 waiting)


def test_time_spent_waiting_for_a_worker_comes_out_of_the_thinking(budget):
    workers_alive(2)
    assert thinking.ai_budget_ms(waited_ms=300) == 700


def test_a_turn_that_waited_its_whole_budget_thinks_the_least(budget):
    workers_alive(2)
    assert thinking.ai_budget_ms(waited_ms=5000) == 100


def test_the_smaller_of_the_time_left_and_the_queue_share_is_thought(budget):
    workers_alive(2)
    turns_waiting(2)
    assert thinking.ai_budget_ms(waited_ms=300) == 500  # the queue's share is the smaller
    assert thinking.ai_budget_ms(waited_ms=800) == 200  # the time left is the smaller


def test_the_turns_counted_are_the_rows_of_the_computers_turn_task():
    assert tasks.ai_turn_run.module_path == thinking.AI_TURN_TASK


# --- live games: the computer's own clock ----------------------------------------------------

LAG = 300  # GAMES_CLOCK_LAG_ALLOWANCE_MS, the default


@pytest.fixture
def live_computer(alice, budget):
    """alice against the easy computer at 1+2 in Circles, both past their first turns, the
    computer to move with its clock started now."""
    from greycircle.games import registry, services
    from greycircle.games.clocks import TimeControl
    from greycircle.games.models import Game
    from greycircle.games.services import SeatSpec

    game = services.game_create(
        creator=alice,
        kind="circles",
        opponents=[SeatSpec(ai_level="easy")],
        time_control=TimeControl(1, 2),
    )
    rules = registry.get("circles").rules
    seat = next(seat for seat in game.seats.all() if seat.user_id == alice.pk)
    if game.to_move != seat.index:
        services.ai_take_turn(game_id=game.pk, expected_version=game.version)
        game = Game.objects.with_seats().get(pk=game.pk)
    move = rules.legal_moves(rules.decode(game.state))[0]
    game = services.move_submit(
        game_id=game.pk,
        user=alice,
        move=rules.move_to_json(move),
        expected_version=game.version,
    )
    if not game.clock_moved[game.to_move]:  # the computer's first turn: played, uncharged
        services.ai_take_turn(game_id=game.pk, expected_version=game.version)
        game = Game.objects.with_seats().get(pk=game.pk)
        move = rules.legal_moves(rules.decode(game.state))[0]
        game = services.move_submit(
            game_id=game.pk,
            user=alice,
            move=rules.move_to_json(move),
            expected_version=game.version,
        )
    assert game.seats.all()[game.to_move].is_computer
    assert all(game.clock_moved)
    return game


def computer_clock(game, *, remaining_ms: int):
    """The game with the computer's clock showing `remaining_ms`, started now."""
    from greycircle.games.models import Game

    now = timezone.now()
    clock = list(game.clock_remaining_ms)
    clock[game.to_move] = remaining_ms
    Game.objects.filter(pk=game.pk).update(
        clock_remaining_ms=clock,
        clock_started_at=now,
        flag_at=now + timezone.timedelta(milliseconds=remaining_ms + LAG),
    )
    return Game.objects.with_seats().get(pk=game.pk), now


def test_a_computer_on_a_full_clock_thinks_its_whole_budget(live_computer):
    game, now = computer_clock(live_computer, remaining_ms=60_000)
    assert thinking.ai_budget_ms(game=game, now=now) == 1000  # 60 s / 20 + 1 s, more than that


def test_a_computer_low_on_time_thinks_a_twentieth_of_its_clock_plus_half_its_increment(
    live_computer, settings
):
    settings.GAMES_AI_BUDGET_MS = 5000
    game, now = computer_clock(live_computer, remaining_ms=8_000)
    assert thinking.ai_budget_ms(game=game, now=now) == 8_000 // 20 + 1000
    # The clock keeps running while the turn waits for a worker: two seconds later it shows 6 s.
    later = now + timezone.timedelta(seconds=2)
    assert thinking.ai_budget_ms(game=game, now=later) == 6_000 // 20 + 1000


def test_a_computer_never_thinks_past_its_flag(live_computer, settings):
    settings.GAMES_AI_MIN_BUDGET_MS = 500
    game, now = computer_clock(live_computer, remaining_ms=200)
    assert thinking.ai_budget_ms(game=game, now=now) == 200  # not the floor's 500
    past = game.flag_at + timezone.timedelta(seconds=1)
    assert thinking.ai_budget_ms(game=game, now=past) == 1


def test_a_computers_move_is_charged_on_its_clock_like_anyones(live_computer):
    from greycircle.games import services
    from greycircle.games.models import Game

    game, _ = computer_clock(live_computer, remaining_ms=30_000)
    ten_seconds_ago = timezone.now() - timezone.timedelta(seconds=10)
    Game.objects.filter(pk=game.pk).update(
        clock_started_at=ten_seconds_ago,
        flag_at=ten_seconds_ago + timezone.timedelta(milliseconds=30_000 + LAG),
    )
    seat = game.to_move

    assert services.ai_take_turn(game_id=game.pk, expected_version=game.version)

    game = Game.objects.get(pk=game.pk)
    # Ten seconds and the thinking, less the lag allowance, plus the 2-s increment.
    assert game.clock_remaining_ms[seat] >= 30_000 - 10_000 - 1000 + LAG + 2000
    assert game.clock_remaining_ms[seat] <= 30_000 - 10_000 + LAG + 2000


def test_a_computer_whose_flag_fell_while_it_thought_loses_on_time(live_computer):
    from greycircle.games import flags, services
    from greycircle.games.models import Game, GameStatus

    game, _ = computer_clock(live_computer, remaining_ms=30_000)
    Game.objects.filter(pk=game.pk).update(flag_at=timezone.now())
    seat = game.to_move

    assert services.ai_take_turn(game_id=game.pk, expected_version=game.version)

    game = Game.objects.get(pk=game.pk)
    assert game.status == GameStatus.FINISHED
    assert flags.lost_on_time(game, seat=seat)
