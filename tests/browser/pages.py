"""Steps that several browser tests take through the site's pages."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

# How long a page may take to show what another page or the server did. The game pages and the
# notification badge learn of changes only through their sockets (they never poll), so a change
# seen without a reload arrived live, however long it took: this is a bound for a busy machine,
# not a claim about speed (bench/ measures that).
LIVE_WITHIN_MS = 30_000
# How long the computers' turns may take, played one after another by the server's task worker.
COMPUTER_TURNS_MS = 60_000


def nav_link(page: Page, name: str) -> Locator:
    """A link of the site's navigation; on a phone, its menu is opened first."""
    menu = page.get_by_role("button", name="Menu")
    if menu.is_visible():
        menu.click()
    return page.get_by_role("navigation", name="Main").get_by_role("link", name=name, exact=True)


def game_start(page: Page, *, kind: str, title: str, opponents: list[str]) -> None:
    """Start a game from the Play page and wait until the game page is live.

    `opponents` are the choices for seats 2, 3, ...: "ai:<level>", "open" or "user:<username>".
    """
    nav_link(page, "Play").click()
    form = page.locator(f"form[data-kind={kind}]")
    for seat, choice in enumerate(opponents, start=2):
        friend = choice.removeprefix("user:") if choice.startswith("user:") else None
        form.get_by_label(f"Seat {seat}", exact=True).select_option("user" if friend else choice)
        if friend:
            form.get_by_label(f"Seat {seat}: friend's username").fill(friend)
    form.get_by_role("button", name=f"Start {title}").click()
    expect(page.locator("#connection")).to_have_text("Live")
    page.wait_for_function("() => window.greyCircleGame !== undefined")


def invitation_accept(page: Page, game_url: str) -> None:
    """Open the game an invitation is for and accept it; wait until the game is in play."""
    page.goto(game_url)
    expect(page.locator("#status")).to_contain_text("invites you to play")
    page.get_by_role("button", name="Accept").click()
    expect(page.locator("#status")).not_to_contain_text("invites you")
    expect(page.locator("#accept")).to_be_hidden()


MOVE_LIST_CURRENT = """() => {
  const count = window.greyCircleGame.envelope.move_count;
  return document.querySelectorAll(".move-list li").length === count && { count };
}"""


def move_list_current(page: Page) -> int:
    """Wait until the move list shows every move of the newest envelope; return how many.

    The page fetches the log after an envelope, so reading the list's length at once can count a
    log that is still on its way.
    """
    return page.wait_for_function(MOVE_LIST_CURRENT).json_value()["count"]
