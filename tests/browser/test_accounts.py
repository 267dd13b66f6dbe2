"""Accounts in Chromium: sign up, settings, log out, log in by e-mail; the layout on a phone."""

import re

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from tests.browser.pages import nav_link
from tests.factories import PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEW_PASSWORD = "a-long-pass-phrase"
PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True}


def test_sign_up_change_a_setting_log_out_and_log_in_by_e_mail(page: Page, asgi_live_server):
    page.goto("/")
    page.get_by_role("main").get_by_role("link", name="Sign up").click()
    expect(page).to_have_url(f"{asgi_live_server.url}/accounts/signup/")
    expect(page).to_have_title(re.compile(r"Signup · Grey Circle Games"))

    page.get_by_label("Username").fill("dora")
    page.get_by_label("Email address").fill("dora@example.com")
    page.get_by_label("Password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("Password (again)").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Sign Up").click()

    expect(page).to_have_url(f"{asgi_live_server.url}/")
    expect(page.get_by_role("heading", name="Hello, dora")).to_be_visible()
    expect(page.get_by_role("heading", name="Your games")).to_be_visible()

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Settings").click()
    expect(page).to_have_url(f"{asgi_live_server.url}/settings/")
    helpers = page.get_by_label("Show helpers")
    expect(helpers).to_be_checked()
    helpers.uncheck()
    page.get_by_role("button", name="Save settings").click()

    # The settings page has a second status region, the push section's (empty until it speaks).
    saved = page.get_by_role("status").filter(has_text="Your settings have been saved.")
    expect(saved).to_have_text("Your settings have been saved.")
    expect(page.get_by_label("Show helpers")).not_to_be_checked()
    # The notification grid: a box per kind and channel, each labelled with its row and column.
    expect(
        page.get_by_label("It is my turn in a game with other people: E-mail")
    ).not_to_be_checked()
    expect(page.get_by_label("It is my turn in a game with other people: Push")).to_be_checked()
    expect(page.get_by_label("Someone invites me to a game: E-mail")).to_be_checked()
    dora = User.objects.get(username="dora")
    assert dora.show_helpers is False
    assert dora.email_game_invitation is True

    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(f"{asgi_live_server.url}/")
    expect(page.get_by_role("status")).to_have_text("You have signed out.")
    expect(page.get_by_role("button", name="Log out")).to_have_count(0)

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Log in").click()
    page.get_by_label("Username or email").fill("dora@example.com")
    page.get_by_label("Password", exact=True).fill(NEW_PASSWORD)
    page.get_by_role("button", name="Sign In").click()
    expect(page.get_by_role("heading", name="Hello, dora")).to_be_visible()
    page.goto("/settings/")
    expect(page.get_by_label("Show helpers")).not_to_be_checked()


def test_sign_up_with_a_taken_username_shows_the_error(page: Page):
    UserFactory(username="alice")
    page.goto("/accounts/signup/")
    page.get_by_label("Username").fill("Alice")
    page.get_by_label("Email address").fill("another@example.com")
    page.get_by_label("Password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("Password (again)").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Sign Up").click()

    expect(page.get_by_text("A user with that username already exists.")).to_be_visible()
    expect(page.get_by_label("Username")).to_have_attribute("aria-invalid", "true")
    assert User.objects.filter(username__iexact="alice").count() == 1


def test_settings_needs_a_login_and_comes_back_after_it(page: Page, asgi_live_server):
    UserFactory(username="erin")
    page.goto("/settings/")
    expect(page).to_have_url(f"{asgi_live_server.url}/accounts/login/?next=/settings/")
    page.get_by_label("Username or email").fill("erin")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign In").click()
    expect(page).to_have_url(f"{asgi_live_server.url}/settings/")
    expect(page.get_by_role("heading", name="Settings")).to_be_visible()


def fits_width(page: Page, width: int) -> None:
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width, f"{page.url} is {scroll_width}px wide on a {width}px screen"


def test_pages_fit_a_375px_phone_screen(new_page, log_in):
    UserFactory(username="a-rather-long-username-indeed")
    page = new_page(**PHONE)

    page.goto("/")
    # The site's stylesheet applies (it is served by the live server, not a CDN).
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(246, 247, 248)"
    expect(page.get_by_role("link", name="Grey Circle Games, home")).to_be_visible()
    fits_width(page, 375)

    for url in ("/accounts/signup/", "/accounts/login/", "/accounts/password/reset/"):
        page.goto(url)
        fits_width(page, 375)

    log_in(page, "a-rather-long-username-indeed", PASSWORD)
    for url in ("/", "/settings/", "/accounts/email/", "/accounts/password/change/"):
        page.goto(url)
        fits_width(page, 375)


def test_the_navigation_reaches_the_leaderboards_and_my_profile_on_a_phone(new_page, log_in):
    UserFactory(username="a-rather-long-username-indeed")
    page = new_page(**PHONE)
    log_in(page, "a-rather-long-username-indeed", PASSWORD)
    page.goto("/")

    nav_link(page, "Leaderboards").click()
    expect(page.get_by_role("heading", name="Circles leaderboard")).to_be_visible()
    fits_width(page, 375)

    nav_link(page, "Profile").click()
    expect(page).to_have_url(re.compile(r"/u/a-rather-long-username-indeed/$"))
    expect(nav_link(page, "Profile")).to_have_attribute("aria-current", "page")
    fits_width(page, 375)
