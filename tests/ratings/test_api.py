"""`/api/v1/leaderboards/{kind}/` and the site's `/leaderboard/<kind>/`."""

import pytest
from rest_framework.test import APIClient

from greycircle.ratings.models import PlayerRating
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


@pytest.fixture
def ratings():
    """Three established ratings, one provisional, one of an inactive account."""
    for username, rating, deviation, active in [
        ("ann", 1700, 60, True),
        ("ben", 1900, 80, True),
        ("cat", 1500, 100, True),
        ("new", 2100, 300, True),
        ("gone", 2000, 50, False),
    ]:
        PlayerRating.objects.create(
            user=UserFactory(username=username, is_active=active),
            kind="tictactoe",
            rating=rating,
            deviation=deviation,
            games=12,
        )


def test_the_leaderboard_lists_established_ratings_of_active_players_best_first(ratings):
    response = APIClient().get("/api/v1/leaderboards/tictactoe/")

    assert response.status_code == 200
    body = response.json()
    assert [(row["rank"], row["username"], row["rating"]) for row in body["results"]] == [
        (1, "ben", 1900),
        (2, "ann", 1700),
        (3, "cat", 1500),
    ]
    assert body["results"][0] == {
        "rank": 1,
        "username": "ben",
        "rating": 1900,
        "deviation": 80,
        "games": 12,
    }


def test_ranks_go_on_across_pages(ratings):
    body = APIClient().get("/api/v1/leaderboards/tictactoe/?page=2&page_size=2").json()

    assert [(row["rank"], row["username"]) for row in body["results"]] == [(3, "cat")]


def test_an_unknown_kind_is_404():
    response = APIClient().get("/api/v1/leaderboards/chess/")

    assert response.status_code == 404
    assert response.json()["code"] == "unknown_kind"


def test_the_leaderboard_page(client, ratings):
    page = client.get("/leaderboard/tictactoe/")

    assert page.status_code == 200
    assert [row["rating"].user.username for row in page.context["rows"]] == ["ben", "ann", "cat"]
    assert "<td>ben</td>" in page.content.decode()
    assert client.get("/leaderboard/chess/").status_code == 404
