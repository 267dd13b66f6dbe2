"""Time per move in Chromium: the time left on the game page, and claiming the win on time."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from greycircle.games.models import Game
from greycircle.games.services import SeatSpec
from tests.browser.pages import LIVE_WITHIN_MS
from tests.factories import PASSWORD, UserFactory, game_started

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_game(page: Page, game_id: int) -> None:
    page.goto(f"/games/{game_id}/")
    expect(page.locator("#connection")).to_have_text("Live")


def test_the_time_left_shows_and_the_opponent_claims_the_win_once_it_is_up(new_page, log_in):
    kim = UserFactory(username="kim")
    lee = UserFactory(username="lee")
    game = game_started(
        creator=kim, kind="circles", opponents=[SeatSpec(user=lee)], days_per_move=7
    )
    kim_page, lee_page = new_page(), new_page()
    log_in(kim_page, "kim", PASSWORD)
    log_in(lee_page, "lee", PASSWORD)
    open_game(kim_page, game.pk)
    open_game(lee_page, game.pk)

    expect(kim_page.locator("#deadline")).to_have_text("Your time to move: 6 days 23 hours left.")
    expect(lee_page.locator("#deadline")).to_have_text("kim's time to move: 6 days 23 hours left.")
    expect(lee_page.get_by_role("button", name="Claim the win")).to_be_hidden()

    # kim's time runs out; lee's page, opened again, offers the claim (the server says so).
    Game.objects.filter(pk=game.pk).update(move_deadline=timezone.now() - timedelta(minutes=1))
    open_game(lee_page, game.pk)
    expect(lee_page.locator("#deadline")).to_have_text(
        "kim ran out of time: you may claim the win."
    )
    lee_page.once("dialog", lambda dialog: dialog.accept())
    lee_page.get_by_role("button", name="Claim the win").click()

    expect(lee_page.locator("#status")).to_have_text("Game over: You win on time.")
    expect(lee_page.locator("#deadline")).to_be_hidden()
    expect(kim_page.locator("#status")).to_have_text(
        "Game over: lee wins on time.", timeout=LIVE_WITHIN_MS
    )
