"""`/api/v1/users/{username}/` and the site's `/u/<username>/`."""

import pytest

from accounts.friends import user_block
from greycircle.games import services
from greycircle.games.services import SeatSpec
from greycircle.ratings.models import PlayerRating
from tests.factories import game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


def test_a_profile_shows_statistics_and_recent_games(alice, bob, client_for):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    for version, (player, cell) in enumerate([(alice, 0), (bob, 3), (alice, 1), (bob, 4)]):
        services.move_submit(
            game_id=game.pk,
            user=player,
            move={"cell": cell},
            expected_version=game.version + version,
        )  # two moves each: a game long enough to be rated
    services.game_resign(game_id=game.pk, user=bob)

    response = client_for(bob).get("/api/v1/users/alice/")

    assert response.status_code == 200
    body = response.json()
    assert body["username"] == "alice"
    assert body["online"] is False
    [tictactoe] = body["statistics"]
    assert tictactoe["kind"] == "tictactoe"
    assert tictactoe["all"] == {"played": 1, "won": 1, "lost": 0, "tied": 0}
    assert tictactoe["head_to_head"] == {"played": 1, "won": 0, "lost": 1, "tied": 0}
    [rating] = tictactoe["ratings"]
    assert (rating["speed"], rating["provisional"]) == ("correspondence", True)
    assert [recent["id"] for recent in body["recent_games"]] == [game.pk]


def test_nobody_inactive_and_blocked_profiles_are_404(alice, bob, carol, client_for):
    carol.is_active = False
    carol.save()
    user_block(blocker=bob, username="alice")

    for viewer, username in [(alice, "nobody"), (alice, "carol"), (alice, "bob"), (bob, "alice")]:
        response = client_for(viewer).get(f"/api/v1/users/{username}/")
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"


def test_the_profile_page(alice, bob, client):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    services.game_resign(game_id=game.pk, user=alice)
    client.force_login(bob)

    page = client.get("/u/alice/")

    assert page.status_code == 200
    text = page.content.decode()
    assert "Against people" in text
    assert f'data-game-id="{game.pk}"' in text
    assert client.get("/u/nobody/").status_code == 404


def test_the_profile_page_shows_a_rating_per_speed(alice, bob, client):
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    services.game_resign(game_id=game.pk, user=alice)
    PlayerRating.objects.create(user=alice, kind="tictactoe", rating=1610, deviation=80, games=9)
    PlayerRating.objects.create(
        user=alice, kind="tictactoe", speed="live", rating=1480, deviation=200, games=2
    )

    client.force_login(bob)

    text = client.get("/u/alice/").content.decode()

    assert '<span class="muted">correspondence 1610</span> · <span class="muted">live 1480?' in text
    assert (
        'Correspondence rating 1610 ±80 after 9 rated games. <a href="/leaderboard/tictactoe/'
        '?speed=correspondence">Correspondence leaderboard</a>' in text
    )
    assert (
        'Live rating 1480 ±200 after 2 rated games (provisional). <a href="/leaderboard/'
        'tictactoe/?speed=live">Live leaderboard</a>' in text
    )
