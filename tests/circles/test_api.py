"""Circles through the real REST API: envelopes, moves, refusals, the move log and the computer."""

from __future__ import annotations

import pytest

from circles.rules import RULES
from greycircle.games.models import Game, Move
from greycircle.games.selectors import game_replay
from tests.factories import accept_invitations, let_anyone_invite

pytestmark = pytest.mark.django_db(transaction=True)


def create(client, seats):
    return client.post("/api/v1/games/", {"kind": "circles", "seats": seats}, format="json")


def move(client, game_id, square, version):
    return client.post(
        f"/api/v1/games/{game_id}/moves/",
        {"expected_version": version, "move": {"square": square}},
        format="json",
    )


@pytest.fixture
def game(alice, bob, client_for):
    let_anyone_invite(bob)
    response = create(client_for(alice), [{"user": "bob"}])
    assert response.status_code == 201, response.json()
    accept_invitations(response.json()["id"])
    return client_for(alice).get(f"/api/v1/games/{response.json()['id']}/").json()


def test_a_new_game_shows_the_start_and_whites_four_moves(game, bob, client_for):
    assert game["kind"] == "circles"
    assert game["status"] == "active"
    assert game["to_move"] == 0
    assert game["options"] == {}
    # Legal moves come in square-name order (column letter, then row).
    assert game["legal_moves"] == [{"square": s} for s in ("c5", "d6", "e3", "f4")]
    state = game["state"]
    assert state["board"][3:5] == ["...WB...", "...BW..."]
    assert state["discs"] == [2, 2]
    assert state["to_move"] == 0
    assert state["last_move"] is None
    assert state["passed"] == []
    assert state["record"] == ""
    assert client_for(bob).get(f"/api/v1/games/{game['id']}/").json()["legal_moves"] == []


def test_a_move_updates_the_state_and_the_log(game, alice, bob, client_for):
    response = move(client_for(alice), game["id"], "C5", game["version"])
    assert response.status_code == 200, response.json()
    played = response.json()
    assert played["to_move"] == 1
    assert played["version"] == game["version"] + 1
    assert played["state"]["board"][4] == "..WWW..."
    assert played["state"]["discs"] == [4, 1]
    assert played["state"]["last_move"] == "c5"
    assert played["legal_moves"] == []
    bobs = client_for(bob).get(f"/api/v1/games/{game['id']}/").json()
    assert bobs["legal_moves"] == [{"square": s} for s in ("c4", "c6", "e6")]
    log = client_for(bob).get(f"/api/v1/games/{game['id']}/moves/").json()
    assert [
        (entry["seat"], entry["square"], entry["flipped"], entry["passed"]) for entry in log
    ] == [(0, "c5", ["d5"], [])]
    assert Move.objects.get().data == {"square": "c5"}


@pytest.mark.parametrize(
    ("square", "code", "detail"),
    [
        ("a1", "illegal_move", "a1 flips no discs."),
        ("d4", "illegal_move", "d4 is taken."),
        ("z9", "malformed", "'z9' is not a square: squares are a1 to h8."),
    ],
)
def test_a_refused_move_says_why_and_changes_nothing(game, alice, client_for, square, code, detail):
    response = move(client_for(alice), game["id"], square, game["version"])
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert response.json()["detail"] == detail
    assert Game.objects.get(pk=game["id"]).version == game["version"]
    assert Move.objects.count() == 0


