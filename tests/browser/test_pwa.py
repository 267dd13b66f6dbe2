"""The installable site in Chromium: the service worker registers on every page and, with the
network gone, a page that cannot be fetched shows the offline page, which comes back by itself."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def controlled(page: Page) -> None:
    """Wait until the service worker is active and controls the page."""
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    state = page.evaluate("navigator.serviceWorker.ready.then((r) => [r.scope, r.active.state])")
    assert state == [page.url.split("/about/")[0] + "/", "activated"]


def test_a_page_that_cannot_be_fetched_offline_shows_the_offline_page_then_itself(page):
    page.goto("/about/")
    controlled(page)

    page.context.set_offline(True)
    page.goto("/rules/circles/")

    expect(page.get_by_role("heading", name="You are offline", level=1)).to_be_visible()
    assert page.url.endswith("/rules/circles/")
    # In the site's layout, with its stylesheet, though nothing came from the network.
    expect(page.locator(".site-header")).to_have_css("background-color", "rgb(255, 255, 255)")

    page.context.set_offline(False)

    expect(page.get_by_role("heading", name="Circles", level=1)).to_be_visible()
    expect(page.get_by_role("heading", name="You are offline")).to_have_count(0)
