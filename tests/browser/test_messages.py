"""Messages between friends in Chromium: one opens the thread from a profile, the other sees the
badge rise live, reads the message as text (markup shown, not run) and answers with Enter, and
the answer arrives live in the open thread, read at once. A page whose stream was down sets the
badge from the stream's hello when it is back."""

import re
import time

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from greycircle.conversations import services
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


def test_the_badge_counts_what_came_while_the_stream_was_down(page, log_in):
    ann, ben = UserFactory(username="ann"), UserFactory(username="ben")
    befriend(ann, ben)
    conversation = services.conversation_start(user=ann, username="ben")
    # ws/me/ goes through the test: to the server until the test cuts the stream; the page's
    # reconnection after the cut waits until the test lets it through.
    sockets: list[WebSocketRoute] = []
    hellos: list[str] = []
    cut = False

    def route(socket: WebSocketRoute) -> None:
        sockets.append(socket)
        if cut:
            return
        server = socket.connect_to_server()

        def from_server(message: str | bytes) -> None:
            if isinstance(message, str) and '"hello"' in message:
                hellos.append(message)
            socket.send(message)

        server.on_message(from_server)

    log_in(page, "ben", PASSWORD)
    page.route_web_socket(re.compile(r"/ws/me/$"), route)
    page.goto("/")
    deadline = time.monotonic() + 30
    while not hellos:  # Playwright hears of the stream's frames while it waits
        assert time.monotonic() < deadline, "the stream never said hello"
        page.wait_for_timeout(50)
    expect(badge(page)).to_be_hidden()
    page.evaluate("window.notReloaded = true")
    cut = True
    before = len(sockets)
    sockets[-1].close(code=1001)  # the server going away
    while len(sockets) == before:
        assert time.monotonic() < deadline, "the page did not reconnect"
        page.wait_for_timeout(50)

    # ann writes while ben's page has no stream: no frame of it reaches the page, ever.
    services.direct_message_send(user=ann, conversation_id=conversation.pk, body="rematch?")

    cut = False
    sockets[-1].connect_to_server()
    expect(badge(page)).to_have_text("1 unread", timeout=LIVE_WITHIN_MS)
    assert page.evaluate("window.notReloaded === true"), "the page was reloaded"
