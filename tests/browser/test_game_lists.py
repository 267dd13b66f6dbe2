"""The home page and "My games" in Chromium: the lists follow the player's stream (ws/me/), as the
unread badge does, without a reload."""

import re
import time

import pytest
from django_tasks_db.models import DBTaskResult
from playwright.sync_api import Page, WebSocketRoute, expect

from greycircle.games import services
from greycircle.games.services import SeatSpec
from greycircle.notifications import tasks as notification_tasks
from tests.factories import PASSWORD, UserFactory, game_started

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def group(page: Page, key: str):
    """One list of the home page ("my_turn", "their_turn", "finished")."""
    return page.locator(f"[data-list={key}]")


def same_document(page: Page) -> None:
    """Mark the document, so that `still_same_document` can tell it was not reloaded."""
    page.evaluate("window.notReloaded = true")


def still_same_document(page: Page) -> None:
    assert page.evaluate("window.notReloaded === true"), "the page was reloaded"


def following(page: Page) -> None:
    """Wait until the page's lists follow the stream (its ws/me/ socket said hello)."""
    expect(page.locator("[data-live-lists]")).to_have_attribute("data-live", "true")


def notifications_sent() -> None:
    """Wait until the server's task worker has sent every notification queued (to the sockets
    that listen, and to nobody when none does)."""
    queued = DBTaskResult.objects.filter(
        task_path=notification_tasks.notifications_send.module_path
    )
    deadline = time.monotonic() + 30
    while not queued.exists() or queued.exclude(status__in=["SUCCESSFUL", "FAILED"]).exists():
        assert time.monotonic() < deadline, "the notifications were not sent"
        time.sleep(0.05)


def test_the_lists_follow_the_opponents_move_and_resignation_without_a_reload(page, log_in):
    ida = UserFactory(username="ida")
    jon = UserFactory(username="jon")
    game = game_started(creator=jon, kind="circles", opponents=[SeatSpec(user=ida)])
    log_in(page, "ida", PASSWORD)
    page.goto("/")
    link = f"Circles #{game.pk}"
    expect(group(page, "their_turn").get_by_role("link", name=link, exact=True)).to_be_visible()
    expect(group(page, "my_turn")).to_contain_text("None.")
    same_document(page)
    following(page)

    # jon moves: ida's home page moves the game to "Waiting on you", as her badge counts it.
    services.move_submit(
        game_id=game.pk, user=jon, move={"square": "c5"}, expected_version=game.version
    )
    expect(group(page, "my_turn").get_by_role("link", name=link, exact=True)).to_be_visible()
    expect(group(page, "my_turn")).to_contain_text("Your turn")
    expect(group(page, "their_turn")).to_contain_text("None.")
    still_same_document(page)

    # On "My games", the finished list gains the game when jon resigns.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="My games").click()
    page.get_by_role("navigation", name="Lists").get_by_role("link", name="Finished").click()
    lists = page.locator("[data-live-lists]")
    expect(lists).to_contain_text("No games here.")
    same_document(page)
    following(page)
    services.game_resign(game_id=game.pk, user=jon)
    expect(lists.get_by_role("link", name=link, exact=True)).to_be_visible()
    still_same_document(page)


def test_the_lists_catch_up_on_what_came_while_the_socket_was_down(page, log_in):
    ida = UserFactory(username="ida")
    jon = UserFactory(username="jon")
    game = game_started(creator=jon, kind="circles", opponents=[SeatSpec(user=ida)])
    # ws/me/ goes through the test: to the server until the test cuts the stream (a busy server
    # may refuse a socket, 4503, and the page then reconnects: that one goes through too); the
    # page's reconnection after the cut waits until the test lets it through.
    sockets: list[WebSocketRoute] = []
    cut = False

    def route(socket: WebSocketRoute) -> None:
        sockets.append(socket)
        if not cut:
            socket.connect_to_server()

    log_in(page, "ida", PASSWORD)
    page.route_web_socket(re.compile(r"/ws/me/$"), route)
    page.goto("/")
    following(page)
    same_document(page)
    cut = True
    before = len(sockets)
    sockets[-1].close(code=1001)  # the server going away
    deadline = time.monotonic() + 30
    while len(sockets) == before:  # Playwright hears of the page reconnecting while it waits
        assert time.monotonic() < deadline, "the page did not reconnect"
        page.wait_for_timeout(50)

    # jon moves while ida's page has no stream: nothing reaches it.
    DBTaskResult.objects.all().delete()
    services.move_submit(
        game_id=game.pk, user=jon, move={"square": "c5"}, expected_version=game.version
    )
    notifications_sent()
    expect(group(page, "my_turn")).to_contain_text("None.")

    # The stream is back: the page catches up with what it missed.
    cut = False
    sockets[-1].connect_to_server()
    link = group(page, "my_turn").get_by_role("link", name=f"Circles #{game.pk}", exact=True)
    expect(link).to_be_visible()
    still_same_document(page)


def test_the_lists_follow_the_stream_when_their_module_loads_after_its_hello(page, log_in):
    # On a busy machine the page's list module can arrive after the stream's first "hello"
    # (notifications.js opens the socket first): the lists must follow the stream all the same.
    UserFactory(username="ida")
    log_in(page, "ida", PASSWORD)
    held = []
    page.route(re.compile(r"/game-lists(\.[0-9a-f]+)?\.js$"), lambda route: held.append(route))
    hellos: list[str] = []

    def route(socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()

        def from_server(message: str | bytes) -> None:
            if isinstance(message, str) and '"hello"' in message:
                hellos.append(message)
            socket.send(message)

        server.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/me/$"), route)
    page.goto("/", wait_until="commit")
    deadline = time.monotonic() + 30
    while not (held and hellos):  # the module held back until the hello reached the page
        assert time.monotonic() < deadline, "no hello, or the list module was never asked for"
        page.wait_for_timeout(50)
    held[0].continue_()

    following(page)
