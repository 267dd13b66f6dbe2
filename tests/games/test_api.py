"""The games REST API, end to end on the real database, with tic-tac-toe as the game."""

import pytest

from accounts.models import Block
from greycircle.games.models import Game, GameStatus, Move
from tests.factories import accept_invitations, let_anyone_invite
from tests.games.api_requests import create, move

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("tictactoe")]


# `game`: a tic-tac-toe game in play between alice and bob, as alice's envelope (conftest).


def test_a_game_against_a_user_waits_for_their_acceptance(alice, bob, client_for):
    let_anyone_invite(bob)
    created = create(client_for(alice), [{"user": "bob"}]).json()
    assert created["status"] == "open"
    assert created["state"] is None
    assert [seat["name"] for seat in created["seats"]] == ["alice", "bob"]
    [invitation] = created["invitations"]
    assert (invitation["seat"], invitation["user"], invitation["status"]) == (1, "bob", "pending")

    accepted = client_for(bob).post(f"/api/v1/invitations/{invitation['id']}/accept/")
    assert accepted.status_code == 200, accepted.json()
    assert accepted.json()["status"] == "active"
    assert accepted.json()["you"] == 1


def test_once_accepted_a_game_against_a_user_is_in_play(game):
    assert game["status"] == "active"
    assert game["you"] == 0
    assert game["to_move"] == 0
    assert [seat["name"] for seat in game["seats"]] == ["alice", "bob"]
    assert game["state"] == {"cells": [None] * 9}
    assert game["legal_moves"] == [{"cell": cell} for cell in range(9)]
    assert "seed" not in game


def test_open_game_waits_then_starts_when_joined(alice, bob, client_for):
    created = create(client_for(alice), [{"open": True}]).json()
    assert created["status"] == "open"
    assert created["state"] is None

    listed = client_for(bob).get("/api/v1/games/open/").json()
    assert [g["id"] for g in listed["results"]] == [created["id"]]
    assert client_for(alice).get("/api/v1/games/open/").json()["results"] == []

    joined = client_for(bob).post(f"/api/v1/games/{created['id']}/join/").json()
    assert joined["status"] == "active"
    assert joined["you"] == 1
    assert joined["seats"][1]["user"] == "bob"


def test_joining_a_full_game_is_refused(game, carol, client_for):
    response = client_for(carol).post(f"/api/v1/games/{game['id']}/join/")
    assert response.status_code == 400
    assert response.json()["code"] == "not_open"


def test_create_with_bad_input_gets_one_error_shape(alice, client_for):
    client = client_for(alice)
    unknown_kind = client.post("/api/v1/games/", {"kind": "chess", "seats": []}, format="json")
    assert unknown_kind.status_code == 400
    assert unknown_kind.json()["code"] == "unknown_kind"

    no_seats = client.post("/api/v1/games/", {"kind": "tictactoe"}, format="json")
    assert no_seats.json()["code"] == "invalid"
    assert "seats" in no_seats.json()["fields"]

    too_few = create(client, [])
    assert too_few.status_code == 400
    assert too_few.json()["code"] == "bad_seats"

    nobody = create(client, [{"user": "nobody"}])
    assert nobody.status_code == 400
    assert nobody.json()["fields"]

    bad_level = create(client, [{"ai_level": "genius"}])
    assert bad_level.json()["code"] == "bad_ai_level"

    bad_options = create(client, [{"ai_level": "first"}], options={"size": 4})
    assert bad_options.json()["code"] == "bad_options"
    assert Game.objects.count() == 0


