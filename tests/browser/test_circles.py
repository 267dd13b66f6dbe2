"""Circles in Chromium: a whole game against the computer; two players see each other live."""

import pytest
from playwright.sync_api import Page, expect

from greycircle.games.services import SeatSpec
from greycircle.players.deletion import account_anonymise
from tests.browser.pages import COMPUTER_TURNS_MS, LIVE_WITHIN_MS, game_start, invitation_accept
from tests.factories import PASSWORD, UserFactory, game_started

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def version(page: Page) -> int:
    return page.evaluate("window.greyCircleGame.envelope.version")


def legal_squares(page: Page) -> list[str]:
    return page.eval_on_selector_all(
        ".circles-board__hint--legal", "hints => hints.map(h => h.dataset.square)"
    )


def start_circles(page: Page, opponent: str) -> None:
    game_start(page, kind="circles", title="Circles", opponents=[opponent])
    expect(page.locator(".circles-board")).to_be_visible()


def test_sign_up_and_play_the_easy_computer_to_the_end(page: Page, sign_up):
    sign_up(page, "erin")
    start_circles(page, "ai:easy")

    status = page.locator("#status")
    expect(status).to_have_text("Your turn.")
    expect(page.locator(".circles-board__hint--legal")).to_have_count(4)
    for _ in range(70):
        expect(status).not_to_contain_text("thinking", timeout=COMPUTER_TURNS_MS)
        if "Game over" in status.inner_text():
            break
        squares = legal_squares(page)
        assert squares, "it is my turn, so the board shows my legal squares"
        before = version(page)
        page.locator(f"rect[data-square={squares[0]}]").click()
        page.wait_for_function(f"window.greyCircleGame.envelope.version > {before}")
    expect(status).to_contain_text("Game over")
    white, black = page.locator(".player__score").all_inner_texts()
    assert int(white) + int(black) <= 64
    expect(page.get_by_role("button", name="Rematch")).to_be_visible()
    expect(page.get_by_role("button", name="Resign")).to_be_hidden()
    transcript = page.locator("#record-text").input_value()
    assert len(transcript) >= 2 * 9, "a finished game has at least nine moves"

    finished_url = page.url
    page.get_by_role("button", name="Rematch").click()
    page.wait_for_url(lambda url: url != finished_url)
    # Seats turn in a rematch: the computer plays white now and opens the game.
    expect(page.locator("#status")).to_have_text("Your turn.", timeout=COMPUTER_TURNS_MS)
    expect(page.locator(".move-list li")).to_have_count(1)
    expect(page.locator(".player--you .disc-marker--black")).to_have_count(1)


def test_a_move_appears_live_on_the_other_players_page(new_page, log_in):
    UserFactory(username="fay")
    UserFactory(username="gus")
    fay, gus = new_page(), new_page()
    log_in(fay, "fay", PASSWORD)
    log_in(gus, "gus", PASSWORD)

    start_circles(fay, "open")
    expect(fay.locator("#status")).to_have_text("Waiting for players to join.")
    game_url = fay.url

    gus.goto("/play/")
    gus.get_by_role("button", name="Join").click()
    expect(gus).to_have_url(game_url)
    expect(gus.locator("#status")).to_have_text("fay's turn.")
    expect(fay.locator("#status")).to_have_text("Your turn.", timeout=LIVE_WITHIN_MS)

    fay.locator("rect[data-square=c5]").click()
    expect(gus.locator("#status")).to_have_text("Your turn.", timeout=LIVE_WITHIN_MS)
    expect(gus.locator(".disc--white")).to_have_count(4, timeout=LIVE_WITHIN_MS)

    gus.locator(f"rect[data-square={legal_squares(gus)[0]}]").click()
    expect(fay.locator("#status")).to_have_text("Your turn.", timeout=LIVE_WITHIN_MS)
    expect(fay.locator(".move-list li")).to_have_count(2, timeout=LIVE_WITHIN_MS)


def test_a_square_that_is_not_legal_says_why_and_out_of_turn_says_whose_turn(new_page, log_in):
    UserFactory(username="hal")
    UserFactory(username="ivy", accept_invitations_from_anyone=True)
    hal, ivy = new_page(), new_page()
    log_in(hal, "hal", PASSWORD)
    log_in(ivy, "ivy", PASSWORD)
    start_circles(hal, "user:ivy")
    expect(hal.locator("#status")).to_have_text("Waiting for ivy to accept.")
    invitation_accept(ivy, hal.url)
    expect(hal.locator("#status")).to_have_text("Your turn.", timeout=LIVE_WITHIN_MS)

    hal.locator("rect[data-square=a1]").click()
    expect(hal.locator("#notice")).to_have_text("a1 flips no discs.")
    hal.locator("rect[data-square=d4]").click()
    expect(hal.locator("#notice")).to_have_text("d4 is taken.")

    ivy.locator("rect[data-square=c4]").click()
    expect(ivy.locator("#notice")).to_have_text("It is hal's turn, not yours.")


