"""The Play form in Chromium: a kind's options from its serializer, the username box that shows
only for a friend's seat."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from greycircle.games.models import Game
from tests.factories import PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_start_a_long_cirkis_game_with_the_center_ring(page: Page, log_in, asgi_live_server):
    UserFactory(username="alice")
    log_in(page, "alice", PASSWORD)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Play").click()
    form = page.locator("form[data-kind=cirkis]")

    # The username box shows only while the seat invites a friend.
    friend_box = form.get_by_label("Seat 2: friend's username")
    expect(friend_box).to_be_hidden()
    form.get_by_label("Seat 2", exact=True).select_option("user")
    expect(friend_box).to_be_visible()
    expect(friend_box).to_be_focused()
    form.get_by_label("Seat 2", exact=True).select_option("ai:easy")
    expect(friend_box).to_be_hidden()
    form.get_by_label("Seat 3", exact=True).select_option("ai:easy")

    expect(form.get_by_role("group", name="Options")).to_be_visible()
    center_ring = form.get_by_role("checkbox", name="Center Ring")
    long_game = form.get_by_role("checkbox", name="Long game (to 100)")
    expect(center_ring).not_to_be_checked()
    expect(long_game).to_have_accessible_description(re.compile(r"rounds to 40 until a total"))
    center_ring.check()
    long_game.check()
    form.get_by_role("button", name="Start CirKis").click()

    game = Game.objects.get()
    expect(page).to_have_url(f"{asgi_live_server.url}/games/{game.pk}/")
    expect(page.locator("#connection")).to_have_text("Live")
    expect(page.locator(".cirkis-board")).to_be_visible()
    assert game.options == {"center_ring": True, "long_game": True}
    page.wait_for_function("() => window.greyCircleGame !== undefined")
    assert page.evaluate("window.greyCircleGame.envelope.state.target") == 100
    assert page.evaluate("window.greyCircleGame.envelope.state.center_ring") is True
