"""The games REST API against hostile input: throttles, lookups counted before they are made,
large or malformed bodies and filters refused with one error shape and never echoed back."""

import pytest

from greycircle.games.models import Game, Move
from tests.factories import accept_invitations, let_anyone_invite
from tests.games.api_requests import create, move

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("tictactoe")]


@pytest.mark.usefixtures("rate_window_still")
def test_starting_games_is_throttled_per_user(alice, bob, client_for):
    """One account seating another in game after game would flood them with invitations."""
    from rest_framework.throttling import ScopedRateThrottle

    rate = ScopedRateThrottle.THROTTLE_RATES.get("game_create", "1000/min")
    allowed, _ = ScopedRateThrottle().parse_rate(rate)
    assert allowed < 20, "the default rate (THROTTLE_GAME_CREATE) lets a burst of 20 through"
    client = client_for(alice)
    let_anyone_invite(bob)
    responses = [create(client, [{"user": "bob"}]) for _ in range(20)]
    assert [r.status_code for r in responses] == [201] * allowed + [429] * (20 - allowed)
    throttled = responses[-1]
    assert throttled.json()["code"] == "throttled"
    assert int(throttled.headers["Retry-After"]) > 0
    assert Game.objects.filter(seats__user=bob).count() == allowed


@pytest.mark.usefixtures("rate_window_still")
def test_rematches_share_the_budget_for_starting_games(alice, bob, client_for, monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "game_create", "2/min")
    a = client_for(alice)
    let_anyone_invite(bob)
    game = create(a, [{"user": "bob"}]).json()
    accept_invitations(game["id"])
    client_for(bob).post(f"/api/v1/games/{game['id']}/resign/")
    assert a.post(f"/api/v1/games/{game['id']}/rematch/").status_code == 201
    assert create(a, [{"user": "bob"}]).status_code == 429
    refused = a.post(f"/api/v1/games/{game['id']}/rematch/")
    assert refused.status_code == 429
    assert "Retry-After" in refused.headers
    assert client_for(bob).get(f"/api/v1/games/{game['id']}/").status_code == 200


def _username_lookups(queries) -> list[str]:
    """The queries that look users up by name (the session's user is loaded by id)."""
    wheres = (query["sql"].lower().partition(" where ")[2] for query in queries)
    return [where for where in wheres if "username" in where]


def test_seats_are_counted_before_anyone_is_looked_up(alice, client_for):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = client_for(alice)
    with CaptureQueriesContext(connection) as two:
        few = create(client, [{"user": "p1"}, {"user": "p2"}])  # 3 players at tic-tac-toe
    with CaptureQueriesContext(connection) as many:
        lots = create(client, [{"user": f"p{n}"} for n in range(2000)])
    assert _username_lookups(many.captured_queries) == []
    assert len(many.captured_queries) == len(two.captured_queries)
    assert few.status_code == lots.status_code == 400
    assert few.json()["code"] == lots.json()["code"] == "bad_seats"


def test_invited_players_are_looked_up_together_ignoring_case(alice, bob, carol, client_for):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    let_anyone_invite(bob, carol)
    with CaptureQueriesContext(connection) as queries:
        response = client_for(alice).post(
            "/api/v1/games/",
            {
                "kind": "kingscorner",
                "seats": [{"user": "BOB"}, {"ai_level": "easy"}, {"user": "Carol"}],
            },
            format="json",
        )
    assert response.status_code == 201, response.json()
    assert [seat["user"] for seat in response.json()["seats"]] == ["alice", "bob", None, "carol"]
    assert len(_username_lookups(queries.captured_queries)) == 1


def test_an_invited_player_is_found_by_the_full_width_form_of_their_name(alice, bob, client_for):
    let_anyone_invite(bob)
    response = create(client_for(alice), [{"user": "\uff42\uff4f\uff42"}])  # full-width "bob"
    assert response.status_code == 201, response.json()
    assert response.json()["seats"][1]["user"] == "bob"


