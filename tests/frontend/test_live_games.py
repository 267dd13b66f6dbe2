"""Live and casual games on the site's pages: the Play form that starts them (frontend.forms,
frontend.views.play) and the game lists that show their time control (frontend.views._game_row)."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from frontend.views import clock_words
from greycircle.games.clocks import TimeControl
from greycircle.games.models import Game
from greycircle.games.selectors import game_view_for
from greycircle.games.services import SeatSpec, move_submit
from tests.factories import game_started, let_anyone_invite

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


def row_of(html: str, game: Game) -> str:
    return re.search(
        rf'<li class="game-list__item" data-game-id="{game.pk}">.*?</ul>\s*</li>', html, re.S
    )[0]


def test_the_lists_show_each_games_time_control_and_whether_it_is_rated(client, alice, bob):
    live = game_started(
        creator=alice,
        kind="circles",
        opponents=[SeatSpec(user=bob)],
        time_control=TimeControl(3, 2),
        rated=False,
    )
    correspondence = game_started(
        creator=alice, kind="circles", opponents=[SeatSpec(user=bob)], days_per_move=7
    )
    client.force_login(alice)
    html = client.get("/").content.decode()

    live_row = row_of(html, live)
    assert '<span class="status status--timing" title="Live: 3 min each, 2 s added' in live_row
    assert ">3+2</span>" in live_row
    assert '<span class="status status--casual">Casual</span>' in live_row
    row = row_of(html, correspondence)
    assert 'title="Correspondence: 7 days per move">7 days</span>' in row
    assert '<span class="status status--rated">Rated</span>' in row
    assert "seat__clock" not in row


def test_a_live_game_in_play_shows_each_seats_time_left_in_the_lists(client, alice, bob):
    game = game_started(
        creator=alice,
        kind="circles",
        opponents=[SeatSpec(user=bob)],
        time_control=TimeControl(1, 0),
    )
    # Both first moves played (a first turn is not on the clock); alice's clock has run 20 s.
    for user in (alice, bob):
        game = Game.objects.with_seats().get(pk=game.pk)
        square = game_view_for(game=game, viewer=user)["legal_moves"][0]
        move_submit(game_id=game.pk, user=user, move=square, expected_version=game.version)
    Game.objects.filter(pk=game.pk).update(clock_started_at=timezone.now() - timedelta(seconds=20))
    client.force_login(bob)
    row = row_of(client.get("/").content.decode(), game)

    assert re.search(
        r'<span class="seat__clock seat__clock--running" role="timer" data-clock-ms="(\d+)" '
        r"data-clock-running>0:(39|40)</span>",
        row,
    )
    assert '<span class="seat__clock" role="timer" data-clock-ms="60000">1:00</span>' in row


@pytest.mark.parametrize(
    ("ms", "shown"),
    [(3_723_000, "1:02:03"), (245_999, "4:05"), (10_000, "0:10"), (9_450, "0:09.4"), (0, "0:00.0")],
)
def test_a_clock_in_a_list_reads_as_on_the_game_page(ms, shown):
    assert clock_words(ms) == shown
