"""Casual comforts on the game page (issue 22): a move confirmed before it is played, for touch
screens; a takeback asked for on one player's page and accepted on the other's."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from greycircle.games.services import SeatSpec
from tests.browser.pages import LIVE_WITHIN_MS
from tests.factories import PASSWORD, UserFactory, game_started

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def legal_square(page: Page) -> str:
    page.wait_for_function("() => window.greyCircleGame !== undefined")
    return page.evaluate("window.greyCircleGame.envelope.legal_moves[0].square")


def move_count(page: Page) -> int:
    return page.evaluate("window.greyCircleGame.envelope.move_count")


def test_with_confirm_moves_a_tap_shows_the_move_and_confirm_plays_it(
    new_page, log_in, asgi_live_server
):
    alice = UserFactory(username="alice", confirm_moves=True)
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")])
    page = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    log_in(page, "alice", PASSWORD)
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("#status")).to_have_text("Your turn.")
    square = page.locator(f'.circles-board__square[data-square="{legal_square(page)}"]')
    confirm = page.locator("#confirm-move")

    square.tap()
    expect(confirm).to_be_visible()
    expect(confirm).to_be_in_viewport(ratio=1)
    expect(square).to_have_class("circles-board__square circles-board__square--chosen")
    # Escape (or Cancel) takes the choice back: nothing was played.
    page.keyboard.press("Escape")
    expect(confirm).to_be_hidden()
    expect(square).to_have_class("circles-board__square")
    assert move_count(page) == 0

    square.tap()
    page.get_by_role("button", name="Confirm").tap()
    expect(confirm).to_be_hidden()
    page.wait_for_function("() => window.greyCircleGame.envelope.move_count > 0")


def test_a_takeback_asked_on_one_page_is_accepted_on_the_other(new_page, log_in):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)], rated=False)
    mover, other = (alice, bob) if game.to_move == 0 else (bob, alice)
    pages = {}
    for user in (mover, other):
        pages[user] = new_page()
        log_in(pages[user], user.username, PASSWORD)
        pages[user].goto(f"/games/{game.pk}/")
        expect(pages[user].locator("#connection")).to_have_text("Live")
    asker, answerer = pages[mover], pages[other]
    asker.locator(f'.circles-board__square[data-square="{legal_square(asker)}"]').click()
    expect(answerer.locator("#status")).to_have_text("Your turn.", timeout=LIVE_WITHIN_MS)

    asker.get_by_role("button", name="Take back my move").click()

    offer = answerer.locator("#takeback-offer")
    expect(offer).to_have_text(f"{mover.username} asks to take back the last move.")
    expect(asker.locator("#takeback-offer")).to_contain_text("waiting for an answer")
    answerer.get_by_role("button", name="Accept takeback").click()
    # Both pages are back at the start, the move gone from the log.
    for page in (asker, answerer):
        expect(page.locator("#moves-section")).to_be_hidden(timeout=LIVE_WITHIN_MS)
        expect(page.locator("#takeback-offer")).to_have_text("")
    expect(asker.locator("#status")).to_have_text("Your turn.")
