"""The Play form in Chromium: a kind's options from its serializer, the username box and "If an
invitation is declined" that show only for a friend's seat (all shown without JavaScript)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from greycircle.games.models import Game, Invitation
from tests.factories import PASSWORD, UserFactory, let_anyone_invite

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


def test_invite_a_friend_and_open_the_seat_if_they_decline(page: Page, log_in, asgi_live_server):
    UserFactory(username="dee")
    let_anyone_invite(UserFactory(username="eve"))
    log_in(page, "dee", PASSWORD)
    page.goto("/play/")
    form = page.locator("form[data-kind=circles]")
    on_decline = form.get_by_label("If an invitation is declined")

    # Against a computer nobody can decline: the choice is not offered.
    expect(on_decline).to_be_hidden()
    form.get_by_label("Seat 2", exact=True).select_option("user")
    expect(on_decline).to_be_visible()
    expect(on_decline).to_have_value("cancel")
    form.get_by_label("Seat 2: friend's username").fill("eve")
    on_decline.select_option(label="Open the seat to anyone")
    form.get_by_role("button", name="Start Circles").click()

    game = Game.objects.get()
    expect(page).to_have_url(f"{asgi_live_server.url}/games/{game.pk}/")
    expect(page.locator("#status")).to_have_text("Waiting for eve to accept.")
    assert Invitation.objects.get(game=game).on_decline == "open_seat"


def test_without_javascript_every_box_shows_and_a_name_for_a_computer_is_refused(new_page, log_in):
    UserFactory(username="fin")
    page = new_page(java_script_enabled=False)
    log_in(page, "fin", PASSWORD)
    page.goto("/play/")
    form = page.locator("form[data-kind=circles]")
    friend_box = form.get_by_label("Seat 2: friend's username")
    expect(friend_box).to_be_visible()
    expect(form.get_by_label("If an invitation is declined")).to_be_visible()

    form.get_by_label("Seat 2", exact=True).select_option("ai:easy")
    friend_box.fill("gil")
    form.get_by_role("button", name="Start Circles").click()

    form = page.locator("form[data-kind=circles]")
    expect(form.locator(".field--friend .errorlist")).to_have_text(
        "Seat 2 is “Computer (easy)”, which takes no username: choose “A friend” to invite gil, "
        "or clear the name."
    )
    assert not Game.objects.exists()
