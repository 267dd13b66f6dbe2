"""The hard engine's analysis of finished Circles games: the engine part, the task and the API."""

from __future__ import annotations

import math
import random
import threading
from datetime import timedelta
from functools import cache

import pytest
from django.db import connection, connections
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from circles import analysis_runs, services, tasks
from circles.analysis import (
    Budget,
    Interrupted,
    analysis_compute,
    mark_for,
    position_analyse,
)
from circles.models import AnalysisStatus, CirclesAnalysis
from circles.rules import RULES, SQUARE_NAMES, Position, flip_mask, move_mask
from circles.serializers import CirclesAnalysisSerializer
from greycircle.games import services as game_services
from greycircle.games import tasks as game_tasks
from greycircle.games.models import Game
from greycircle.games.services import SeatSpec
from greycircle.notifications import tasks as notification_tasks
from greycircle.runtime.worker import TaskWorker
from tests.games.conftest import computer_moved, computer_to_move, wait_for

# A whole game in 9 moves: white wipes black out (13-0) with g2. Black's d2 allowed it.
WIPE_OUT = "e3d3c2f2e2f3c5d2g2"
SMALL = Budget(nodes=2_000, exact_empties=10)


@cache
def perfect(own: int, opp: int) -> int:
    """The final disc margin for the side to move with perfect play: plain minimax."""
    moves = move_mask(own, opp)
    if not moves:
        if not move_mask(opp, own):
            return own.bit_count() - opp.bit_count()
        return -perfect(opp, own)
    return max(
        -perfect(opp ^ flips, own | flips | (1 << square))
        for square in range(64)
        if moves >> square & 1
        for flips in [flip_mask(square, own, opp)]
    )


def value_of(position: Position, square: int) -> int:
    own, opp = position.own, position.opponent
    flips = flip_mask(square, own, opp)
    return -perfect(opp ^ flips, own | flips | (1 << square))


