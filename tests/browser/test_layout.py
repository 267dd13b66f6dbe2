"""Game pages fit the window: when a game page opens, the whole table and your hand or tray are
on screen, without scrolling, on a laptop, a desktop, a full-HD screen and a phone. The site's
navigation is one row on a phone, and a rematch offer is said, and answered, on the game page.

Each kind opens one game in one desktop page, resized to each desktop size and reloaded, and in
one phone page. The boxes of the parts that must be seen are checked against the viewport.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import Page, expect

from greycircle.games import services
from greycircle.games.services import SeatSpec
from tests.browser.conftest import LiveServer
from tests.factories import UserFactory, game_started

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


# --- The site's navigation on a phone (issue 19, item 16) --------------------------------------

NAV_LINKS = ["Home", "Leaderboards", "Play", "My games", "Watch", "Friends", "Inbox", "Profile",
             "Settings"]  # fmt: skip
# One row of the header: the brand and the Menu button (the links took three rows, 182 px).
ONE_ROW_PX = 64


def phone_page(new_page: Callable[..., Page], server: LiveServer, client: Client) -> Page:
    width, height = PHONE
    return page_signed_in(
        new_page,
        server,
        client,
        viewport={"width": width, "height": height},
        is_mobile=True,
        has_touch=True,
    )


def assert_one_row(page: Page) -> None:
    header = page.locator(".site-header").bounding_box()
    assert header["height"] <= ONE_ROW_PX, f"the header is {header['height']} px high"
    brand = page.locator(".brand").bounding_box()
    menu = page.get_by_role("button", name="Menu").bounding_box()
    assert menu["y"] < brand["y"] + brand["height"], (brand, menu)
    assert brand["y"] < menu["y"] + menu["height"], (brand, menu)
    assert menu["x"] + menu["width"] <= PHONE[0]


def test_the_phone_navigation_is_one_row_whose_menu_opens_every_link(new_page, asgi_live_server):
    alice = UserFactory(username="alice")
    game = services.game_create(
        creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")]
    )
    client = Client()
    client.force_login(alice)
    phone = phone_page(new_page, asgi_live_server, client)
    nav = phone.get_by_role("navigation", name="Main")

    for url in ("/", f"/games/{game.pk}/"):
        phone.goto(url)
        assert_one_row(phone)
        expect(nav.get_by_role("link", name="Play", exact=True)).to_be_hidden()

    # By keyboard: the button opens the links, each in sight; Escape closes them again.
    phone.get_by_role("button", name="Menu").focus()
    phone.keyboard.press("Enter")
    for name in NAV_LINKS:
        link = nav.get_by_role("link", name=name, exact=True)
        expect(link).to_be_in_viewport(ratio=1)
    expect(nav.get_by_role("button", name="Log out")).to_be_in_viewport(ratio=1)
    phone.keyboard.press("Escape")
    expect(nav.get_by_role("link", name="Play", exact=True)).to_be_hidden()

    # By touch: a link of the menu leads to its page.
    phone.get_by_role("button", name="Menu").tap()
    nav.get_by_role("link", name="My games", exact=True).tap()
    expect(phone.get_by_role("heading", name="My games", exact=True)).to_be_visible()


def test_a_visitor_has_the_one_row_too_and_a_desktop_shows_the_links_without_a_menu(
    new_page, asgi_live_server
):
    visitor = new_page(viewport={"width": PHONE[0], "height": PHONE[1]}, is_mobile=True)
    visitor.goto("/")
    assert_one_row(visitor)
    visitor.get_by_role("button", name="Menu").click()
    nav = visitor.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="Log in")).to_be_in_viewport(ratio=1)
    expect(nav.get_by_role("link", name="Sign up")).to_be_in_viewport(ratio=1)

    width, height = DESKTOPS[0]
    desktop = new_page(viewport={"width": width, "height": height})
    desktop.goto("/")
    expect(desktop.get_by_role("button", name="Menu")).to_be_hidden()
    nav = desktop.get_by_role("navigation", name="Main")
    expect(nav.get_by_role("link", name="Leaderboards")).to_be_in_viewport(ratio=1)


def test_the_menu_button_shows_that_something_is_unread(new_page, asgi_live_server):
    from tests.notifications.conftest import notify

    alice = UserFactory(username="alice")
    client = Client()
    client.force_login(alice)
    phone = phone_page(new_page, asgi_live_server, client)
    dot = "getComputedStyle(document.querySelector('.site-nav__toggle'), '::after').content"

    phone.goto("/")
    assert phone.evaluate(dot) == "none"
    notify(alice, "friend_request")
    phone.reload()
    assert phone.evaluate(dot) != "none"


# --- A rematch offer on the game page (issue 19, item 16) --------------------------------------


def test_a_rematch_offer_arrives_as_a_notice_that_screen_readers_announce(
    new_page, asgi_live_server
):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    services.game_resign(game_id=game.pk, user=bob)
    pages = {}
    for user in (alice, bob):
        client = Client()
        client.force_login(user)
        pages[user.username] = page_signed_in(new_page, asgi_live_server, client)
        pages[user.username].goto(f"/games/{game.pk}/")
        expect(pages[user.username].locator("#connection")).to_have_text("Live")
    offer = pages["alice"].locator("#rematch-offer")
    # The live region is in the page, empty, before anything is said in it.
    expect(offer).to_have_attribute("role", "status")
    expect(offer).to_have_text("")

    pages["bob"].get_by_role("button", name="Rematch").click()
    expect(pages["bob"]).to_have_url(re.compile(r"/games/\d+/$"))

    expect(offer).to_have_text("bob asks for a rematch.")
    expect(offer).to_be_in_viewport(ratio=1)
    expect(pages["alice"].get_by_role("button", name="Go to the rematch")).to_be_visible()
    # Opened later, the page says so at once; and the offer is answered right there.
    pages["alice"].reload()
    expect(offer).to_have_text("bob asks for a rematch.")
    expect(offer).to_be_visible()
    pages["alice"].get_by_role("button", name="Accept rematch").click()
    expect(pages["alice"]).to_have_url(pages["bob"].url)
    # Accepted, the rematch has started.
    expect(pages["alice"].locator("#status")).to_have_text(re.compile("turn"))
