"""Live and casual games on the site's pages: the Play form that starts them (frontend.forms,
frontend.views.play) and the game lists that show their time control (frontend.views._game_row)."""

from __future__ import annotations

import json
import re

import pytest

from greycircle.games.models import Game
from tests.factories import let_anyone_invite

pytestmark = pytest.mark.django_db


def play_form(html: str, kind: str) -> str:
    return re.search(rf'<form class="card new-game"[^>]*data-kind="{kind}".*?</form>', html, re.S)[
        0
    ]


def test_the_play_form_offers_correspondence_or_a_live_clock_and_rated_or_casual(client, alice):
    client.force_login(alice)
    form = play_form(client.get("/play/").content.decode(), "circles")

    assert "<legend>Timing</legend>" in form
    assert re.search(
        r'<input type="radio" name="circles-speed" value="correspondence"[^>]*checked', form
    )
    assert 'value="live"' in form
    assert "<legend>Time control (minutes + seconds added per turn)</legend>" in form
    for preset in ("1+0", "3+2", "5+0", "5+3", "10+5", "15+10", "custom"):
        assert f'name="circles-time_control" value="{preset}"' in form
    assert '<label class="field__label" for="id_circles-minutes">Minutes each</label>' in form
    assert "first move must come within 30 seconds" in form
    assert "<legend>Rating</legend>" in form
    assert re.search(r'<input type="radio" name="circles-rating" value="rated"[^>]*checked', form)


def test_the_play_form_starts_a_live_game_against_a_computer(client, alice):
    client.force_login(alice)
    response = client.post(
        "/play/",
        {
            "kind": "circles",
            "circles-seat_1": "ai:easy",
            "circles-speed": "live",
            "circles-time_control": "3+2",
        },
    )

    game = Game.objects.get()
    assert response.status_code == 302
    assert response.url == f"/games/{game.pk}/"
    assert game.speed == "live"
    assert (game.clock_initial_ms, game.clock_increment_ms) == (180_000, 2000)
    assert game.status == "active"
    assert game.rated is True


def test_the_play_form_starts_a_casual_game_on_a_custom_clock(client, alice, bob):
    let_anyone_invite(bob)
    client.force_login(alice)
    response = client.post(
        "/play/",
        {
            "kind": "kingscorner",
            "kingscorner-seat_1": "user",
            "kingscorner-username_1": "bob",
            "kingscorner-speed": "live",
            "kingscorner-time_control": "custom",
            "kingscorner-minutes": "7",
            "kingscorner-increment": "0",
            "kingscorner-rating": "casual",
        },
    )

    assert response.status_code == 302
    game = Game.objects.get()
    assert (game.clock_initial_ms, game.clock_increment_ms) == (420_000, 0)
    assert game.rated is False


def test_a_correspondence_game_from_the_form_has_days_per_move_and_no_clock(client, alice):
    client.force_login(alice)
    client.post(
        "/play/", {"kind": "circles", "circles-seat_1": "ai:easy", "circles-days_per_move": "7"}
    )

    game = Game.objects.get()
    assert game.speed == "correspondence"
    assert game.days_per_move == 7
    assert game.clock_initial_ms is None


def test_a_custom_clock_out_of_bounds_is_shown_on_the_form_and_starts_nothing(client, alice):
    client.force_login(alice)
    response = client.post(
        "/play/",
        {
            "kind": "circles",
            "circles-seat_1": "ai:easy",
            "circles-speed": "live",
            "circles-time_control": "custom",
            "circles-minutes": "0",
            "circles-increment": "5",
        },
    )

    assert response.status_code == 200
    form = play_form(response.content.decode(), "circles")
    assert re.search(
        r'<div class="field field--invalid">\s*<label[^>]*for="id_circles-minutes">.*?'
        r"Ensure this value is greater than or equal to 1\.",
        form,
        re.S,
    )
    # What was chosen stays chosen.
    assert re.search(r'name="circles-speed" value="live"[^>]*checked', form)
    assert re.search(r'name="circles-time_control" value="custom"[^>]*checked', form)
    assert not Game.objects.exists()


def test_a_live_games_page_has_its_clocks_the_announcements_and_the_sound_toggle(client, alice):
    client.force_login(alice)
    client.post(
        "/play/",
        {
            "kind": "circles",
            "circles-seat_1": "ai:easy",
            "circles-speed": "live",
            "circles-time_control": "1+0",
        },
    )
    game = Game.objects.get()
    html = client.get(f"/games/{game.pk}/").content.decode()

    envelope = json.loads(
        re.search(r'<script id="initial-envelope" type="application/json">(.*?)</script>', html)[1]
    )
    assert envelope["clock"]["time_control"] == "1+0"
    assert envelope["clock"]["remaining_ms"] == [60_000, 60_000]
    assert '"greycircle/clock": "/static/frontend/js/clock.js"' in html
    assert '<p class="visually-hidden" id="clock-announce" role="status"></p>' in html
    assert '<label class="field__label" for="clock-sound">Sound on your turn</label>' in html
