"""Reminders in Chromium: the Remind button on the game page, its answer and its refusal."""

import pytest
from playwright.sync_api import Page, expect

from greycircle.games.services import SeatSpec
from tests.browser.pages import LIVE_WITHIN_MS
from tests.factories import PASSWORD, UserFactory, game_started

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_game(page: Page, game_id: int) -> None:
    page.goto(f"/games/{game_id}/")
    expect(page.locator("#connection")).to_have_text("Live")


def test_a_player_reminds_the_one_to_move_once_and_is_told_when_to_try_again(new_page, log_in):
    kim = UserFactory(username="kim")
    lee = UserFactory(username="lee")
    game = game_started(creator=kim, kind="circles", opponents=[SeatSpec(user=lee)])
    kim_page, lee_page = new_page(), new_page()
    log_in(kim_page, "kim", PASSWORD)
    log_in(lee_page, "lee", PASSWORD)
    open_game(kim_page, game.pk)
    open_game(lee_page, game.pk)

    # Only the player waiting for another person may remind them.
    expect(kim_page.locator("#status")).to_have_text("Your turn.")
    expect(kim_page.get_by_role("button", name="Remind")).to_be_hidden()
    remind = lee_page.get_by_role("button", name="Remind")
    expect(remind).to_be_visible()

    remind.click()
    expect(lee_page.locator("#notice")).to_have_text("Reminder sent to kim.")
    remind.click()
    expect(lee_page.get_by_role("alert")).to_have_text(
        "You reminded kim a moment ago; you can remind them again in 5 minutes."
    )

    # The turn passes: the button follows it, live.
    kim_page.locator("rect[data-square=c5]").click()
    expect(lee_page.locator("#status")).to_have_text("Your turn.", timeout=LIVE_WITHIN_MS)
    expect(remind).to_be_hidden()
    expect(kim_page.get_by_role("button", name="Remind")).to_be_visible()
