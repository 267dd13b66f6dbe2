"""Time per move through the REST API: the create option, the envelope's fields, the claim."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from greycircle.games.models import Game
from tests.factories import accept_invitations, let_anyone_invite

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


def create(client, seats, **extra):
    return client.post(
        "/api/v1/games/", {"kind": "tictactoe", "seats": seats, **extra}, format="json"
    )


@pytest.fixture
def game(alice, bob, client_for):
    """alice (to move) against bob, one day per move, in play."""
    let_anyone_invite(bob)
    response = create(client_for(alice), [{"user": "bob"}], days_per_move=1)
    assert response.status_code == 201, response.json()
    accept_invitations(response.json()["id"])
    return client_for(alice).get(f"/api/v1/games/{response.json()['id']}/").json()


def claim(client, game_id):
    return client.post(f"/api/v1/games/{game_id}/claim/")


def test_the_time_per_move_is_an_option_of_a_new_game(game, alice, client_for):
    assert game["days_per_move"] == 1
    deadline = parse_datetime(game["move_deadline"])
    assert abs(deadline - (timezone.now() + timedelta(days=1))) < timedelta(minutes=1)
    assert game["can_claim"] is False

    default = create(client_for(alice), [{"ai_level": "first"}]).json()
    assert default["days_per_move"] == 3
    assert default["move_deadline"] is None  # against a computer no time runs

    listed = client_for(alice).get("/api/v1/games/").json()["results"]
    assert {(entry["id"], entry["days_per_move"]) for entry in listed} == {
        (game["id"], 1),
        (default["id"], 3),
    }
    assert all("move_deadline" in entry and "can_claim" in entry for entry in listed)


@pytest.mark.parametrize("value", [2, "two", None, 0])
def test_a_bad_time_per_move_is_refused_with_its_own_code(alice, client_for, value):
    response = create(client_for(alice), [{"ai_level": "first"}], days_per_move=value)

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "bad_days_per_move"
    assert body["detail"] == "The time per move is 1, 3, 7 days."
    assert list(body["fields"]) == ["days_per_move"]
    assert not Game.objects.exists()


def test_claiming_before_time_is_up_is_refused_with_the_time_left(game, bob, client_for):
    response = claim(client_for(bob), game["id"])

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "time_not_up"
    assert body["detail"].startswith("alice still has time to move: 23 hours")
    assert 86400 - 120 < body["retry_after"] <= 86400
    assert parse_datetime(body["deadline"]) == parse_datetime(game["move_deadline"])


def test_claiming_refusals(game, alice, carol, client_for):
    assert claim(client_for(carol), game["id"]).json()["code"] == "not_a_player"
    assert claim(client_for(carol), game["id"]).status_code == 403
    Game.objects.filter(pk=game["id"]).update(move_deadline=timezone.now() - timedelta(seconds=1))
    assert claim(client_for(alice), game["id"]).json()["code"] == "your_turn"
    assert claim(client_for(alice), 999999).status_code == 404


def test_once_time_is_up_the_opponent_sees_can_claim_and_wins(game, alice, bob, client_for):
    Game.objects.filter(pk=game["id"]).update(move_deadline=timezone.now() - timedelta(seconds=1))
    assert client_for(bob).get(f"/api/v1/games/{game['id']}/").json()["can_claim"] is True
    assert client_for(alice).get(f"/api/v1/games/{game['id']}/").json()["can_claim"] is False

    response = claim(client_for(bob), game["id"])

    assert response.status_code == 200, response.json()
    won = response.json()
    assert won["status"] == "finished"
    assert won["outcome"]["winners"] == [1]
    assert won["outcome"]["reason"] == "timeout"
    assert (won["move_deadline"], won["can_claim"], won["you"]) == (None, False, 1)


def test_the_schema_types_the_claim_and_the_new_fields(client):
    schema = client.get("/api/schema/?format=json").json()
    responses = schema["paths"]["/api/v1/games/{id}/claim/"]["post"]["responses"]
    for status, codes in {
        "400": ["game_not_active", "your_turn", "no_deadline", "time_not_up", "takeover_instead"],
        "403": ["not_a_player", "seat_taken_over"],
        "404": ["not_found"],
    }.items():
        for code in codes:
            assert f"`{code}`" in responses[status]["description"], (status, code)
    created = schema["paths"]["/api/v1/games/"]["post"]["responses"]["400"]["description"]
    assert "`bad_days_per_move`" in created
    components = schema["components"]["schemas"]
    for kind in ("Circles", "KingsCorner", "CirKis"):
        summary = components[f"{kind}GameSummary"]
        for name in ("days_per_move", "move_deadline", "can_claim"):
            assert name in summary["properties"]
            assert name in summary["required"]
        assert summary["properties"]["move_deadline"]["nullable"] is True
        assert "taken_over" in components[f"{kind}Seat"]["properties"]
    assert components["DaysPerMoveEnum"]["enum"] == [1, 3, 7]
