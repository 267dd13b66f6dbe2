"""King's Corner through the real REST API: hidden hands, moves, the private draw, the computer."""

from __future__ import annotations

import json
import re

import pytest

from greycircle.games.models import Game, GameStatus
from greycircle.games.selectors import game_replay
from kingscorner.cards import card_name, parse_card
from kingscorner.rules import RULES, position
from tests.factories import accept_invitations, let_anyone_invite

pytestmark = pytest.mark.django_db(transaction=True)

CARD_TOKEN = re.compile(r'"([A2-9TJQK][CDHS])"')

ALICE = ["7D", "9C", "2H", "4S", "JD", "QC", "6H"]
BOB = ["3C", "5D", "8H", "TS", "JC", "2S", "AD"]
COMPUTER = ["4D", "6S", "9H", "TC", "QD", "KH", "3H"]
PILES = {"N": ["8C"], "E": ["KS"], "S": ["5S"], "W": ["TD"]}
STOCK_TOP = ["5C", "9D", "3D"]


def cards_in(data: object) -> set[str]:
    return set(CARD_TOKEN.findall(json.dumps(data)))


def create(client, seats):
    response = client.post("/api/v1/games/", {"kind": "kingscorner", "seats": seats}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def submit(client, game_id, move, version):
    return client.post(
        f"/api/v1/games/{game_id}/moves/",
        {"expected_version": version, "move": move},
        format="json",
    )


@pytest.fixture
def game(alice, bob, client_for):
    """A 3-seat game: alice, bob and an easy computer, dealt from the game's secret seed."""
    let_anyone_invite(bob)
    game = create(client_for(alice), [{"user": "bob"}, {"ai_level": "easy"}])
    accept_invitations(game["id"])
    return client_for(alice).get(f"/api/v1/games/{game['id']}/").json()


@pytest.fixture
def known_game(game):
    """The same game with a known deal, so the test can name the cards it plays and draws."""
    named = ALICE + BOB + COMPUTER + [c for pile in PILES.values() for c in pile] + STOCK_TOP
    rest = [card_name(c) for c in range(52) if card_name(c) not in named]
    state = position(hands=[ALICE, BOB, COMPUTER], piles=PILES, stock=STOCK_TOP + rest)
    Game.objects.filter(pk=game["id"]).update(state=RULES.encode(state))
    return game


def test_each_seat_sees_its_own_hand_and_only_the_seat_to_move_gets_moves(
    game, alice, bob, carol, client_for
):
    stored = RULES.decode(Game.objects.get(pk=game["id"]).state)
    hands = [{card_name(c) for c in hand} for hand in stored.hands]
    stock = {card_name(c) for c in stored.stock}

    mine = client_for(alice).get(f"/api/v1/games/{game['id']}/").json()
    assert mine["kind"] == "kingscorner"
    assert mine["status"] == "active"
    assert (mine["you"], mine["to_move"]) == (0, 0)
    assert len(mine["state"]["hand"]) == 7
    assert set(mine["state"]["hand"]) == hands[0]
    assert mine["state"]["hand_sizes"] == [7, 7, 7]
    assert mine["state"]["stock"] == 52 - 21 - 4
    assert mine["legal_moves"][-1] == {"action": "end_turn"}
    assert all(move["card"] in hands[0] for move in mine["legal_moves"] if "card" in move)
    assert not cards_in(mine) & (hands[1] | hands[2] | stock)

    theirs = client_for(bob).get(f"/api/v1/games/{game['id']}/").json()
    assert theirs["you"] == 1
    assert set(theirs["state"]["hand"]) == hands[1]
    assert theirs["legal_moves"] == []
    assert not cards_in(theirs) & (hands[0] | hands[2] | stock)

    spectator = client_for(carol).get(f"/api/v1/games/{game['id']}/").json()
    assert spectator["you"] is None
    assert "hand" not in spectator["state"]
    assert not cards_in(spectator) & (hands[0] | hands[1] | hands[2] | stock)


def test_plays_and_draws_through_the_api(known_game, alice, bob, carol, client_for, run_tasks):
    game_id = known_game["id"]
    a, b = client_for(alice), client_for(bob)
    start = a.get(f"/api/v1/games/{game_id}/").json()
    assert start["state"]["hand"] == sorted(ALICE, key=parse_card)
    play = {"action": "play", "card": "7D", "to": "N"}
    assert play in start["legal_moves"]

    played = submit(a, game_id, play, start["version"])
    assert played.status_code == 200, played.json()
    assert played.json()["state"]["piles"]["N"] == ["8C", "7D"]
    assert played.json()["state"]["plays_this_turn"] == 1
    assert "7D" not in played.json()["state"]["hand"]

    illegal = submit(
        a, game_id, {"action": "play", "card": "9C", "to": "E"}, played.json()["version"]
    )
    assert illegal.status_code == 400
    assert illegal.json()["code"] == "illegal_move"
    assert "one rank lower" in illegal.json()["detail"]
    malformed = submit(a, game_id, {"action": "play", "card": "ZZ"}, played.json()["version"])
    assert malformed.status_code == 400
    assert malformed.json()["code"] == "malformed"

    ended = submit(a, game_id, {"action": "end_turn"}, played.json()["version"])
    assert ended.status_code == 200, ended.json()
    after = ended.json()
    assert "5C" in after["state"]["hand"]
    assert after["state"]["hand_sizes"] == [7, 7, 7]
    assert after["to_move"] == 1
    assert after["legal_moves"] == []
    assert "5C" not in json.dumps(b.get(f"/api/v1/games/{game_id}/").json())

    logs = {
        who: client_for(user).get(f"/api/v1/games/{game_id}/moves/").json()
        for who, user in (("alice", alice), ("bob", bob), ("carol", carol))
    }
    assert [entry["action"] for entry in logs["alice"]] == ["play", "end_turn"]
    assert logs["alice"][0]["card"] == logs["bob"][0]["card"] == "7D"
    assert logs["alice"][1]["drew"] is True
    assert logs["alice"][1]["card"] == "5C"
    assert "card" not in logs["bob"][1]
    assert "card" not in logs["carol"][1]
    assert "5C" not in json.dumps(logs["bob"]) + json.dumps(logs["carol"])

    bob_ended = submit(b, game_id, {"action": "end_turn"}, after["version"]).json()
    assert bob_ended["to_move"] == 2, "the computer does not move inside the human's request"
    run_tasks()
    back = a.get(f"/api/v1/games/{game_id}/").json()
    assert back["to_move"] == 0
    assert back["version"] > bob_ended["version"]
    computer_entries = [
        e for e in a.get(f"/api/v1/games/{game_id}/moves/").json() if e["seat"] == 2
    ]
    assert computer_entries
    assert computer_entries[-1]["action"] == "end_turn"
    assert computer_entries[-1]["drew"] is True
    assert "3D" not in json.dumps(a.get(f"/api/v1/games/{game_id}/moves/").json())
    assert "3D" not in json.dumps(b.get(f"/api/v1/games/{game_id}/").json())
    assert all(e["action"] != "move_pile" for e in computer_entries), "easy never moves piles"


def test_replaying_the_log_from_the_seed_gives_the_stored_state(
    game, alice, bob, client_for, run_tasks
):
    a, b = client_for(alice), client_for(bob)
    version = submit(a, game["id"], {"action": "end_turn"}, game["version"]).json()["version"]
    version = submit(b, game["id"], {"action": "end_turn"}, version).json()["version"]
    run_tasks()
    stored = Game.objects.get(pk=game["id"])
    assert stored.move_count >= 3  # two draws, then the computer's whole turn
    assert stored.moves.filter(seat=2, public__action="end_turn").exists() or (
        stored.status == GameStatus.FINISHED
    )
    assert game_replay(game=stored) == stored.state
