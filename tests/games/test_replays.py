"""Replays of games that are over (`GET /api/v1/games/{id}/replay/`), with tic-tac-toe."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from greycircle.games import replays, selectors, services
from greycircle.games.models import GameStatus
from greycircle.games.services import SeatSpec
from tests.factories import game_started
from tests.games.tictactoe import RULES

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

# X takes the top row: cells 0, 1, 2 against O's 3, 4.
X_WINS = [0, 3, 1, 4, 2]


def play(game, alice, bob, cells):
    players = [alice, bob]
    for number, cell in enumerate(cells):
        game = services.move_submit(
            game_id=game.pk,
            user=players[number % 2],
            move={"cell": cell},
            expected_version=game.version,
        )
    return selectors.game_get(game_id=game.pk)


@pytest.fixture
def game(alice, bob):
    return game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])


@pytest.fixture
def finished(game, alice, bob):
    game = play(game, alice, bob, X_WINS)
    assert game.status == GameStatus.FINISHED
    return game


def test_a_replay_has_a_step_per_move_and_the_start(finished, alice, client_for):
    response = client_for(alice).get(f"/api/v1/games/{finished.pk}/replay/")

    assert response.status_code == 200, response.json()
    replay = response.json()
    assert replay["kind"] == "tictactoe"
    assert replay["status"] == "finished"
    assert replay["you"] == 0
    assert replay["move_count"] == len(X_WINS)
    assert replay["outcome"] == {
        "scores": [1, 0],
        "winners": [0],
        "reason": "line",
        "rating": {
            "rated": True,
            "reason": None,
            "detail": "Rated.",
            "changes": [
                {"seat": 0, "before": 1500, "after": 1662},
                {"seat": 1, "before": 1500, "after": 1338},
            ],
        },
    }
    assert [seat["name"] for seat in replay["seats"]] == ["alice", "bob"]
    steps = replay["steps"]
    assert [step["number"] for step in steps] == list(range(len(X_WINS) + 1))
    assert steps[0]["move"] is None
    assert steps[0]["to_move"] == 0
    assert steps[-1]["to_move"] is None
    assert "seed" not in str(replay)


def test_each_step_is_the_view_after_that_many_moves(finished, alice, client_for):
    steps = client_for(alice).get(f"/api/v1/games/{finished.pk}/replay/").json()["steps"]

    state = RULES.new_game(2, seed=0, options={})
    assert steps[0]["state"] == RULES.view(state, 0)
    for number, cell in enumerate(X_WINS, start=1):
        state = RULES.play(state, cell)
        assert steps[number]["state"] == RULES.view(state, 0)
        assert steps[number]["move"]["cell"] == cell
        assert steps[number]["move"]["number"] == number
        assert steps[number]["move"]["seat"] == (number - 1) % 2
    # The last step is the game as it was stored.
    assert steps[-1]["state"] == RULES.view(RULES.decode(finished.state), 0)


def test_each_viewer_sees_only_their_own_private_log_detail(
    finished, alice, bob, carol, client_for
):
    def mine(user):
        steps = client_for(user).get(f"/api/v1/games/{finished.pk}/replay/").json()["steps"]
        return [step["move"].get("mine", False) for step in steps[1:]]

    # tic-tac-toe tells only the mover "mine": alice moved 1st, 3rd, 5th; bob 2nd and 4th.
    assert mine(alice) == [True, False, True, False, True]
    assert mine(bob) == [False, True, False, True, False]
    assert mine(carol) == [False] * 5
    spectator = client_for(carol).get(f"/api/v1/games/{finished.pk}/replay/").json()
    assert spectator["you"] is None


def test_a_game_in_play_has_no_replay(game, alice, bob, client_for):
    game = play(game, alice, bob, X_WINS[:2])

    response = client_for(alice).get(f"/api/v1/games/{game.pk}/replay/")

    assert response.status_code == 400
    assert response.json()["code"] == "game_not_over"


def test_a_game_waiting_for_players_has_no_replay(alice, client_for):
    game = services.game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec()])

    response = client_for(alice).get(f"/api/v1/games/{game.pk}/replay/")

    assert response.status_code == 400
    assert response.json()["code"] == "game_not_over"


def test_a_resigned_game_has_a_replay_up_to_the_resignation(game, alice, bob, client_for):
    game = play(game, alice, bob, X_WINS[:3])
    services.game_resign(game_id=game.pk, user=bob)

    replay = client_for(bob).get(f"/api/v1/games/{game.pk}/replay/").json()

    assert replay["status"] == "finished"
    assert len(replay["steps"]) == 4


def test_an_aborted_game_has_a_replay(game, alice, bob, client_for):
    game = play(game, alice, bob, X_WINS[:2])
    services.game_abort(game_id=game.pk)

    response = client_for(alice).get(f"/api/v1/games/{game.pk}/replay/")

    assert response.status_code == 200
    assert len(response.json()["steps"]) == 3


def test_no_replay_of_a_game_that_does_not_exist(alice, client_for):
    response = client_for(alice).get("/api/v1/games/999999/replay/")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_a_replay_needs_a_signed_in_user(finished, client):
    response = client.get(f"/api/v1/games/{finished.pk}/replay/")

    assert response.status_code in (401, 403)


def test_anyone_who_may_see_the_game_may_see_its_replay(finished, carol, client_for):
    # Whoever may open a game (GET /games/{id}/) may see its replay: an unlisted one with the
    # key of its link, and not without it.
    finished.unlisted = True
    finished.save(update_fields=["unlisted"])
    key = finished.link_key

    assert client_for(carol).get(f"/api/v1/games/{finished.pk}/?key={key}").status_code == 200
    assert (
        client_for(carol).get(f"/api/v1/games/{finished.pk}/replay/?key={key}").status_code == 200
    )
    assert client_for(carol).get(f"/api/v1/games/{finished.pk}/replay/").status_code == 404


def test_replays_are_computed_once_per_audience(finished, alice, bob):
    first = replays.replay_for(game=finished, viewer=alice)
    with CaptureQueriesContext(connection) as queries:
        again = replays.replay_for(game=finished, viewer=alice)
    assert again == first
    assert not [q for q in queries.captured_queries if "games_move" in q["sql"]]
    assert cache.get(replays.replay_cache_key(game=finished, seat=0)) == first["steps"]
    assert cache.get(replays.replay_cache_key(game=finished, seat=1)) is None

    theirs = replays.replay_for(game=finished, viewer=bob)
    assert theirs["steps"] != first["steps"]  # bob's private detail is his own


def test_a_kind_without_an_analysis_says_so(finished, alice, client_for):
    for method in ("get", "post"):
        response = getattr(client_for(alice), method)(f"/api/v1/games/{finished.pk}/analysis/")
        assert response.status_code == 400
        assert response.json()["code"] == "no_analysis"


@pytest.mark.parametrize(("kind", "computers"), [("circles", 1), ("kingscorner", 2), ("cirkis", 2)])
def test_every_kinds_replay_fits_its_documented_shape(kind, computers, alice, monkeypatch):
    """The contract: a whole game's replay, as served, validates against the kind's replay
    serializer (the schema's `<Kind>GameReplay`: its state view and log entry at every step)."""
    from greycircle.games import registry, tasks
    from greycircle.games.replay_serializers import _per_kind

    monkeypatch.setattr(tasks, "ai_turn_enqueue", lambda **kwargs: None)
    game_kind = registry.get(kind)
    game = services.game_create(
        creator=alice, kind=kind, opponents=[SeatSpec(ai_level="easy")] * computers
    )
    for turn in range(3000):
        game = selectors.game_get(game_id=game.pk)
        if game.status != GameStatus.ACTIVE:
            break
        if game.to_move != 0:
            services.ai_take_turn(game_id=game.pk, expected_version=game.version)
            continue
        state = game_kind.rules.decode(game.state)
        move = game_kind.computer(state, level="easy", seed=turn, budget_ms=20)
        services.move_submit(
            game_id=game.pk,
            user=alice,
            move=game_kind.rules.move_to_json(move),
            expected_version=game.version,
        )
    assert game.status == GameStatus.FINISHED

    replay = replays.replay_for(game=game, viewer=alice)
    serializer = _per_kind(game_kind, "replay")(data=replay)

    assert serializer.is_valid(), serializer.errors
    assert len(replay["steps"]) == game.move_count + 1
