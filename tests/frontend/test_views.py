"""The home page, for visitors and for signed-in players."""

import re

import pytest

from greycircle.games.services import SeatSpec, game_create

pytestmark = pytest.mark.django_db


def game_items(html: str) -> list[str]:
    return re.findall(r'<li class="game-list__item".*?</ul>\s*</li>', html, flags=re.S)


def test_home_for_a_visitor_introduces_the_games_and_offers_sign_up(client):
    response = client.get("/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "<title>Grey Circle Games</title>" in html
    for title in ("Circles", "King&rsquo;s Corner", "CirKis"):
        assert f'<h3 class="game-card__title">{title}</h3>' in html
    assert "Othello variant" in html
    assert "Penrose" in html
    assert 'href="/accounts/signup/"' in html
    assert 'href="/accounts/login/"' in html
    assert "Your games" not in html
    assert 'action="/accounts/logout/"' not in html
    assert 'href="/settings/"' not in html


def test_home_for_a_player_without_games(client, alice):
    client.force_login(alice)

    response = client.get("/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "Hello, alice" in html
    assert "Your games" in html
    assert "You have no games yet." in html
    assert response.context["games"] == []
    assert 'href="/settings/"' in html
    assert 'action="/accounts/logout/"' in html
    assert 'href="/accounts/signup/"' not in html


@pytest.mark.usefixtures("tictactoe")
def test_home_lists_the_players_games_with_status_and_seats(client, alice, bob, carol):
    playing = game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    waiting = game_create(creator=bob, kind="tictactoe", opponents=[SeatSpec()])
    not_hers = game_create(creator=bob, kind="tictactoe", opponents=[SeatSpec(user=carol)])
    client.force_login(alice)

    response = client.get("/")

    games = response.context["games"]
    assert {game["id"] for game in games} == {playing.pk}
    html = response.content.decode()
    [item] = game_items(html)
    assert f'data-game-id="{playing.pk}"' in item
    assert "Tic-tac-toe" in item
    assert "In play" in item
    assert "Your turn" in item  # alice holds seat 0, which moves first
    assert re.search(r'<li class="seat seat--you">alice</li>\s*<li class="seat">bob</li>', item)
    assert f'data-game-id="{waiting.pk}"' not in html
    assert f'data-game-id="{not_hers.pk}"' not in html


@pytest.mark.usefixtures("tictactoe")
def test_home_shows_open_seats_and_whose_turn_it_is(client, alice, bob):
    playing = game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    waiting = game_create(creator=bob, kind="tictactoe", opponents=[SeatSpec()])
    client.force_login(bob)

    html = client.get("/").content.decode()

    items = {
        int(re.search(r'data-game-id="(\d+)"', item).group(1)): item for item in game_items(html)
    }
    assert set(items) == {playing.pk, waiting.pk}
    assert "Your turn" not in items[playing.pk]  # alice is to move
    assert "Waiting for players" in items[waiting.pk]
    assert '<li class="seat seat--open">Open seat</li>' in items[waiting.pk]


def test_home_shows_the_kind_of_a_game_whose_app_is_not_registered(client, alice):
    from greycircle.games.models import Game, Seat

    game = Game.objects.create(kind="retired", status="finished", created_by=alice)
    Seat.objects.create(game=game, index=0, user=alice)
    client.force_login(alice)

    [item] = game_items(client.get("/").content.decode())
    assert "retired" in item
    assert "Finished" in item
