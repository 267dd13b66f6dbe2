"""The hard engine's analysis of finished Circles games: the engine part, the task and the API."""

from __future__ import annotations

import random
from functools import cache

import pytest
from django_tasks_db.models import DBTaskResult

from circles import services, tasks
from circles.analysis import Budget, analysis_compute, mark_for, position_analyse
from circles.models import AnalysisStatus, CirclesAnalysis
from circles.rules import RULES, SQUARE_NAMES, Position, flip_mask, move_mask
from circles.serializers import CirclesAnalysisSerializer
from greycircle.games import services as game_services
from greycircle.games.services import SeatSpec

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
    monkeypatch.setattr(services, "BUDGET", SMALL)
    monkeypatch.setattr(services, "RUN_SECONDS", 0)


@pytest.fixture
def finished(alice):
    game = game_services.game_create(
        creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")], record=WIPE_OUT
    )
    assert game.status == "finished"
    return game


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
    documented = CirclesAnalysisSerializer(data=ready)
    assert documented.is_valid(), documented.errors
    assert DBTaskResult.objects.filter(task_path=tasks.analysis_run.module_path).count() == 9

    # Kept: asking again computes nothing.
    assert client.post(url).json() == ready
    assert queued_runs() == 0


@pytest.mark.django_db
def test_a_run_that_finds_its_positions_saved_by_another_drops_its_own(finished, small_runs):
    services.analysis_request(game=finished)
    assert services.analysis_continue(game_id=finished.pk) is False
    saved = CirclesAnalysis.objects.get()
    assert len(saved.positions) == 1
    # A second run of the same step (a duplicate in the queue) comes after the first saved.
    saved.positions = saved.positions * 2
    saved.save()
    assert services.analysis_continue(game_id=finished.pk) is False
    assert len(CirclesAnalysis.objects.get().positions) == 3


@pytest.mark.django_db
def test_a_failed_analysis_is_queued_again_when_asked_for(finished, small_runs, monkeypatch):
    services.analysis_request(game=finished)

    def broken(*args, **kwargs):
        raise RuntimeError("engine trouble")

    monkeypatch.setattr(services, "position_analyse", broken)
    with pytest.raises(RuntimeError):
        services.analysis_continue(game_id=finished.pk)
    assert CirclesAnalysis.objects.get().status == AnalysisStatus.FAILED
    assert services.analysis_get(game=finished)["status"] == "failed"

    assert services.analysis_request(game=finished)["status"] == "pending"


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
def test_anyone_who_may_see_the_game_may_read_its_analysis(finished, bob, client_for):
    response = client_for(bob).post(f"/api/v1/games/{finished.pk}/analysis/")

    assert response.status_code == 200
    assert response.json()["status"] == "pending"
    assert client_for(bob).get("/api/v1/games/424242/analysis/").status_code == 404