def test_keyboard_play_and_helpers_off(new_page, log_in):
    jo = UserFactory(username="jo", show_helpers=False)
    page = new_page()
    log_in(page, jo.username, PASSWORD)
    start_circles(page, "ai:easy")
    expect(page.locator(".circles-board__hint--legal")).to_have_count(0)
    board = page.locator(".circles-board")
    board.focus()
    # The cursor starts on d4; c5 is one left and one down.
    board.press("ArrowLeft")
    board.press("ArrowDown")
    board.press("Enter")
    expect(page.locator(".move-list li").first).to_have_text("1. White c5 (1 flipped)")


# Counts, in the page, the move-log fetches it has sent and those whose answer it has read (the
# page renders an answer in the same task as it reads it, so `read === sent` means all are shown),
# and the moves it posted.
COUNT_MOVE_LOG_FETCHES = """(() => {
  const fetches = (window.moveLogFetches = { sent: 0, read: 0, posted: 0 });
  const fetch = window.fetch.bind(window);
  window.fetch = (resource, options = {}) => {
    const url = new URL(String(resource), location.href);
    if (!url.pathname.endsWith("/moves/")) return fetch(resource, options);
    if ((options.method || "GET") !== "GET") {
      fetches.posted += 1;
      return fetch(resource, options);
    }
    fetches.sent += 1;
    return fetch(resource, options).then((response) => {
      const json = response.json.bind(response);
      response.json = () => json().finally(() => { fetches.read += 1; });
      return response;
    });
  };
})();"""
ALL_MOVE_LOGS_READ = "() => window.moveLogFetches.read === window.moveLogFetches.sent"


def test_moves_arrive_with_the_live_updates_without_fetching_the_log_again(new_page, log_in):
    """The move log is fetched once when the page opens; each move after that comes in its
    socket frame, on both players' pages. A live page sends its moves on the socket too."""
    UserFactory(username="kit")
    UserFactory(username="lou", accept_invitations_from_anyone=True)
    kit, lou = new_page(), new_page()
    kit.add_init_script(COUNT_MOVE_LOG_FETCHES)
    moves_sent: list[str] = []
    kit.on(
        "websocket",
        lambda socket: socket.on(
            "framesent",
            lambda frame: moves_sent.append(frame) if '"type":"move"' in frame else None,
        ),
    )
    log_in(kit, "kit", PASSWORD)
    log_in(lou, "lou", PASSWORD)
    start_circles(kit, "user:lou")
    invitation_accept(lou, kit.url)
    expect(lou.locator("#connection")).to_have_text("Live")
    expect(kit.locator("#connection")).to_have_text("Live")
    kit.wait_for_function(ALL_MOVE_LOGS_READ)
    fetched = kit.evaluate("window.moveLogFetches.sent")

    kit.locator("rect[data-square=c5]").click()
    expect(lou.locator("#status")).to_have_text("Your turn.")
    lou.locator(f"rect[data-square={legal_squares(lou)[0]}]").click()

    for page in (kit, lou):
        expect(page.locator(".move-list li")).to_have_count(2, timeout=LIVE_WITHIN_MS)
        expect(page.locator(".move-list li").last).to_contain_text("2. ")
    assert kit.evaluate("window.moveLogFetches.sent") == fetched
    # Kit's move went on the socket, with no request: answered there, it needed none.
    assert len(moves_sent) == 1
    assert kit.evaluate("window.moveLogFetches.posted") == 0


def test_the_players_names_lead_to_their_profiles_but_a_deleted_players_does_not(page, log_in):
    jo = UserFactory(username="jo")
    kit = UserFactory(username="kit")
    game = game_started(creator=jo, kind="circles", opponents=[SeatSpec(user=kit)])
    log_in(page, "jo", PASSWORD)
    page.goto(f"/games/{game.pk}/")
    players = page.locator("#seats .player__name")
    expect(players).to_have_text(["jo (you)", "kit"])
    expect(players.nth(0).get_by_role("link", name="jo")).to_have_attribute("href", "/u/jo/")
    expect(players.nth(1).get_by_role("link", name="kit")).to_have_attribute("href", "/u/kit/")

    # kit deletes the account: the game is resigned and kit is a "deleted player", no link.
    account_anonymise(user=kit)
    page.reload()
    expect(page.locator("#status")).to_contain_text("Game over: You win")
    expect(players).to_have_text(["jo (you)", "deleted player"])
    expect(page.locator("#seats a")).to_have_count(1)

    # Computers have no profile either.
    game = game_started(creator=jo, kind="circles", opponents=[SeatSpec(ai_level="easy")])
    page.goto(f"/games/{game.pk}/")
    expect(players).to_have_text(["jo (you)", "Computer (easy)"])
    expect(page.locator("#seats a")).to_have_count(1)
