"""`/api/v1/leaderboards/{kind}/` and the site's `/leaderboard/<kind>/`, each speed its own board
(correspondence unless `?speed=live`)."""

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from greycircle.ratings.models import PlayerRating
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


@pytest.fixture
def ratings():
    """Three established ratings, a provisional one, one of an inactive account, and one after too
    few games to be listed; and two live ratings, one of them of a player rated live only."""
    for username, rating, deviation, games, active in [
        ("ann", 1700, 60, 12, True),
        ("ben", 1900, 80, 12, True),
        ("cat", 1500, 100, 12, True),
        ("new", 1800, 200, 3, True),
        ("gone", 2000, 50, 12, False),
        ("two", 2100, 250, 2, True),
    ]:
        PlayerRating.objects.create(
            user=UserFactory(username=username, is_active=active),
            kind="tictactoe",
            rating=rating,
            deviation=deviation,
            games=games,
        )
    PlayerRating.objects.create(
        user=User.objects.get(username="cat"), kind="tictactoe", speed="live", rating=1750, games=4
    )
    PlayerRating.objects.create(
        user=UserFactory(username="fast"), kind="tictactoe", speed="live", rating=1650, games=5
    )


def test_the_leaderboard_lists_active_players_after_three_rated_games_best_first(ratings):
    response = APIClient().get("/api/v1/leaderboards/tictactoe/")

    assert response.status_code == 200
    body = response.json()
    assert [(row["rank"], row["username"], row["rating"]) for row in body["results"]] == [
        (1, "ben", 1900),
        (2, "new", 1800),
        (3, "ann", 1700),
        (4, "cat", 1500),
    ]
    assert body["results"][0] == {
        "rank": 1,
        "username": "ben",
        "rating": 1900,
        "deviation": 80,
        "games": 12,
        "provisional": False,
    }
    # A young site's board is not empty: a provisional rating is listed, and says so.
    assert body["results"][1]["provisional"] is True


def test_ranks_go_on_across_pages(ratings):
    body = APIClient().get("/api/v1/leaderboards/tictactoe/?page=2&page_size=2").json()

    assert [(row["rank"], row["username"]) for row in body["results"]] == [(3, "ann"), (4, "cat")]


def test_each_speed_has_its_own_board(ratings):
    live = APIClient().get("/api/v1/leaderboards/tictactoe/?speed=live").json()["results"]
    correspondence = APIClient().get("/api/v1/leaderboards/tictactoe/?speed=correspondence")

    assert [(row["rank"], row["username"], row["rating"]) for row in live] == [
        (1, "cat", 1750),
        (2, "fast", 1650),
    ]
    assert [row["username"] for row in correspondence.json()["results"]] == [
        "ben",
        "new",
        "ann",
        "cat",
    ]


def test_an_unknown_speed_is_400(ratings):
    response = APIClient().get("/api/v1/leaderboards/tictactoe/?speed=blitz")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_speed"


def test_an_unknown_kind_is_404():
    response = APIClient().get("/api/v1/leaderboards/chess/")

    assert response.status_code == 404
    assert response.json()["code"] == "unknown_kind"


def test_the_leaderboard_page(client, ratings):
    page = client.get("/leaderboard/tictactoe/")

    assert page.status_code == 200
    assert [row["rating"].user.username for row in page.context["rows"]] == [
        "ben",
        "new",
        "ann",
        "cat",
    ]
    content = page.content.decode()
    assert "<td>ben</td>" in content
    assert '<td title="±80">1900</td>' in content
    provisional = '<abbr class="provisional" title="provisional">?</abbr>'
    assert f'<td title="±200, provisional">1800{provisional}</td>' in content
    assert "a player is listed after 3 rated games. A rating marked ? is provisional" in content
    assert client.get("/leaderboard/chess/").status_code == 404


def test_the_page_switches_between_the_speeds(client, ratings):
    page = client.get("/leaderboard/tictactoe/?speed=live")

    assert [row["rating"].user.username for row in page.context["rows"]] == ["cat", "fast"]
    content = page.content.decode()
    assert "<title>Tic-tac-toe leaderboard (live)" in content
    # The switch: links (a keyboard reaches them), the board shown marked as the current page.
    assert (
        '<a class="button button--small" href="/leaderboard/tictactoe/?speed=correspondence">'
        "Correspondence</a>" in content
    )
    assert (
        '<a class="button button--small button--primary" href="/leaderboard/tictactoe/?speed=live"'
        ' aria-current="page">Live</a>' in content
    )
    assert client.get("/leaderboard/tictactoe/?speed=blitz").status_code == 404


def test_an_empty_leaderboard_says_what_it_takes(client):
    page = client.get("/leaderboard/tictactoe/")

    assert "Nobody has played 3 rated correspondence games of Tic-tac-toe yet" in (
        page.content.decode()
    )
