"""Friends in Chromium: a request arrives live, a friend is invited from the friends list, and the
unread badge and the tab title follow the game."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import LIVE_WITHIN_MS
from tests.factories import PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def unread(page: Page):
    return page.locator("#unread-badge")


def friend_row(page: Page, username: str):
    return page.locator("[data-section=friends] li").filter(has_text=username)


def legal_squares(page: Page) -> list[str]:
    return page.eval_on_selector_all(
        ".circles-board__hint--legal", "hints => hints.map(h => h.dataset.square)"
    )


def test_befriend_invite_and_play_with_the_badge_and_title_live(new_page, log_in):
    UserFactory(username="ann")
    UserFactory(username="ben")
    ann, ben = new_page(), new_page()
    log_in(ann, "ann", PASSWORD)
    log_in(ben, "ben", PASSWORD)
    expect(ben).to_have_title("Grey Circle Games")
    expect(unread(ben)).to_be_hidden()

    # ann asks ben; ben's home page shows it without reloading.
    ann.get_by_role("navigation", name="Main").get_by_role("link", name="Friends").click()
    ann.get_by_label("Username").first.fill("ben")
    ann.get_by_role("button", name="Send friend request").click()
    expect(ann.get_by_role("status")).to_have_text("Friend request sent to ben.")
    expect(unread(ben)).to_have_text("1 unread", timeout=LIVE_WITHIN_MS)
    expect(ben).to_have_title("(1) Grey Circle Games")

    # ben accepts on his friends page (which reads the request), then invites ann to a game
    # from his friends list.
    ben.get_by_role("link", name=re.compile(r"^Inbox")).click()
    ben.get_by_role("link", name="ann wants to be your friend").click()
    expect(ben).to_have_url(re.compile(r"/friends/$"))
    expect(unread(ben)).to_be_hidden()
    ben.locator("[data-section=incoming]").get_by_role("button", name="Accept").click()
    expect(friend_row(ben, "ann")).to_be_visible()
    expect(unread(ann)).to_have_text("1 unread", timeout=LIVE_WITHIN_MS)  # ben accepted
    friend_row(ben, "ann").get_by_role("link", name="Invite to a game").click()
    form = ben.locator("form[data-kind=circles]")
    expect(form.get_by_label("Seat 2", exact=True)).to_have_value("user")
    expect(form.get_by_label("Seat 2: friend's username")).to_have_value("ann")
    form.get_by_role("button", name="Start Circles").click()
    expect(ben.locator("#status")).to_have_text("Waiting for ann to accept.")
    game_url = ben.url

    # ann, on her friends page, hears of the invitation live and opens it from her inbox.
    expect(unread(ann)).to_have_text("2 unread", timeout=LIVE_WITHIN_MS)
    expect(ann).to_have_title(re.compile(r"^\(2\) Friends"))
    ann.get_by_role("link", name=re.compile(r"^Inbox")).click()
    ann.get_by_role("link", name="ben invites you to play Circles").click()
    expect(ann).to_have_url(game_url)
    expect(unread(ann)).to_have_text("1 unread")  # opening the game read its invitation
    ann.get_by_role("button", name="Accept").click()

    # The game starts: ben is to move, and his tab says so.
    expect(ben.locator("#status")).to_have_text("Your turn.", timeout=LIVE_WITHIN_MS)
    expect(ben).to_have_title(re.compile(r"^(\(\d+\) )?Your turn — Circles"))
    expect(ann).not_to_have_title(re.compile("Your turn"))
    # ben had the game in sight: the "your turn" and the acceptance were read at once.
    expect(unread(ben)).to_be_hidden()

    # ann goes home; ben's move reaches her home page as a badge.
    ann.get_by_role("navigation", name="Main").get_by_role("link", name="Home").click()
    expect(unread(ann)).to_have_text("1 unread")  # ben accepted her request
    ben.locator("rect[data-square=c5]").click()
    expect(ben).not_to_have_title(re.compile("Your turn"), timeout=LIVE_WITHIN_MS)
    expect(unread(ann)).to_have_text("2 unread", timeout=LIVE_WITHIN_MS)
    expect(ann).to_have_title("(2) Grey Circle Games")

    # ann opens the game from her home page: it is her turn, in the tab title too.
    game_id = game_url.rstrip("/").rsplit("/", 1)[1]
    ann.get_by_role("link", name=f"Circles #{game_id}").first.click()
    expect(ann.locator("#status")).to_have_text("Your turn.")
    expect(ann).to_have_title(re.compile(r"^\(1\) Your turn — Circles"))

    # ben goes home; ann's move reaches his home page as a badge.
    ben.get_by_role("navigation", name="Main").get_by_role("link", name="Home").click()
    expect(unread(ben)).to_be_hidden()
    ann.locator(f"rect[data-square={legal_squares(ann)[0]}]").click()
    expect(ann).to_have_title(re.compile(r"^\(1\) Circles"), timeout=LIVE_WITHIN_MS)
    expect(unread(ben)).to_have_text("1 unread", timeout=LIVE_WITHIN_MS)
    expect(ben).to_have_title("(1) Grey Circle Games")
    ben.goto(game_url)
    expect(ben).to_have_title(re.compile(r"^Your turn — Circles"))
    expect(unread(ben)).to_be_hidden()