def endgame_positions(count: int, *, empties: int, seed: int) -> list[tuple[Position, int]]:
    """(position, a legal square) from random games, with at most `empties` empty squares."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = RULES.new_game(2, seed=0, options={})
        while RULES.to_move(state) is not None:
            square = rng.choice(RULES.legal_moves(state))
            if state.position.empty.bit_count() <= empties:
                found.append((state.position, square))
            state = RULES.play(state, square)
    return found[:count]


def test_endgame_positions_get_the_exact_best_move_and_margins():
    for position, played in endgame_positions(40, empties=8, seed=1):
        result = position_analyse(position, played, number=1, budget=SMALL)
        values = {square: value_of(position, square) for square in position.legal_squares()}
        best = max(values.values())
        assert result["exact"] is True
        assert result["best_score"] == best
        assert values[SQUARE_NAMES.index(result["best"])] == best
        assert result["played_score"] == values[played]
        assert result["loss"] == best - values[played] >= 0
        assert result["mark"] == mark_for(result["loss"])
        assert result["seat"] == position.turn
        assert result["forced"] == (len(values) == 1)


def test_the_wipe_out_game_the_blunder_is_found():
    result = analysis_compute(moves=RULES.parse_record(WIPE_OUT), budget=SMALL)

    positions = result["positions"]
    assert [p["number"] for p in positions] == list(range(1, 10))
    assert [p["seat"] for p in positions] == [0, 1] * 4 + [0]
    assert "".join(p["played"] for p in positions) == WIPE_OUT
    # Black's d2 let white wipe it out: a blunder. White's g2 then was the best move, for 13.
    assert positions[7]["mark"] == "blunder"
    assert positions[7]["played_score"] == -13
    assert positions[8]["best"] == "g2"
    assert (positions[8]["best_score"], positions[8]["loss"]) == (13, 0)
    assert all(p["loss"] >= 0 for p in positions)
    assert all(p["mark"] == mark_for(p["loss"]) for p in positions)
    white, black = result["seats"]
    assert (white["moves"], black["moves"]) == (5, 4)
    assert black["blunders"] == 1


def test_a_whole_game_analyses_consistently_and_the_same_every_time():
    rng = random.Random(3)
    state = RULES.new_game(2, seed=0, options={})
    while RULES.to_move(state) is not None:
        state = RULES.play(state, rng.choice(RULES.legal_moves(state)))
    moves = list(state.record)

    result = analysis_compute(moves=moves, budget=SMALL)

    assert result == analysis_compute(moves=moves, budget=SMALL), "node limits, not a clock"
    positions = result["positions"]
    assert len(positions) == len(moves)
    for entry in positions:
        assert entry["loss"] == entry["best_score"] - entry["played_score"] >= 0
        assert entry["mark"] == mark_for(entry["loss"])
        if entry["loss"] == 0:
            assert entry["best"] == entry["played"]
    # The last positions are solved exactly; the first are estimates.
    assert positions[-1]["exact"]
    assert not positions[0]["exact"]
    # A random player makes mistakes.
    assert any(entry["mark"] for entry in positions)


def test_marks():
    assert [mark_for(loss) for loss in (0, 3, 4, 9, 10, 40)] == [
        None,
        None,
        "mistake",
        "mistake",
        "blunder",
        "blunder",
    ]


def test_an_illegal_move_is_refused():
    with pytest.raises(ValueError, match="not a legal move"):
        position_analyse(Position.start(), SQUARE_NAMES.index("a1"), number=1, budget=SMALL)


# --- stored, computed by the task, served by the API ------------------------------------------


@pytest.fixture
def small_runs(monkeypatch):
    """Each run of the task analyses one position, cheaply."""
    monkeypatch.setattr(analysis_runs, "BUDGET", SMALL)
    monkeypatch.setattr(analysis_runs, "RUN_SECONDS", 0)


def finished_game(user, record: str = WIPE_OUT) -> Game:
    """A finished game of `user`, and nothing else in the queue: its players' notifications,
    which no worker runs here, would wait long enough for an analysis run to give way to them."""
    game = game_services.game_create(
        creator=user, kind="circles", opponents=[SeatSpec(ai_level="easy")], record=record
    )
    assert game.status == "finished"
    DBTaskResult.objects.filter(
        task_path=notification_tasks.notifications_send.module_path
    ).delete()
    return game


@pytest.fixture
def finished(alice):
    return finished_game(alice)


def queued_runs() -> int:
    return DBTaskResult.objects.filter(
        task_path=tasks.analysis_run.module_path, status="READY"
    ).count()


@pytest.mark.django_db(transaction=True)
def test_asking_twice_queues_one_analysis_that_the_task_completes_and_keeps(
    finished, alice, client_for, run_tasks, small_runs
):
    client = client_for(alice)
    url = f"/api/v1/games/{finished.pk}/analysis/"

    before = client.get(url).json()
    assert (before["status"], before["analysed"], before["total"]) == ("not_requested", 0, 9)
    assert (before["progress"], before["seats"]) == ("Not analysed yet.", None)
    asked = client.post(url)
    assert asked.status_code == 200, asked.json()
    assert asked.json()["status"] == "pending"
    assert client.post(url).json()["status"] == "pending"
    assert queued_runs() == 1
    assert CirclesAnalysis.objects.get().status == AnalysisStatus.PENDING
    analysis = DBTaskResult.objects.get(task_path=tasks.analysis_run.module_path)
    assert analysis.priority < 0, "below the computers' turns"

    run_tasks()  # nine runs of one position each, each queueing the next

    ready = client.get(url).json()
    assert ready["status"] == "ready"
    assert (ready["analysed"], ready["total"]) == (9, 9)
    assert ready["kind"] == "circles"
    assert ready["completed_at"] is not None
    assert (
        ready["positions"]
        == analysis_compute(moves=RULES.parse_record(WIPE_OUT), budget=SMALL)["positions"]
    )
    assert ready["seats"][1]["blunders"] == 1
    assert ready["progress"] == "Analysed all 9 moves."
    documented = CirclesAnalysisSerializer(data=ready)
    assert documented.is_valid(), documented.errors
    assert DBTaskResult.objects.filter(task_path=tasks.analysis_run.module_path).count() == 9

    # Kept: asking again computes nothing.
    assert client.post(url).json() == ready
    assert queued_runs() == 0


@pytest.mark.django_db(transaction=True)
def test_no_totals_until_the_whole_game_is_analysed_only_how_far_it_is(
    finished, alice, client_for, small_runs
):
    """After 1 move of 9, "0 mistakes, 0 blunders" would be a verdict on moves not yet seen."""
    client = client_for(alice)
    url = f"/api/v1/games/{finished.pk}/analysis/"
    client.post(url)
    tasks.analysis_run.call(finished.pk)

    pending = client.get(url).json()

    assert (pending["status"], pending["analysed"], pending["total"]) == ("pending", 1, 9)
    assert len(pending["positions"]) == 1
    assert pending["seats"] is None
    assert pending["progress"] == "Analysed 1 of 9 moves so far."
    documented = CirclesAnalysisSerializer(data=pending)
    assert documented.is_valid(), documented.errors

    CirclesAnalysis.objects.update(status=AnalysisStatus.FAILED)
    failed = client.get(url).json()
    assert (failed["seats"], failed["progress"]) == (None, "Failed after 1 of 9 moves.")


@pytest.mark.django_db
def test_a_run_that_finds_its_positions_saved_by_another_drops_its_own(finished, alice, small_runs):
    services.analysis_request(game=finished, user=alice)
    assert tasks.analysis_run.call(finished.pk) is False
    saved = CirclesAnalysis.objects.get()
    assert len(saved.positions) == 1
    # A second run of the same step (a duplicate in the queue) comes after the first saved.
    saved.positions = saved.positions * 2
    saved.save()
    assert tasks.analysis_run.call(finished.pk) is False
    assert len(CirclesAnalysis.objects.get().positions) == 3


@pytest.mark.django_db(transaction=True)
def test_a_failed_analysis_is_queued_again_when_asked_for(
    finished, alice, small_runs, monkeypatch, run_tasks
):
    services.analysis_request(game=finished, user=alice)

    def broken(*args, **kwargs):
        raise RuntimeError("engine trouble")

    monkeypatch.setattr(analysis_runs, "position_analyse", broken)
    run_tasks()
    assert CirclesAnalysis.objects.get().status == AnalysisStatus.FAILED
    assert services.analysis_get(game=finished)["status"] == "failed"
    assert queued_runs() == 0

    assert services.analysis_request(game=finished, user=alice)["status"] == "pending"
    assert queued_runs() == 1


@pytest.mark.django_db
def test_only_games_that_are_over_are_analysed(alice, client_for):
    game = game_services.game_create(
        creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")], record="c5"
    )

    for method in ("get", "post"):
        response = getattr(client_for(alice), method)(f"/api/v1/games/{game.pk}/analysis/")
        assert response.status_code == 400
        assert response.json()["code"] == "game_not_over"
    assert not CirclesAnalysis.objects.exists()


@pytest.mark.django_db
def test_only_the_players_and_staff_may_ask_and_anyone_who_may_see_the_game_may_read(
    finished, alice, bob, staff, client_for
):
    url = f"/api/v1/games/{finished.pk}/analysis/"

    refused = client_for(bob).post(url)
    assert refused.status_code == 403
    assert refused.json()["code"] == "not_a_player"
    assert not CirclesAnalysis.objects.exists()
    assert queued_runs() == 0
    assert client_for(bob).get(url).json()["status"] == "not_requested"

    assert client_for(staff).post(url).json()["status"] == "pending"
    assert client_for(alice).post(url).json()["status"] == "pending"
    assert queued_runs() == 1
    assert client_for(bob).get(url).json()["status"] == "pending"
    assert client_for(bob).get("/api/v1/games/424242/analysis/").status_code == 404


def test_a_position_given_up_halfway_analyses_the_same_when_done_again():
    """The task gives its worker up inside a position's search (`interrupt`); analysing the
    position again later gives what an uninterrupted analysis gives."""
    [(position, played)] = endgame_positions(1, empties=14, seed=5)
    budget = Budget(nodes=2_000, exact_empties=14)
    asked = 0

    def after_a_few_checks() -> bool:
        nonlocal asked
        asked += 1
        return asked > 3

    with pytest.raises(Interrupted):
        position_analyse(position, played, number=1, budget=budget, interrupt=after_a_few_checks)
    assert asked == 4, "asked while searching, and stopped at once"
    assert position_analyse(
        position, played, number=1, budget=budget, interrupt=lambda: False
    ) == position_analyse(position, played, number=1, budget=budget)


def random_record(seed: int) -> str:
    rng = random.Random(seed)
    state = RULES.new_game(2, seed=0, options={})
    while RULES.to_move(state) is not None:
        state = RULES.play(state, rng.choice(RULES.legal_moves(state)))
    return RULES.record(state)


@pytest.mark.django_db
def test_a_player_has_a_few_analyses_in_progress_at_once(alice, staff, client_for):
    games = [finished_game(alice) for _ in range(services.ANALYSES_IN_PROGRESS + 1)]
    client = client_for(alice)

    for game in games[:-1]:
        assert client.post(f"/api/v1/games/{game.pk}/analysis/").status_code == 200
    refused = client.post(f"/api/v1/games/{games[-1].pk}/analysis/")

    assert refused.status_code == 429
    body = refused.json()
    assert body["code"] == "too_many_analyses"
    assert "in progress" in body["detail"]
    assert int(refused["Retry-After"]) == body["retry_after"] >= 1
    assert not CirclesAnalysis.objects.filter(game=games[-1]).exists()
    assert queued_runs() == services.ANALYSES_IN_PROGRESS
    # Asking for one already asked for costs nothing, also when somebody else asked for it.
    assert client.post(f"/api/v1/games/{games[0].pk}/analysis/").status_code == 200
    assert client_for(staff).post(f"/api/v1/games/{games[-1].pk}/analysis/").status_code == 200
    assert client.post(f"/api/v1/games/{games[-1].pk}/analysis/").status_code == 200
    assert queued_runs() == len(games)

    # Once one is done, the next.
    later = finished_game(alice)
    assert client.post(f"/api/v1/games/{later.pk}/analysis/").status_code == 429
    CirclesAnalysis.objects.filter(game=games[0]).update(status=AnalysisStatus.READY)
    assert client.post(f"/api/v1/games/{later.pk}/analysis/").status_code == 200


@pytest.mark.django_db
def test_a_player_asks_for_a_few_analyses_a_day(alice, client_for, monkeypatch):
    monkeypatch.setattr(services, "ANALYSES_PER_DAY", 3)
    games = [finished_game(alice) for _ in range(4)]
    client = client_for(alice)
    for game in games[:3]:
        assert client.post(f"/api/v1/games/{game.pk}/analysis/").status_code == 200
        CirclesAnalysis.objects.update(status=AnalysisStatus.READY)

    refused = client.post(f"/api/v1/games/{games[3].pk}/analysis/")

    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_analyses"
    assert "24 hours" in refused.json()["detail"]
    day = timedelta(days=1).total_seconds()
    assert day - 60 <= int(refused["Retry-After"]) <= day
    assert not CirclesAnalysis.objects.filter(game=games[3]).exists()
    # The oldest leaves the window.
    oldest = CirclesAnalysis.objects.get(game=games[0])
    oldest.requested_at = timezone.now() - timedelta(days=1, seconds=1)
    oldest.save()
    assert client.post(f"/api/v1/games/{games[3].pk}/analysis/").status_code == 200


@pytest.mark.django_db
def test_a_pending_analysis_is_queued_again_only_when_its_run_was_lost(finished, alice):
    services.analysis_request(game=finished, user=alice)
    # Waiting long behind other analyses is no reason to queue it twice.
    CirclesAnalysis.objects.update(updated_at=timezone.now() - timedelta(hours=1))
    assert services.analysis_request(game=finished, user=alice)["status"] == "pending"
    assert queued_runs() == 1

    # Its worker died: the run was failed (greycircle.games.heartbeats).
    DBTaskResult.objects.update(status=TaskResultStatus.FAILED)
    assert services.analysis_request(game=finished, user=alice)["status"] == "pending"
    assert queued_runs() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("before", ["not_requested", "failed"])
def test_players_asking_at_the_same_moment_queue_one_run(
    finished, alice, staff, client_for, before
):
    if before == "failed":
        services.analysis_request(game=finished, user=alice)
        CirclesAnalysis.objects.update(status=AnalysisStatus.FAILED)
        DBTaskResult.objects.update(status=TaskResultStatus.FAILED)
    barrier = threading.Barrier(2)
    answers: list[int] = []

    def ask(user) -> None:
        client = client_for(user)
        barrier.wait()
        try:
            answers.append(client.post(f"/api/v1/games/{finished.pk}/analysis/").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(user,)) for user in (alice, staff)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert answers == [200, 200]
    assert CirclesAnalysis.objects.get().status == AnalysisStatus.PENDING
    assert queued_runs() == 1


@pytest.mark.django_db
def test_a_run_gives_its_worker_to_a_task_that_no_other_worker_took(finished, alice, small_runs):
    services.analysis_request(game=finished, user=alice)
    notification_tasks.notifications_enqueue(news=[])  # anything above background work
    waiting = DBTaskResult.objects.filter(
        task_path=notification_tasks.notifications_send.module_path
    )
    # Just queued (for less than BACKGROUND_YIELD_SECONDS): an idle worker takes it. The run
    # goes on.
    waiting.update(enqueued_at=timezone.now() + timedelta(hours=1))
    assert tasks.analysis_run.call(finished.pk) is False
    assert len(CirclesAnalysis.objects.get().positions) == 1
    queued_before = queued_runs()
    # It has waited: no worker was free.
    waited = timedelta(seconds=game_tasks.BACKGROUND_YIELD_SECONDS + 1)
    waiting.update(enqueued_at=timezone.now() - waited)

    assert tasks.analysis_run.call(finished.pk) is False

    analysis = CirclesAnalysis.objects.get()
    assert (analysis.status, len(analysis.positions)) == (AnalysisStatus.PENDING, 1)
    assert queued_runs() == queued_before + 1, "queued again, to go on later"


@pytest.mark.django_db(transaction=True)
def test_a_computer_turn_is_played_while_an_analysis_runs_on_the_only_worker(alice, monkeypatch):
    """One worker, in the middle of a run that would analyse a whole game: a computer's turn
    queued then is played before the analysis is done."""
    monkeypatch.setattr(analysis_runs, "RUN_SECONDS", math.inf)
    game = finished_game(alice, random_record(seed=7))
    services.analysis_request(game=game, user=alice)
    worker = TaskWorker(
        queue_names=["default"],
        interval=0.02,
        batch=False,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="analysing",
        excluded_queue_names=[],
    )

    def run() -> None:
        try:
            worker.run()
        finally:
            connections.close_all()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        run_row = DBTaskResult.objects.filter(task_path=tasks.analysis_run.module_path)
        wait_for(lambda: run_row.filter(status=TaskResultStatus.RUNNING).exists(), timeout=60)
        turn = computer_to_move(alice, level="easy")
        wait_for(computer_moved(turn), timeout=60)

        analysis = CirclesAnalysis.objects.get(game=game)
        assert analysis.status == AnalysisStatus.PENDING
        assert len(analysis.positions) < analysis.total
    finally:
        worker.running = False
        notification_tasks.notifications_enqueue(news=[])  # the run in progress gives way at once
        worker.wake.set()
        thread.join(timeout=60)
    assert not thread.is_alive()
