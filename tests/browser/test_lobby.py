"""Quick pairing in Chromium: two players press the same pool in the lobby, one with the mouse,
the other on a phone with the keyboard, and both land on the game, started for both at once."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.factories import PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

POOL = 'button[data-pool="circles:1+0:2:rated"]'


def test_two_players_pressing_one_pool_are_both_taken_to_their_game(new_page, log_in):
    UserFactory(username="alice")
    UserFactory(username="bob")
    alice = new_page()
    bob = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    log_in(alice, "alice", PASSWORD)
    log_in(bob, "bob", PASSWORD)
    for page in (alice, bob):
        page.goto("/lobby/")
    alice.locator(POOL).click()
    expect(alice.locator("#lobby-status")).to_contain_text("Waiting for opponents")
    expect(alice.locator(POOL)).to_have_attribute("aria-pressed", "true")
    # Bob sees alice waiting there, live, and takes the same pool from the keyboard.
    expect(bob.locator(POOL).locator("[data-waiting]")).to_have_text("1")
    bob.locator(POOL).focus()
    bob.keyboard.press("Enter")
    game_url = re.compile(r"/games/(\d+)/$")
    for page in (alice, bob):
        expect(page).to_have_url(game_url)
    assert alice.url == bob.url
