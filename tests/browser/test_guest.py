"""A guest in Chromium: one click to a live game against the computer, then a full account."""

import re

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.browser.pages import COMPUTER_TURNS_MS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEW_PASSWORD = "a-long-pass-phrase"


def test_play_now_as_a_guest_then_keep_the_game_with_a_new_account(page: Page, asgi_live_server):
    page.goto("/")
    page.get_by_role("button", name="Play now as a guest").click()

    # A live game against the computer, the guest to move first.
    expect(page).to_have_url(re.compile(r"/games/\d+/$"))
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.locator(".circles-board")).to_be_visible()
    status = page.locator("#status")
    expect(status).to_have_text("Your turn.")
    game_path = page.url.removeprefix(asgi_live_server.url)
    banner = page.get_by_role("note")
    expect(banner).to_contain_text("You are playing as a guest")

    square = page.eval_on_selector(".circles-board__hint--legal", "hint => hint.dataset.square")
    page.locator(f"rect[data-square={square}]").click()
    expect(page.locator(".move-list li").first).to_be_visible()
    # The computer has answered.
    expect(status).to_have_text("Your turn.", timeout=COMPUTER_TURNS_MS)

    banner.get_by_role("link", name="create an account").click()
    page.get_by_label("Username").fill("fern")
    page.get_by_label("Email address").fill("fern@example.com")
    page.get_by_label("Password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("Password (again)").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Create my account").click()

    expect(page).to_have_url(f"{asgi_live_server.url}/games/")
    expect(page.get_by_role("status")).to_contain_text("Welcome, fern")
    expect(page.get_by_role("note")).to_have_count(0)
    game_link = page.locator(f'a[href="{game_path}"]')
    expect(game_link).to_be_visible()
    game_link.click()
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.locator(".player--you")).to_contain_text("fern")
    user = User.objects.get(username="fern")
    assert not user.is_guest
    assert user.seats.count() == 1
