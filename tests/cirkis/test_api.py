"""CirKis through the real REST API: the envelope, placements, refusals, the log, the computer."""

from __future__ import annotations

import pytest

from cirkis.board import TOUCH_MASKS
from greycircle.games.models import Game, GameStatus
from greycircle.games.selectors import game_replay
from tests.factories import accept_invitations, let_anyone_invite

pytestmark = pytest.mark.django_db(transaction=True)


def create(client, seats, options=None):
    body = {"kind": "cirkis", "seats": seats}
    if options is not None:
        body["options"] = options
    response = client.post("/api/v1/games/", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def submit(client, game_id, move, version):
    return client.post(
        f"/api/v1/games/{game_id}/moves/",
        {"expected_version": version, "move": move},
        format="json",
    )


def touches(fields, other):
    return any(TOUCH_MASKS[i] >> j & 1 for i in fields for j in other)


def test_a_game_against_bob_envelope_placements_refusals_and_log(alice, bob, carol, client_for):
    a, b = client_for(alice), client_for(bob)
    let_anyone_invite(bob)
    game = create(a, [{"user": "bob"}])
    accept_invitations(game["id"])
    game = a.get(f"/api/v1/games/{game['id']}/").json()
    assert (game["kind"], game["status"], game["you"], game["to_move"]) == (
        "cirkis",
        "active",
        0,
        0,
    )
    assert game["options"] == {"center_ring": False, "long_game": False}
    state = game["state"]
    assert state["owners"] == [None] * 165
    assert state["leader"] is None
    assert state["scores"] == [0, 0]
    assert state["pieces_left"][1]["big_slice"] == 3
    assert len(game["legal_moves"]) == 45
    assert all(min(move["fields"]) < 15 for move in game["legal_moves"])
    assert {"piece": "arrow", "fields": [0]} in game["legal_moves"]

    theirs = b.get(f"/api/v1/games/{game['id']}/").json()
    assert (theirs["you"], theirs["legal_moves"]) == (1, [])
    assert theirs["state"] == state  # nothing hidden in CirKis
    spectator = client_for(carol).get(f"/api/v1/games/{game['id']}/").json()
    assert (spectator["you"], spectator["legal_moves"]) == (None, [])

    off_centre = submit(a, game["id"], {"piece": "kite", "fields": [25]}, game["version"])
    assert off_centre.status_code == 400
    assert off_centre.json()["code"] == "illegal_move"
    assert "Center Star or the Center Ring" in off_centre.json()["detail"]
    misfit = submit(a, game["id"], {"piece": "big_slice", "fields": [1, 7, 53]}, game["version"])
    assert misfit.status_code == 400
    assert misfit.json() == {
        "code": "illegal_move",
        "detail": "Those fields don't fit a Big Slice.",
    }
    malformed = submit(a, game["id"], {"piece": "rhombus", "fields": [0]}, game["version"])
    assert malformed.status_code == 400
    assert malformed.json()["code"] == "malformed"
    not_yours = submit(b, game["id"], {"piece": "arrow", "fields": [0]}, game["version"])
    assert not_yours.status_code == 403

    played = submit(a, game["id"], {"piece": "arrow", "fields": [0]}, game["version"])
    assert played.status_code == 200, played.json()
    after = played.json()
    assert after["state"]["owners"][0] == 0
    assert after["state"]["leader"] == {"seat": 0, "piece": "arrow", "fields": [0]}
    assert after["state"]["pieces_left"][0]["arrow"] == 1
    assert (after["to_move"], after["legal_moves"]) == (1, [])

    bobs = b.get(f"/api/v1/games/{game['id']}/").json()
    assert bobs["legal_moves"]
    assert all(touches(move["fields"], [0]) for move in bobs["legal_moves"])
    far = submit(b, game["id"], {"piece": "kite", "fields": [9]}, bobs["version"])
    assert far.status_code == 400
    assert far.json()["detail"] == (
        "Follow the Leader: the piece must touch the Leader, the Arrow on field 0."
    )
    answered = submit(b, game["id"], {"piece": "kite", "fields": [5]}, bobs["version"])
    assert answered.status_code == 200, answered.json()
    assert answered.json()["to_move"] == 0

    log = client_for(carol).get(f"/api/v1/games/{game['id']}/moves/").json()
    assert [(e["seat"], e["piece"], e["fields"]) for e in log] == [
        (0, "arrow", [0]),
        (1, "kite", [5]),
    ]
    assert log[0]["scored"] == []
    assert log[0]["free_turn"] is None
    assert log[0]["lost_turns"] == []
    stored = Game.objects.get(pk=game["id"])
    assert game_replay(game=stored) == stored.state


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_a_computer_answers_in_the_background(level, alice, client_for, run_tasks, settings):
    settings.GAMES_AI_BUDGET_MS = 5
    a = client_for(alice)
    game = create(a, [{"ai_level": level}], options={"center_ring": True})
    assert game["options"] == {"center_ring": True, "long_game": False}
    played = submit(a, game["id"], {"piece": "small_slice", "fields": [5, 6]}, game["version"])
    assert played.status_code == 200, played.json()
    assert played.json()["to_move"] == 1, "the computer does not move inside the human's request"
    run_tasks()
    back = a.get(f"/api/v1/games/{game['id']}/").json()
    assert back["version"] > played.json()["version"]
    assert back["to_move"] == 0 or back["status"] == GameStatus.FINISHED
    computer = [e for e in a.get(f"/api/v1/games/{game['id']}/moves/").json() if e["seat"] == 1]
    assert computer
    assert touches(computer[0]["fields"], [5, 6])
    assert back["state"]["owners"][computer[0]["fields"][0]] == 1
    if back["to_move"] == 0:
        assert back["legal_moves"]
    stored = Game.objects.get(pk=game["id"])
    assert game_replay(game=stored) == stored.state


def test_bad_options_are_refused(alice, client_for):
    response = client_for(alice).post(
        "/api/v1/games/",
        {"kind": "cirkis", "seats": [{"ai_level": "easy"}], "options": {"target": 60}},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "bad_options"
    too_many = client_for(alice).post(
        "/api/v1/games/",
        {"kind": "cirkis", "seats": [{"ai_level": "easy"}] * 4},
        format="json",
    )
    assert too_many.status_code == 400
    assert too_many.json()["code"] == "bad_seats"
