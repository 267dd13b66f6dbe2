"""The clocks' loop of the task workers: a live game's flag falls on its own, with no request,
in a real worker process and in the embedded site's workers; and two workers racing the same
flags end each game exactly once.

The workers are `manage.py games_worker` child processes (tests/games/conftest.py); the flags
are set a moment ahead in the database rather than waited for over a whole clock.
"""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest
from django.utils import timezone

from greycircle.games import registry, services
from greycircle.games.clocks import TimeControl
from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec
from greycircle.notifications.models import Notification
from greycircle.runtime.worker import background_worker_start
from tests.factories import game_started
from tests.games.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

LAG = 300  # GAMES_CLOCK_LAG_ALLOWANCE_MS, the default
MINUTE = 60_000
# Seconds any wait may take on a machine whose cores are busy (what it waits for takes a
# fraction of a second on an idle one); claims about time are printed, not asserted.
WITHIN = 60.0


def fresh(game: Game) -> Game:
    return Game.objects.with_seats().get(pk=game.pk)


def live_game(alice, bob) -> Game:
    """A 1+0 game of Circles (a kind the worker processes know) between alice and bob, both
    past their first moves."""
    game = game_started(
        creator=alice,
        kind="circles",
        opponents=[SeatSpec(user=bob)],
        time_control=TimeControl(1, 0),
    )
    rules = registry.get("circles").rules
    for _ in range(2):
        player = game.seats.all()[game.to_move].user
        move = rules.legal_moves(rules.decode(game.state))[0]
        game = services.move_submit(
            game_id=game.pk,
            user=player,
            move=rules.move_to_json(move),
            expected_version=game.version,
        )
        game = fresh(game)
    return game


def flag_set(game: Game, *, at) -> Game:
    """The game with the running seat's time up `at` (its stretch started a clock earlier)."""
    started = at - timedelta(milliseconds=game.clock_remaining_ms[game.to_move] + LAG)
    Game.objects.filter(pk=game.pk).update(clock_started_at=started, flag_at=at)
    return fresh(game)


def over(game: Game):
    return lambda: Game.objects.filter(pk=game.pk, status=GameStatus.FINISHED).exists()


FULL_PRIORITY = ["--queue-name", "notifications"]  # a worker of the computers' turns is niced


def test_the_flag_falls_with_no_request_in_a_worker_process(alice, bob, worker_process):
    worker = worker_process(args=FULL_PRIORITY)
    game = flag_set(live_game(alice, bob), at=timezone.now() + timedelta(seconds=0.5))
    loser, due = game.to_move, game.flag_at

    wait_for(over(game), timeout=WITHIN, message=worker.log)

    game = fresh(game)
    print(f"the flag fell {(game.finished_at - due).total_seconds():.3f} s late")
    assert (game.outcome["reason"], game.outcome["winners"]) == ("timeout", [1 - loser])
    assert game.finished_at >= due
    assert game.clock_remaining_ms[loser] == 0
    assert f"game {game.pk}: flag fell (timeout)" in worker.log()


def test_a_worker_that_lowered_its_priority_is_the_backup_behind_the_clock(
    alice, bob, worker_process
):
    """The computers' worker (niceness +10) alone still ends the game, but only once its flag is
    GAMES_TIMERS_BACKUP_SECONDS past: a worker at full priority would have got there first."""
    worker = worker_process(env={"GAMES_TIMERS_BACKUP_SECONDS": "1"})
    game = flag_set(live_game(alice, bob), at=timezone.now() + timedelta(seconds=0.2))
    due = game.flag_at

    wait_for(over(game), timeout=WITHIN, message=worker.log)

    assert fresh(game).finished_at >= due + timedelta(seconds=1)


def test_the_embedded_sites_workers_end_games_on_time_too(alice, bob):
    """`manage.py serve` without task workers of its own runs the same loops in threads."""
    before = set(threading.enumerate())
    stop = background_worker_start(interval=0.05)
    started = set(threading.enumerate()) - before
    try:
        assert "worker-clocks" in {thread.name for thread in started}
        game = flag_set(live_game(alice, bob), at=timezone.now() + timedelta(seconds=0.3))
        wait_for(over(game), timeout=WITHIN)
        assert fresh(game).outcome["reason"] == "timeout"
    finally:
        stop.set()
    for thread in started:
        thread.join(timeout=WITHIN)


def test_two_workers_racing_the_same_flags_end_each_game_exactly_once(alice, bob, worker_process):
    workers = [worker_process(args=FULL_PRIORITY), worker_process(args=FULL_PRIORITY)]
    games = [live_game(alice, bob) for _ in range(6)]
    at = timezone.now() + timedelta(seconds=1)
    games = [
        flag_set(game, at=at + timedelta(milliseconds=5 * index))
        for index, game in enumerate(games)
    ]
    versions = {game.pk: game.version for game in games}

    for game in games:
        wait_for(over(game), timeout=WITHIN, message=lambda: "\n".join(w.log() for w in workers))
    # Each player's "game over" is kept by the notifications' queue, which the workers run too.
    wait_for(
        lambda: Notification.objects.filter(kind="game_over").count() >= 2 * len(games),
        timeout=WITHIN,
        message=lambda: "\n".join(w.log() for w in workers),
    )

    logs = "\n".join(worker.log() for worker in workers)
    for game in games:
        game = fresh(game)
        assert game.version == versions[game.pk] + 1  # one change: the flag's
        assert game.outcome["reason"] == "timeout"
        assert len(re.findall(rf"game {game.pk}: flag fell", logs)) == 1
        assert sorted(
            Notification.objects.filter(kind="game_over", game=game).values_list(
                "recipient__username", flat=True
            )
        ) == ["alice", "bob"]
    by = [sum(f"game {game.pk}: flag fell" in worker.log() for game in games) for worker in workers]
    print(f"flags ended by each worker: {by}")