def test_an_unknown_player_is_named_per_seat(alice, bob, client_for):
    response = create(client_for(alice), [{"user": "nobody"}])
    assert response.status_code == 400
    assert response.json()["fields"] == {"seats": [{"user": ["No player is called nobody."]}]}


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"kind": "x" * 10_000, "seats": []}, "unknown_kind"),
        ({"kind": "tictactoe", "seats": [{"user": "y" * 10_000}]}, "invalid"),
        ({"kind": "tictactoe", "seats": [{"ai_level": "z" * 10_000}]}, "invalid"),
        (
            {"kind": "circles", "seats": [{"ai_level": "easy"}], "options": {"w" * 10_000: 1}},
            "bad_options",
        ),
        (
            {"kind": "circles", "seats": [{"ai_level": "easy"}], "record": "c5" + "v" * 9_000},
            "bad_record",
        ),
    ],
    ids=["kind", "username", "ai_level", "option", "record"],
)
def test_large_bad_input_is_not_echoed_back(alice, client_for, body, code):
    response = client_for(alice).post("/api/v1/games/", body, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert len(response.content) < 1_000
    assert Game.objects.count() == 0


def test_a_large_bad_move_is_not_echoed_back(alice, client_for):
    client = client_for(alice)
    game = client.post(
        "/api/v1/games/", {"kind": "circles", "seats": [{"ai_level": "easy"}]}, format="json"
    ).json()
    response = client.post(
        f"/api/v1/games/{game['id']}/moves/",
        {"expected_version": game["version"], "move": {"square": "q" * 10_000}},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "malformed"
    assert len(response.content) < 1_000


def test_an_over_long_idempotency_key_is_refused_not_cut(game, alice, client_for):
    client = client_for(alice)
    refused = move(client, game["id"], 4, game["version"], **{"Idempotency-Key": "k" * 129})
    assert refused.status_code == 400
    assert refused.json()["code"] == "bad_idempotency_key"
    assert Move.objects.count() == 0
    played = move(client, game["id"], 4, game["version"], **{"Idempotency-Key": "k" * 128})
    assert played.status_code == 200
    assert Move.objects.get().idempotency_key == "k" * 128


@pytest.mark.parametrize(
    ("query", "code", "field"),
    [
        ("/api/v1/games/?status=bogus", "invalid", "status"),
        ("/api/v1/games/?my_turn=perhaps", "invalid", "my_turn"),
        ("/api/v1/games/?kind=chess", "unknown_kind", "kind"),
        ("/api/v1/games/open/?kind=chess", "unknown_kind", "kind"),
    ],
)
def test_bad_filters_are_refused(game, alice, client_for, query, code, field):
    response = client_for(alice).get(query)
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert field in response.json()["fields"]


def test_empty_and_boolean_filters_are_understood(game, alice, client_for):
    client = client_for(alice)
    assert client.get("/api/v1/games/?kind=&status=").json()["count"] == 1
    assert client.get("/api/v1/games/?my_turn=true").json()["count"] == 1
    assert client.get("/api/v1/games/?my_turn=0&kind=tictactoe").json()["count"] == 1
    assert client.get("/api/v1/games/open/?kind=tictactoe").json()["count"] == 0


@pytest.mark.parametrize(
    ("query", "status", "field"),
    [("?page=999", 404, None), ("?page=x", 400, "page"), ("?page=0", 400, "page")],
)
def test_an_invalid_page_is_an_api_error(game, alice, client_for, query, status, field):
    response = client_for(alice).get(f"/api/v1/games/{query}")
    assert response.status_code == status
    assert response.json()["code"] == "invalid_page"
    assert response.json()["detail"]
    if field:
        assert field in response.json()["fields"]


def test_an_invalid_page_size_is_refused(game, alice, client_for):
    response = client_for(alice).get("/api/v1/games/?page_size=lots")
    assert response.status_code == 400
    assert "page_size" in response.json()["fields"]
    assert client_for(alice).get("/api/v1/games/?page_size=1000").status_code == 200


def test_the_move_log_is_a_plain_list_of_every_move(game, alice, bob, client_for):
    a, b = client_for(alice), client_for(bob)
    version = game["version"]
    for player, cell in [(a, 4), (b, 0), (a, 8)]:
        version = move(player, game["id"], cell, version).json()["version"]
    log = a.get(f"/api/v1/games/{game['id']}/moves/?page=2").json()
    assert isinstance(log, list)
    assert [entry["number"] for entry in log] == [1, 2, 3]
    assert {entry["imported"] for entry in log} == {False}