def test_a_full_game_to_the_end(game, alice, bob, client_for):
    a, b = client_for(alice), client_for(bob)
    version = game["version"]
    for player, cell in [(a, 0), (b, 3), (a, 1), (b, 4), (a, 2)]:
        response = move(player, game["id"], cell, version)
        assert response.status_code == 200, response.json()
        version = response.json()["version"]
    final = response.json()
    assert final["status"] == "finished"
    assert final["outcome"] == {
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
    assert final["to_move"] is None
    assert final["legal_moves"] == []
    log = a.get(f"/api/v1/games/{game['id']}/moves/").json()
    assert [entry["number"] for entry in log] == [1, 2, 3, 4, 5]
    assert [entry["cell"] for entry in log] == [0, 3, 1, 4, 2]


def test_the_move_log_shows_private_detail_only_to_its_seat(game, alice, bob, carol, client_for):
    move(client_for(alice), game["id"], 4, game["version"])
    assert client_for(alice).get(f"/api/v1/games/{game['id']}/moves/").json()[0]["mine"] is True
    assert "mine" not in client_for(bob).get(f"/api/v1/games/{game['id']}/moves/").json()[0]
    assert "mine" not in client_for(carol).get(f"/api/v1/games/{game['id']}/moves/").json()[0]


def test_legal_moves_go_only_to_the_seat_to_move(game, bob, carol, client_for):
    assert client_for(bob).get(f"/api/v1/games/{game['id']}/").json()["legal_moves"] == []
    spectator = client_for(carol).get(f"/api/v1/games/{game['id']}/").json()
    assert spectator["you"] is None
    assert spectator["legal_moves"] == []


@pytest.mark.parametrize(
    ("who", "cell", "status", "code"),
    [
        ("bob", 0, 403, "not_your_turn"),
        ("carol", 0, 403, "not_a_player"),
        ("alice", 9, 400, "malformed"),
    ],
)
def test_refused_moves_change_nothing(game, client_for, who, cell, status, code, request):
    user = request.getfixturevalue(who)
    response = move(client_for(user), game["id"], cell, game["version"])
    assert response.status_code == status
    assert response.json()["code"] == code
    assert response.json()["detail"]
    stored = Game.objects.get(pk=game["id"])
    assert stored.version == game["version"]
    assert Move.objects.count() == 0


def test_an_illegal_move_is_refused(game, alice, bob, client_for):
    played = move(client_for(alice), game["id"], 4, game["version"]).json()
    response = move(client_for(bob), game["id"], 4, played["version"])
    assert response.status_code == 400
    assert response.json()["code"] == "illegal_move"
    assert Game.objects.get(pk=game["id"]).version == played["version"]
    assert Move.objects.count() == 1


def test_a_stale_version_gets_409_with_the_current_version(game, alice, bob, client_for):
    first = move(client_for(alice), game["id"], 4, game["version"]).json()
    response = move(client_for(bob), game["id"], 0, game["version"])
    assert response.status_code == 409
    assert response.json() == {
        "code": "stale_version",
        "detail": response.json()["detail"],
        "current_version": first["version"],
    }
    assert Move.objects.count() == 1


def test_the_same_idempotency_key_plays_once(game, alice, client_for):
    client = client_for(alice)
    first = move(client, game["id"], 4, game["version"], **{"Idempotency-Key": "k1"})
    again = move(client, game["id"], 4, game["version"], **{"Idempotency-Key": "k1"})
    assert first.status_code == again.status_code == 200
    assert again.json()["version"] == first.json()["version"]
    assert Move.objects.count() == 1


def test_a_finished_game_takes_no_moves(game, alice, bob, client_for):
    resigned = client_for(bob).post(f"/api/v1/games/{game['id']}/resign/").json()
    assert resigned["status"] == "finished"
    assert resigned["outcome"]["winners"] == [0]
    assert resigned["outcome"]["reason"] == "resignation"
    response = move(client_for(alice), game["id"], 4, resigned["version"])
    assert response.status_code == 400
    assert response.json()["code"] == "game_not_active"
    again = client_for(alice).post(f"/api/v1/games/{game['id']}/resign/")
    assert again.status_code == 400


def test_rematch_turns_the_seats_and_is_created_once(game, alice, bob, client_for):
    client_for(bob).post(f"/api/v1/games/{game['id']}/resign/")
    rematch = client_for(bob).post(f"/api/v1/games/{game['id']}/rematch/")
    assert rematch.status_code == 201
    body = rematch.json()
    assert [seat["user"] for seat in body["seats"]] == ["bob", "alice"]
    assert body["status"] == "open", "alice is asked, not seated in a new game unasked"
    assert body["you"] == 0
    same = client_for(alice).post(f"/api/v1/games/{game['id']}/rematch/").json()
    assert same["id"] == body["id"]
    assert same["you"] == 1
    [invitation] = same["invitations"]
    assert (invitation["user"], invitation["status"]) == ("alice", "pending")
    accepted = client_for(alice).post(f"/api/v1/invitations/{invitation['id']}/accept/")
    assert accepted.json()["status"] == "active"
    original = client_for(alice).get(f"/api/v1/games/{game['id']}/").json()
    assert original["rematch_id"] == body["id"]


def test_rematch_needs_a_finished_game(game, alice, client_for):
    response = client_for(alice).post(f"/api/v1/games/{game['id']}/rematch/")
    assert response.status_code == 400
    assert response.json()["code"] == "game_not_over"


def test_list_filters_by_kind_status_and_my_turn(game, alice, bob, client_for):
    assert [
        g["id"] for g in client_for(alice).get("/api/v1/games/?my_turn=1").json()["results"]
    ] == [game["id"]]
    assert client_for(bob).get("/api/v1/games/?my_turn=1").json()["results"] == []
    assert client_for(bob).get("/api/v1/games/?status=active").json()["count"] == 1
    assert client_for(bob).get("/api/v1/games/?status=finished").json()["count"] == 0
    assert client_for(bob).get("/api/v1/games/?kind=circles").json()["count"] == 0


def test_poke_reminds_once_per_interval(game, bob, client_for):
    client = client_for(bob)
    assert client.post(f"/api/v1/games/{game['id']}/poke/").status_code == 204
    again = client.post(f"/api/v1/games/{game['id']}/poke/")
    assert again.status_code == 429
    body = again.json()
    assert body["code"] == "poke_too_soon"
    assert 290 <= body["retry_after"] <= 300
    assert again["Retry-After"] == str(body["retry_after"])
    assert body["detail"] == (
        "You reminded alice a moment ago; you can remind them again in 5 minutes."
    )


def test_a_new_game_does_not_reset_the_reminder_limit(game, alice, bob, client_for):
    assert client_for(bob).post(f"/api/v1/games/{game['id']}/poke/").status_code == 204
    another = create(client_for(alice), [{"user": "bob"}]).json()
    accept_invitations(another["id"])

    again = client_for(bob).post(f"/api/v1/games/{another['id']}/poke/")
    assert again.status_code == 429
    assert again.json()["code"] == "poke_too_soon"


def test_poke_refusals(game, alice, bob, client_for):
    def poke(user):
        response = client_for(user).post(f"/api/v1/games/{game['id']}/poke/")
        return response.status_code, response.json()["code"]

    assert poke(alice) == (400, "nobody_to_poke")  # her own turn
    Block.objects.create(blocker=alice, blocked=bob)
    assert poke(bob) == (400, "cannot_remind")
    Block.objects.all().delete()
    Block.objects.create(blocker=bob, blocked=alice)
    assert poke(bob) == (400, "cannot_remind")
    client_for(alice).post(f"/api/v1/games/{game['id']}/resign/")
    assert poke(bob) == (400, "game_not_active")


def test_the_schema_lists_the_poke_refusals(client):
    schema = client.get("/api/schema/?format=json").json()
    responses = schema["paths"]["/api/v1/games/{id}/poke/"]["post"]["responses"]
    for status, codes in {
        "400": ["game_not_active", "nobody_to_poke", "cannot_remind"],
        "429": ["poke_too_soon", "throttled"],
    }.items():
        for code in codes:
            assert f"`{code}`" in responses[status]["description"]


def test_anonymous_requests_are_refused(game, client):
    response = client.get(f"/api/v1/games/{game['id']}/")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_unknown_game_is_404(alice, client_for):
    response = client_for(alice).get("/api/v1/games/999999/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_a_computer_seat_moves_in_the_background(alice, client_for, run_tasks):
    client = client_for(alice)
    game = create(client, [{"ai_level": "first"}]).json()
    played = move(client, game["id"], 4, game["version"]).json()
    assert played["to_move"] == 1, "the computer does not move inside the human's request"
    run_tasks()
    after = client.get(f"/api/v1/games/{game['id']}/").json()
    assert after["to_move"] == 0
    assert after["state"]["cells"][0] == 1
    assert after["version"] == played["version"] + 1


def test_replaying_the_log_from_the_seed_gives_the_stored_state(game, alice, bob, client_for):
    from greycircle.games.selectors import game_replay

    a, b = client_for(alice), client_for(bob)
    version = game["version"]
    for player, cell in [(a, 4), (b, 0), (a, 8)]:
        version = move(player, game["id"], cell, version).json()["version"]
    stored = Game.objects.get(pk=game["id"])
    assert game_replay(game=stored) == stored.state
    assert stored.status == GameStatus.ACTIVE


@pytest.mark.usefixtures("rate_window_still")
def test_moves_are_throttled(game, alice, client_for, monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "moves", "2/min")
    client = client_for(alice)
    statuses = [move(client, game["id"], 4, 0).status_code for _ in range(3)]
    assert statuses == [409, 409, 429]
    throttled = move(client, game["id"], 4, 0)
    assert throttled.json()["code"] == "throttled"
    assert "Retry-After" in throttled.headers


# --- open tables: withdrawing (cancel) ---------------------------------------------------------


@pytest.fixture
def table(alice, client_for):
    response = create(client_for(alice), [{"open": True}])
    assert response.status_code == 201, response.json()
    return response.json()


def test_the_creator_withdraws_an_open_table(table, alice, bob, client_for):
    assert table["created_by"] == "alice"
    response = client_for(alice).post(f"/api/v1/games/{table['id']}/cancel/")

    assert response.status_code == 200, response.json()
    withdrawn = response.json()
    assert withdrawn["status"] == "cancelled"
    assert withdrawn["outcome"] is None
    assert withdrawn["version"] == table["version"] + 1
    assert client_for(bob).get("/api/v1/games/open/").json()["results"] == []
    joined = client_for(bob).post(f"/api/v1/games/{table['id']}/join/")
    assert joined.status_code == 400
    assert joined.json()["code"] == "not_open"


def test_withdrawing_is_refused_to_anybody_but_the_creator(table, bob, client_for):
    response = client_for(bob).post(f"/api/v1/games/{table['id']}/cancel/")
    assert response.status_code == 403
    assert response.json()["code"] == "not_the_creator"
    assert Game.objects.get(pk=table["id"]).status == GameStatus.OPEN


def test_a_started_game_cannot_be_withdrawn(table, alice, bob, client_for):
    client_for(bob).post(f"/api/v1/games/{table['id']}/join/")

    response = client_for(alice).post(f"/api/v1/games/{table['id']}/cancel/")
    assert response.status_code == 400
    assert response.json()["code"] == "not_open"
    assert client_for(bob).post(f"/api/v1/games/{table['id']}/cancel/").status_code == 403
    assert client_for(alice).post("/api/v1/games/999999/cancel/").status_code == 404


def test_anybody_signed_in_with_the_link_sees_an_open_table_and_may_join(table, carol, client_for):
    seen = client_for(carol).get(f"/api/v1/games/{table['id']}/").json()
    assert seen["status"] == "open"
    assert seen["you"] is None
    assert seen["state"] is None
    assert client_for(carol).post(f"/api/v1/games/{table['id']}/join/").json()["you"] == 1


# --- my games: the three lists -------------------------------------------------------------


def test_my_games_come_in_three_lists(game, table, alice, bob, client_for):
    a, b = client_for(alice), client_for(bob)

    def listed(client, which):
        response = client.get(f"/api/v1/games/?list={which}")
        assert response.status_code == 200, response.json()
        return [g["id"] for g in response.json()["results"]]

    assert listed(a, "my_turn") == [game["id"]]
    assert listed(a, "their_turn") == [table["id"]]
    assert listed(b, "their_turn") == [game["id"]]
    assert listed(a, "finished") == []
    b.post(f"/api/v1/games/{game['id']}/resign/")
    assert listed(a, "finished") == listed(b, "finished") == [game["id"]]
    assert listed(a, "my_turn") == []


def test_my_turn_still_means_the_my_turn_list(game, alice, client_for):
    client = client_for(alice)
    assert (
        client.get("/api/v1/games/?my_turn=true").json()["results"]
        == (client.get("/api/v1/games/?list=my_turn").json()["results"])
    )
    assert client.get("/api/v1/games/?my_turn=true&list=my_turn").status_code == 200


@pytest.mark.parametrize(
    ("query", "field"),
    [("list=mine", "list"), ("list=finished&my_turn=true", "my_turn")],
)
def test_a_bad_list_is_refused(game, alice, client_for, query, field):
    response = client_for(alice).get(f"/api/v1/games/?{query}")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert field in response.json()["fields"]


def test_lists_are_paginated_newest_first(alice, bob, client_for):
    client = client_for(alice)
    let_anyone_invite(bob)
    made = [create(client, [{"user": "bob"}]).json()["id"] for _ in range(3)]
    for game_id in made:
        accept_invitations(game_id)
    first = client.get("/api/v1/games/?list=my_turn&page_size=2").json()
    second = client.get("/api/v1/games/?list=my_turn&page_size=2&page=2").json()
    assert first["count"] == 3
    assert [g["id"] for g in first["results"] + second["results"]] == made[::-1]


# --- watching: live games and unlisted games -------------------------------------------------


def test_live_games_list_games_between_people(game, table, alice, carol, client_for):
    create(client_for(alice), [{"ai_level": "first"}])

    response = client_for(carol).get("/api/v1/games/live/")

    assert response.status_code == 200
    assert [g["id"] for g in response.json()["results"]] == [game["id"]]
    assert response.json()["results"][0]["you"] is None
    assert client_for(carol).get("/api/v1/games/live/?kind=chess").json()["code"] == (
        "unknown_kind"
    )


def test_an_unlisted_game_is_never_listed(alice, bob, carol, client_for):
    a = client_for(alice)
    let_anyone_invite(bob)
    table = create(a, [{"open": True}], unlisted=True).json()
    duel = create(a, [{"user": "bob"}], unlisted=True).json()
    assert table["unlisted"] is True
    assert duel["unlisted"] is True

    c = client_for(carol)
    assert c.get("/api/v1/games/open/").json()["results"] == []
    assert c.get("/api/v1/games/live/").json()["results"] == []
    assert {g["id"] for g in a.get("/api/v1/games/").json()["results"]} == {
        table["id"],
        duel["id"],
    }
    # With its link (the key its players see) it can be seen, and the open one joined.
    assert c.get(f"/api/v1/games/{duel['id']}/?key={duel['link_key']}").status_code == 200
    joined = c.post(f"/api/v1/games/{table['id']}/join/?key={table['link_key']}")
    assert joined.json()["status"] == "active"
    assert c.get("/api/v1/games/live/").json()["results"] == []
    assert create(a, [{"user": "bob"}]).json()["unlisted"] is False


@pytest.mark.parametrize(
    "url", ["/api/v1/games/", "/api/v1/games/?list=their_turn", "/api/v1/games/live/"]
)
def test_a_page_of_games_costs_the_same_queries_however_long(
    url, alice, bob, user_factory, client_for
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = client_for(alice)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    let_anyone_invite(alice)
    for _ in range(2):
        create(client_for(user_factory()), [{"user": "alice"}])
    few = queries()
    for _ in range(15):
        create(client_for(user_factory()), [{"user": "alice"}])
    assert queries() == few
