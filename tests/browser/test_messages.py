"""Messages between friends in Chromium: one opens the thread from a profile, the other sees the
badge rise live, reads the message as text (markup shown, not run) and answers with Enter, and
the answer arrives live in the open thread, read at once."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.pages import LIVE_WITHIN_MS
from tests.factories import PASSWORD, UserFactory, befriend

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def badge(page: Page):
    return page.locator("#messages-badge")


def messages(page: Page):
    return page.locator("#thread-messages .thread__body")


def test_two_friends_message_each_other_live(new_page, log_in):
    befriend(UserFactory(username="ann"), UserFactory(username="ben"))
    ann, ben = new_page(), new_page()
    log_in(ann, "ann", PASSWORD)
    log_in(ben, "ben", PASSWORD)
    expect(badge(ben)).to_be_hidden()

    ann.goto("/u/ben/")
    ann.get_by_role("link", name="Message", exact=True).click()
    expect(ann).to_have_url(re.compile(r"/messages/ben/$"))
    box = ann.get_by_label("Message to ben")
    box.fill("<b>hi</b> ben")
    box.press("Enter")
    expect(messages(ann)).to_have_text(["<b>hi</b> ben"])
    expect(box).to_have_value("")

    expect(badge(ben)).to_have_text("1 unread", timeout=LIVE_WITHIN_MS)
    ben.get_by_role("navigation", name="Main").get_by_role(
        "link", name=re.compile("^Messages")
    ).click()
    ben.get_by_role("link", name="ann").click()
    expect(messages(ben)).to_have_text(["<b>hi</b> ben"])
    expect(ben.locator("#thread-messages b")).to_have_count(0)  # text, never markup
    expect(badge(ben)).to_be_hidden()

    ben.get_by_label("Message to ann").fill("see https://example.com/rules")
    ben.get_by_label("Message to ann").press("Enter")
    expect(messages(ann)).to_have_text(
        ["<b>hi</b> ben", "see https://example.com/rules"], timeout=LIVE_WITHIN_MS
    )
    expect(ann.get_by_role("link", name="https://example.com/rules")).to_be_visible()
    # ann had the thread open: ben's answer was read as it came.
    expect(badge(ann)).to_be_hidden()
    ann.reload()
    expect(badge(ann)).to_be_hidden()
