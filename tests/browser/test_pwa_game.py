"""The game page without a network, in Chromium: it says it is offline and, back online, catches
up with the moves it missed (the new socket's first frame and the move log)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from greycircle.games.services import SeatSpec
from tests.factories import PASSWORD, UserFactory, game_started

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OFFLINE = "Offline — moves will resume when you are back."


def test_the_game_page_says_it_is_offline_and_catches_up_when_back(new_page, log_in):
    una, vic = UserFactory(username="una"), UserFactory(username="vic")
    game = game_started(creator=una, kind="circles", opponents=[SeatSpec(user=vic)])
    mover, offline = new_page(), new_page()
    log_in(mover, "una", PASSWORD)
    log_in(offline, "vic", PASSWORD)
    for page in (mover, offline):
        page.goto(f"/games/{game.pk}/")
        expect(page.locator("#connection")).to_have_text("Live")
    banner = offline.locator("#offline-banner")
    expect(banner).to_be_hidden()

    offline.context.set_offline(True)

    expect(banner).to_have_text(OFFLINE)
    expect(banner).to_be_visible()
    expect(offline.locator("#connection")).to_have_text("Offline")
    # The other player moves meanwhile; the page without a network cannot hear of it.
    mover.locator("rect[data-square=c5]").click()
    expect(mover.locator(".move-list li")).to_have_count(1)
    expect(offline.locator("#status")).to_have_text("una's turn.")

    offline.context.set_offline(False)

    expect(offline.locator("#connection")).to_have_text("Live")
    expect(banner).to_be_hidden()
    expect(offline.locator("#notice")).to_have_text("Back online.")
    expect(offline.locator("#status")).to_have_text("Your turn.")
    expect(offline.locator(".move-list li")).to_have_count(1)
