"""Open tables in Chromium: joined from the link alone (an unlisted one's carries its key), drawn
empty until they start, withdrawn."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import LIVE_WITHIN_MS, game_start
from tests.factories import PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_unlisted_circles_table(page: Page) -> None:
    """Start a Circles game with an open seat, kept out of the lobby: only its link leads to it."""
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Play").click()
    form = page.locator("form[data-kind=circles]")
    form.get_by_label("Seat 2", exact=True).select_option("open")
    form.get_by_label("Unlisted").check()
    form.get_by_role("button", name="Start Circles").click()
    expect(page.locator("#connection")).to_have_text("Live")
    page.wait_for_function("() => window.greyCircleGame !== undefined")


def test_an_open_table_joined_from_its_link_starts_for_both(new_page, log_in):
    UserFactory(username="kim")
    UserFactory(username="lee")
    kim, lee = new_page(), new_page()
    log_in(kim, "kim", PASSWORD)
    log_in(lee, "lee", PASSWORD)

    open_unlisted_circles_table(kim)
    expect(kim.locator("#status")).to_have_text("Waiting for players to join.")
    # Drawn empty until the game starts, and no Join button for a player already seated.
    expect(kim.locator(".circles-board")).to_be_visible()
    expect(kim.locator(".disc--white, .disc--black")).to_have_count(0)
    expect(kim.locator(".disc--empty")).to_have_count(64)
    expect(kim.get_by_role("button", name="Join")).to_be_hidden()
    expect(kim.get_by_role("button", name="Withdraw")).to_be_visible()

    # Unlisted: not in the lobby; the friend gets the link.
    lee.goto("/play/")
    expect(lee.locator(f'[data-game-id="{kim.url.rstrip("/").rsplit("/", 1)[-1]}"]')).to_have_count(
        0
    )
    assert lee.goto(kim.url).status == 404  # its id alone does not lead to it
    link = kim.get_by_label("Link to this unlisted game").input_value()
    assert link.startswith(kim.url.rstrip("/") + "/?key=")
    lee.goto(link)
    expect(lee.locator("#connection")).to_have_text("Live")  # the socket sent the key on
    expect(lee.locator("#status")).to_have_text("Waiting for players to join.")
    expect(lee.locator(".disc--white, .disc--black")).to_have_count(0)
    expect(lee.get_by_role("button", name="Withdraw")).to_be_hidden()
    lee.get_by_role("button", name="Join").click()

    expect(lee).to_have_url(kim.url)
    expect(lee.locator("#status")).to_have_text("kim's turn.")
    expect(lee.get_by_role("button", name="Join")).to_be_hidden()
    expect(kim.locator("#status")).to_have_text("Your turn.", timeout=LIVE_WITHIN_MS)
    expect(kim.locator(".disc--white")).to_have_count(2)
    expect(kim.locator(".disc--black")).to_have_count(2)
    expect(kim.get_by_role("button", name="Withdraw")).to_be_hidden()

    kim.locator("rect[data-square=c5]").click()
    expect(lee.locator("#status")).to_have_text("Your turn.", timeout=LIVE_WITHIN_MS)


def test_the_creator_withdraws_an_open_table_and_a_visitor_sees_it_live(new_page, log_in):
    UserFactory(username="max")
    UserFactory(username="nia")
    max_, nia = new_page(), new_page()
    log_in(max_, "max", PASSWORD)
    log_in(nia, "nia", PASSWORD)
    game_start(max_, kind="circles", title="Circles", opponents=["open"])
    nia.goto(max_.url)
    expect(nia.get_by_role("button", name="Join")).to_be_visible()
    expect(nia.locator("#connection")).to_have_text("Live")

    max_.once("dialog", lambda dialog: dialog.accept())
    max_.get_by_role("button", name="Withdraw").click()

    expect(max_.locator("#status")).to_have_text("You withdrew this game before it started.")
    expect(max_.get_by_role("button", name="Withdraw")).to_be_hidden()
    expect(max_.get_by_role("button", name="Rematch")).to_be_hidden()
    expect(nia.locator("#status")).to_have_text(
        "This game was withdrawn before it started.", timeout=LIVE_WITHIN_MS
    )
    expect(nia.get_by_role("button", name="Join")).to_be_hidden()
