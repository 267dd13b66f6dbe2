"""Game pages fit the window: when a game page opens, the whole table and your hand or tray are
on screen, without scrolling, on a laptop, a desktop, a full-HD screen and a phone.

Each kind opens one game in one desktop page, resized to each desktop size and reloaded, and in
one phone page. The boxes of the parts that must be seen are checked against the viewport.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import Page, expect

from greycircle.games import services
from greycircle.games.services import SeatSpec
from tests.browser.conftest import LiveServer
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOPS = [(1366, 768), (1440, 900), (1920, 1080)]
PHONE = (390, 844)

# What must be in sight, for each kind: (selector, how many there are when the game opens).
IN_SIGHT = {
    "circles": [(".circles-board", 1)],
    "kingscorner": [(".kc-table", 1), (".kc-hand", 1), (".kc-fan__card", 7)],
    "cirkis": [(".cirkis-board", 1), (".cirkis-tray", 1), (".cirkis-tray__piece", 9)],
}
COMPUTERS = {"circles": 1, "kingscorner": 2, "cirkis": 2}


def page_signed_in(
    new_page: Callable[..., Page], server: LiveServer, client: Client, **options
) -> Page:
    """A page of a fresh context that carries `client`'s session (signed in without the form)."""
    page = new_page(**options)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": server.url}]
    )
    return page


def open_and_check(page: Page, url: str, kind: str, size: tuple[int, int]) -> None:
    width, height = size
    page.goto(url)
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.locator("#status")).to_have_text("Your turn.")
    # No empty move list, nor an empty transcript, before the first move.
    expect(page.locator("#moves-section")).to_be_hidden()
    for selector, count in IN_SIGHT[kind]:
        parts = page.locator(selector)
        expect(parts).to_have_count(count)
        for index in range(count):
            box = parts.nth(index).bounding_box()
            assert box is not None, f"{selector} is not drawn at {width}x{height}"
            where = f"{selector} #{index + 1} at {width}x{height}: {box}"
            assert box["x"] >= 0, where
            assert box["y"] >= 0, where
            assert box["x"] + box["width"] <= width, where
            assert box["y"] + box["height"] <= height, where
    scroll = page.evaluate("[window.scrollX, window.scrollY, document.documentElement.scrollWidth]")
    assert scroll[:2] == [0, 0], f"the page opened scrolled at {width}x{height}"
    assert scroll[2] <= width, f"the page is {scroll[2]}px wide at {width}x{height}"


@pytest.mark.parametrize("kind", ["circles", "kingscorner", "cirkis"])
def test_the_table_and_your_hand_are_on_screen_when_the_page_opens(
    new_page, asgi_live_server, kind
):
    alice = UserFactory(username="alice")
    game = services.game_create(
        creator=alice, kind=kind, opponents=[SeatSpec(ai_level="easy")] * COMPUTERS[kind]
    )
    client = Client()
    client.force_login(alice)
    url = f"/games/{game.pk}/"

    desktop = page_signed_in(new_page, asgi_live_server, client)
    for width, height in DESKTOPS:
        desktop.set_viewport_size({"width": width, "height": height})
        open_and_check(desktop, url, kind, (width, height))

    width, height = PHONE
    phone = page_signed_in(
        new_page,
        asgi_live_server,
        client,
        viewport={"width": width, "height": height},
        is_mobile=True,
        has_touch=True,
    )
    open_and_check(phone, url, kind, PHONE)
