"""CirKis in Chromium: a whole 3-player game against two computers, and a phone-sized page.

Moves are made the way a player makes them: choose a piece in the tray, then click (or tap) a
lit field. Which placement to make is read from the envelope's legal moves, as the page does.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from django.db.models import F
from django.utils import timezone
from playwright.sync_api import Page, expect

from cirkis.rules import RULES as CIRKIS
from cirkis.state import position
from greycircle.games import events, services
from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec
from tests.browser.pages import COMPUTER_TURNS_MS, game_start
from tests.factories import PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A CirKis game has at most 165 fields to cover; three players never need more turns than this.
MAX_TURNS = 80

MY_TURN_OR_OVER = """() => {
  const game = window.greyCircleGame;
  if (!game) return false;
  const e = game.envelope;
  return e.status !== "active" || e.to_move === e.you;
}"""

# The viewport point at the area centroid of a field (inside it, even for a dart's notch).
FIELD_POINT = """(id) => {
  const field = document.querySelector(`.cirkis-field[data-field="${id}"]`);
  field.scrollIntoView({ block: "center" });
  const pts = Array.from(field.points, (p) => [p.x, p.y]);
  let area = 0, cx = 0, cy = 0;
  pts.forEach(([x0, y0], i) => {
    const [x1, y1] = pts[(i + 1) % pts.length];
    const cross = x0 * y1 - x1 * y0;
    area += cross; cx += (x0 + x1) * cross; cy += (y0 + y1) * cross;
  });
  const at = new DOMPoint(cx / (3 * area), cy / (3 * area));
  const point = at.matrixTransform(field.getScreenCTM());
  return [point.x, point.y];
}"""


def envelope(page: Page) -> dict:
    return page.evaluate("window.greyCircleGame.envelope")


def start_cirkis(page: Page) -> None:
    game_start(page, kind="cirkis", title="CirKis", opponents=["ai:easy", "ai:easy"])
    expect(page.locator(".cirkis-board")).to_be_visible()


def place_by_click(page: Page) -> dict:
    """Choose the piece of the first legal placement and click that placement's first field.

    Returns the placement; fails unless the server accepted a placement of that piece.
    """
    before = envelope(page)
    move = before["legal_moves"][0]
    page.locator(f".cirkis-tray__piece[data-piece={move['piece']}]").click()
    expect(page.locator(f".cirkis-tray__piece[data-piece={move['piece']}]")).to_have_attribute(
        "aria-pressed", "true"
    )
    lit = page.eval_on_selector_all(
        ".cirkis-field--lit", "fields => fields.map(f => Number(f.dataset.field))"
    )
    assert set(move["fields"]) <= set(lit), "the chosen piece's fits are lit"
    x, y = page.evaluate(FIELD_POINT, move["fields"][0])
    page.mouse.click(x, y)
    page.wait_for_function(f"window.greyCircleGame.envelope.version > {before['version']}")
    expect(page.locator("#notice.game-notice--error")).to_have_count(0)
    after = envelope(page)
    left_before = before["state"]["pieces_left"][before["you"]][move["piece"]]
    assert after["state"]["pieces_left"][before["you"]][move["piece"]] == left_before - 1
    return move


def test_sign_up_and_play_a_three_player_game_against_two_computers_to_the_end(page: Page, sign_up):
    sign_up(page, "ana")
    start_cirkis(page)

    status = page.locator("#status")
    expect(status).to_have_text("Your turn.")
    expect(page.locator(".cirkis-field")).to_have_count(165)
    expect(page.locator(".cirkis-shape")).to_have_count(16)
    expect(page.locator(".cirkis-tray__piece")).to_have_count(9)
    expect(page.locator(".cirkis-score")).to_have_count(3)
    # The first piece goes on the Center Star or the Center Ring: only those fields are lit.
    lit = page.eval_on_selector_all(
        ".cirkis-field--lit", "fields => fields.map(f => Number(f.dataset.field))"
    )
    assert lit
    assert set(lit) <= set(range(15))

    first = place_by_click(page)
    name = page.locator(f".cirkis-tray__piece[data-piece={first['piece']}] .cirkis-tray__name")
    piece_name = name.inner_text()
    expect(page.locator(".move-list li").first).to_contain_text("1. You placed a")
    expect(page.locator(".move-list li").first).to_contain_text(piece_name)
    for field in first["fields"]:
        expect(page.locator(f".cirkis-piece--p0[data-field='{field}']")).to_have_count(1)
    expect(page.locator(".cirkis-leader")).to_have_attribute("d", re.compile(r"^M"))

    # The computers answer live: their placements arrive and it is my turn again (or it is over).
    page.wait_for_function(MY_TURN_OR_OVER, timeout=COMPUTER_TURNS_MS)
    now = envelope(page)
    assert now["status"] == "active"
    assert now["move_count"] >= 2, "the computers placed pieces"
    expect(status).to_have_text("Your turn.")
    expect(page.locator(".move-list li")).to_have_count(now["move_count"])
    expect(page.locator(".move-list li").nth(1)).to_contain_text("Computer (easy) placed")
    covered = sum(owner is not None for owner in now["state"]["owners"])
    expect(page.locator(".cirkis-piece")).to_have_count(covered)

    for _ in range(MAX_TURNS):
        page.wait_for_function(MY_TURN_OR_OVER, timeout=COMPUTER_TURNS_MS)
        if envelope(page)["status"] != "active":
            break
        expect(status).to_have_text("Your turn.")
        place_by_click(page)
    expect(status).to_contain_text("Game over")

    final = envelope(page)
    assert final["status"] == "finished"
    assert final["state"]["finished"] in {"target", "went_out", "blocked"}
    expect(page.locator(".player__score")).to_have_text([str(s) for s in final["state"]["scores"]])
    expect(page.locator(".move-list li")).to_have_count(final["move_count"])
    expect(page.locator(".cirkis-field--lit")).to_have_count(0)
    expect(page.get_by_role("button", name="Rematch")).to_be_visible()
    expect(page.get_by_role("button", name="Resign")).to_be_hidden()


def test_a_phone_shows_the_whole_board_and_a_second_tap_places_the_piece(new_page, log_in):
    UserFactory(username="ben")
    page = new_page(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True)
    log_in(page, "ben", PASSWORD)
    start_cirkis(page)
    expect(page.locator("#status")).to_have_text("Your turn.")

    overflow = page.evaluate("document.documentElement.scrollWidth")
    assert overflow <= 375, f"the page is {overflow}px wide on a 375px screen"
    box = page.locator(".cirkis-board").bounding_box()
    assert box is not None
    assert box["width"] >= 300
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 375

    move = envelope(page)["legal_moves"][0]
    page.locator(f".cirkis-tray__piece[data-piece={move['piece']}]").tap()
    x, y = page.evaluate(FIELD_POINT, move["fields"][0])
    version = envelope(page)["version"]
    page.touchscreen.tap(x, y)
    # The first tap shows the piece in place and places nothing.
    preview = page.locator(".cirkis-preview__field")
    expect(preview).to_have_count(len(move["fields"]))
    expect(page.locator(".cirkis-hint")).to_contain_text("Tap it again to place it.")
    assert envelope(page)["version"] == version
    page.touchscreen.tap(x, y)
    page.wait_for_function(f"window.greyCircleGame.envelope.version > {version}")
    expect(page.locator(".move-list li").first).to_contain_text("1. You placed")
    expect(preview).to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_choose_a_piece_and_place_it_with_the_keyboard(page: Page, log_in):
    UserFactory(username="cy")
    log_in(page, "cy", PASSWORD)
    start_cirkis(page)
    expect(page.locator("#status")).to_have_text("Your turn.")
    move = envelope(page)["legal_moves"][0]
    piece = page.locator(f".cirkis-tray__piece[data-piece={move['piece']}]")
    piece.focus()
    page.keyboard.press("Enter")
    expect(piece).to_have_attribute("aria-pressed", "true")

    board = page.locator(".cirkis-board")
    board.focus()
    board.press("ArrowRight")
    expect(page.locator(".cirkis-preview__field")).to_have_count(len(move["fields"]))
    expect(page.locator(".cirkis-hint")).to_contain_text("Enter places it")
    version = envelope(page)["version"]
    board.press("Enter")
    page.wait_for_function(f"window.greyCircleGame.envelope.version > {version}")
    expect(page.locator(".move-list li").first).to_contain_text("1. You placed")


def test_a_win_by_the_tie_break_says_how_the_tie_was_broken(page: Page, log_in, monkeypatch):
    """0-0 when nobody could play: the player with more pieces left wins, and the page says so."""
    # The game is made here, for the server's page: nobody here listens to its live updates.
    monkeypatch.setattr(events, "publish", lambda messages: None)
    user = UserFactory(username="dee")
    game = services.game_create(creator=user, kind="cirkis", opponents=[SeatSpec(ai_level="easy")])
    blocked = replace(
        position(
            covered=[[5], [8]],
            pieces_left=[{"kite": 2, "cube": 1}, {"sliver": 1}],
            scores=[0, 0],
        ),
        finished="blocked",
    )
    outcome = CIRKIS.outcome(blocked)
    assert (outcome.winners, outcome.reason) == ([0], "blocked")
    Game.objects.filter(pk=game.pk).update(
        state=CIRKIS.encode(blocked),
        status=GameStatus.FINISHED,
        outcome=outcome.to_json(),
        finished_at=timezone.now(),
        version=F("version") + 1,
    )

    log_in(page, "dee", PASSWORD)
    page.goto(f"/games/{game.pk}/")

    expect(page.locator("#status")).to_have_text(
        "Game over: You win at 0\N{EN DASH}0 when nobody could play, on the tie-break: "
        "3 pieces left against 1."
    )