def test_circles_takes_no_options(alice, bob, client_for):
    response = client_for(alice).post(
        "/api/v1/games/",
        {"kind": "circles", "seats": [{"user": "bob"}], "options": {"size": 10}},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "bad_options"
    assert "no options" in response.json()["detail"]


def test_the_easy_computer_replies_in_the_background(alice, client_for, run_tasks):
    client = client_for(alice)
    created = create(client, [{"ai_level": "easy"}])
    assert created.status_code == 201, created.json()
    game = created.json()
    played = move(client, game["id"], "e3", game["version"]).json()
    assert played["to_move"] == 1, "the computer does not move inside the human's request"
    run_tasks()
    after = client.get(f"/api/v1/games/{game['id']}/").json()
    assert after["to_move"] == 0
    assert after["version"] == played["version"] + 1
    assert len(after["state"]["record"]) == 4
    assert sum(after["state"]["discs"]) == 6
    assert after["legal_moves"], "white has a move again"


def test_replaying_the_log_gives_the_stored_state(game, alice, bob, client_for):
    a, b = client_for(alice), client_for(bob)
    version = game["version"]
    for player, square in [(a, "e3"), (b, "d3"), (a, "c2")]:
        response = move(player, game["id"], square, version)
        assert response.status_code == 200, response.json()
        version = response.json()["version"]
    stored = Game.objects.get(pk=game["id"])
    assert game_replay(game=stored) == stored.state
    assert RULES.record(RULES.decode(stored.state)) == "e3d3c2"


def test_a_game_played_to_a_wipe_out_is_finished(game, alice, bob, client_for):
    players = [client_for(alice), client_for(bob)]
    version = game["version"]
    record = "e3d3c2f2e2f3c5d2g2"
    for number in range(0, len(record), 2):
        player = players[(number // 2) % 2]
        response = move(player, game["id"], record[number : number + 2], version)
        assert response.status_code == 200, response.json()
        version = response.json()["version"]
    final = response.json()
    assert final["status"] == "finished"
    assert final["to_move"] is None
    assert final["outcome"] == {
        "scores": [13, 0],
        "winners": [0],
        "reason": "more_discs",
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
    assert [seat["score"] for seat in final["seats"]] == [13, 0]


def test_the_record_is_exported_and_imported_through_the_api(alice, client_for):
    client = client_for(alice)
    created = client.post(
        "/api/v1/games/",
        {"kind": "circles", "seats": [{"ai_level": "easy"}], "record": "C5 e6 F5"},
        format="json",
    ).json()
    assert created["move_count"] == 3
    assert created["to_move"] == 1
    assert created["state"]["record"] == "c5e6f5"
    exported = client.get(f"/api/v1/games/{created['id']}/record/").json()
    assert exported == {"kind": "circles", "record": "c5e6f5"}
    log = client.get(f"/api/v1/games/{created['id']}/moves/").json()
    assert [entry["square"] for entry in log] == ["c5", "e6", "f5"]
    assert all(entry["imported"] for entry in log)


def test_imported_moves_are_nobody_s_moves(alice, client_for):
    created = client_for(alice).post(
        "/api/v1/games/",
        {"kind": "circles", "seats": [{"ai_level": "easy"}], "record": "c5e6f5"},
        format="json",
    )
    assert created.status_code == 201
    moves = Move.objects.filter(game_id=created.json()["id"])
    assert list(moves.values_list("player", "imported")) == [(None, True)] * 3


def test_a_record_cannot_seat_another_user(alice, bob, client_for):
    """An import plays every seat's moves: it must never make moves in another player's name."""
    response = client_for(alice).post(
        "/api/v1/games/",
        {"kind": "circles", "seats": [{"user": "bob"}], "record": "c5e6f5"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "bad_seats"
    assert not Game.objects.exists()
    assert not Move.objects.exists()


def test_a_bad_record_is_refused_and_creates_nothing(alice, client_for):
    client = client_for(alice)
    computer = [{"ai_level": "easy"}]
    illegal = client.post(
        "/api/v1/games/",
        {"kind": "circles", "seats": computer, "record": "c5c5"},
        format="json",
    )
    assert illegal.status_code == 400
    assert illegal.json() == {
        "code": "bad_record",
        "detail": "Move 2 of the record: c5 is taken.",
    }
    malformed = client.post(
        "/api/v1/games/",
        {"kind": "circles", "seats": computer, "record": "c5z9"},
        format="json",
    )
    assert malformed.json()["code"] == "bad_record"
    open_seat = client.post(
        "/api/v1/games/",
        {"kind": "circles", "seats": [{"open": True}], "record": "c5"},
        format="json",
    )
    assert open_seat.json()["code"] == "bad_seats"
    assert not Game.objects.exists()
