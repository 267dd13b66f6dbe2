"""The installable site in Chromium: the service worker registers on every page and, with the
network gone, a page that cannot be fetched shows the offline page, which comes back by itself;
a Web Push message (delivered through CDP, as a push service would) shows its notification."""

from __future__ import annotations

import json
import time

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


def push_delivered(page: Page, payload: dict) -> None:
    """A push message to the page's service worker, as a push service would bring it (CDP)."""
    cdp = page.context.new_cdp_session(page)
    origin = page.evaluate("location.origin")
    ours: list[str] = []

    def updated(event: dict) -> None:
        for registration in event["registrations"]:
            if registration["scopeURL"] == f"{origin}/" and not registration["isDeleted"]:
                ours.append(registration["registrationId"])

    cdp.on("ServiceWorker.workerRegistrationUpdated", updated)
    cdp.send("ServiceWorker.enable")
    deadline = time.monotonic() + 30
    while not ours:  # enabling the domain reports the registrations there are
        assert time.monotonic() < deadline, "CDP reported no service worker for the site"
        page.wait_for_timeout(50)
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": origin, "registrationId": ours[0], "data": json.dumps(payload)},
    )
    cdp.detach()


# The notifications the service worker shows, once `body` is among them (within 30 s; else null).
NOTIFICATIONS_WITH_BODY = """async (body) => {
    const registration = await navigator.serviceWorker.ready;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
        const shown = await registration.getNotifications();
        if (shown.some((n) => n.body === body)) return shown.map((n) => ({
            title: n.title, body: n.body, tag: n.tag, data: n.data, icon: n.icon, badge: n.badge,
        }));
        await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return null;
}"""


def test_a_push_shows_the_games_notification(page):
    page.context.grant_permissions(["notifications"])
    page.goto("/about/")
    controlled(page)
    payload = {
        "title": "Circles #12",
        "body": "It is your turn.",
        "url": "/games/12/",
        "tag": "game-12",
        "notification": 7,
    }

    push_delivered(page, payload)

    shown = page.evaluate(NOTIFICATIONS_WITH_BODY, "It is your turn.")
    origin = page.evaluate("location.origin")
    assert shown == [
        {
            "title": "Circles #12",
            "body": "It is your turn.",
            "tag": "game-12",
            "data": {"url": f"{origin}/games/12/", "notification": 7},
            "icon": f"{origin}/static/frontend/icons/icon-192.png",
            "badge": f"{origin}/static/frontend/icons/badge-96.png",
        }
    ]

    # A newer push about the same game replaces it (same tag); a link off the site becomes home.
    push_delivered(page, {**payload, "body": "You won.", "url": "https://elsewhere.example/"})

    (newer,) = page.evaluate(NOTIFICATIONS_WITH_BODY, "You won.")
    assert newer["data"]["url"] == f"{origin}/"
