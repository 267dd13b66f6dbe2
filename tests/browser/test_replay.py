"""Replays in Chromium: step through a finished game with the buttons, the keys, the slider and
the move list; the Circles analysis arrives and marks the blunder; "Study from here" starts a game
from the step shown; every kind's renderer draws every step."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Page, expect

from circles.analysis import Budget, analysis_compute
from circles.models import AnalysisStatus, CirclesAnalysis
from circles.rules import RULES as CIRCLES
from greycircle.games import events, registry, selectors, services, tasks
from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec
from tests.browser.pages import COMPUTER_TURNS_MS
from tests.factories import PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# White wipes black out in nine moves; black's 8th move, d2, is the blunder that allows it.
WIPE_OUT = "e3d3c2f2e2f3c5d2g2"
ANALYSIS_WITHIN_MS = 120_000  # the hard computer on every move: generous for a busy machine


def random_record(seed: int) -> str:
    """A whole Circles game of random moves."""
    rng = random.Random(seed)
    state = CIRCLES.new_game(2, seed=0, options={})
    while CIRCLES.to_move(state) is not None:
        state = CIRCLES.play(state, rng.choice(CIRCLES.legal_moves(state)))
    return CIRCLES.record(state)


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    """Games are made here, in the test process, for pages of the server's: nobody here listens
    to their live updates (and Playwright's loop in this thread would refuse to send them)."""
    monkeypatch.setattr(events, "publish", lambda messages: None)


def circles_finished(user, record: str) -> Game:
    game = services.game_create(
        creator=user, kind="circles", opponents=[SeatSpec(ai_level="easy")], record=record
    )
    assert game.status == GameStatus.FINISHED
    return game


def played_out(user, kind: str, computers: int, monkeypatch) -> Game:
    """A game of `kind` against easy computers, played to the end here, in the test: the seat
    of `user` by the easy computer too. Nothing is queued for the server's worker."""
    monkeypatch.setattr(tasks, "ai_turn_enqueue", lambda **kwargs: None)
    game_kind = registry.get(kind)
    rules = game_kind.rules
    game = services.game_create(
        creator=user, kind=kind, opponents=[SeatSpec(ai_level="easy")] * computers
    )
    for turn in range(3000):
        game = selectors.game_get(game_id=game.pk)
        if game.status != GameStatus.ACTIVE:
            return game
        if game.to_move != 0:
            assert services.ai_take_turn(game_id=game.pk, expected_version=game.version)
            continue
        move = game_kind.computer(rules.decode(game.state), level="easy", seed=turn, budget_ms=50)
        services.move_submit(
            game_id=game.pk,
            user=user,
            move=rules.move_to_json(move),
            expected_version=game.version,
        )
    pytest.fail(f"the {kind} game did not end")


def open_replay(page: Page, log_in, user, game: Game) -> list[str]:
    """Sign in, open the replay, wait until it is drawn; the console's errors, as they come."""
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    log_in(page, user.username, PASSWORD)
    page.goto(f"/games/{game.pk}/replay/")
    expect(page.locator("#replay")).to_have_attribute("data-ready", "true")
    return errors


def step(page: Page) -> int:
    return int(page.locator("#replay").get_attribute("data-step"))


def board(page: Page) -> list[str]:
    """The Circles board as drawn: the colour of each disc (the flip animation left out)."""
    return page.eval_on_selector_all(
        "circle.disc",
        "discs => discs.map(d => [...d.classList].filter(c => c !== 'disc--flipped').join(' '))",
    )


def test_step_through_a_circles_game_with_buttons_keys_slider_and_the_move_list(page, log_in):
    user = UserFactory(username="hana")
    record = random_record(11)
    moves = len(record) // 2
    game = circles_finished(user, record)
    errors = open_replay(page, log_in, user, game)

    expect(page.locator(".circles-board")).to_be_visible()
    expect(page.locator("#status")).to_have_text("The start.")
    expect(page.locator(".disc--white")).to_have_count(2)
    expect(page.locator(".disc--black")).to_have_count(2)
    expect(page.locator(".replay__move-item")).to_have_count(moves)
    expect(page.get_by_role("button", name="First", exact=True)).to_be_disabled()
    start = board(page)

    # Buttons.
    page.get_by_role("button", name="Forward", exact=True).click()
    assert step(page) == 1
    expect(page.locator("#move-text")).to_contain_text(f"1. White {record[:2]}")
    expect(page.locator(".disc--white")).to_have_count(4)
    assert board(page) != start
    expect(page.locator(f'rect[data-square="{record[:2]}"]')).to_have_class(
        "circles-board__square circles-board__square--last"
    )
    page.get_by_role("button", name="Back", exact=True).click()
    assert step(page) == 0
    assert board(page) == start

    # Keys.
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert step(page) == 2
    expect(page.locator("#move-text")).to_contain_text(f"2. Black {record[2:4]}")
    page.keyboard.press("End")
    assert step(page) == moves
    expect(page.locator("#status")).to_contain_text("Game over")
    expect(page.get_by_role("button", name="Last", exact=True)).to_be_disabled()
    final = CIRCLES.from_record(record).position
    white, black = final.counts
    expect(page.locator(".disc--white")).to_have_count(white)
    expect(page.locator(".disc--black")).to_have_count(black)
    expect(page.locator(".player__score")).to_have_text([str(white), str(black)])
    page.keyboard.press("ArrowLeft")
    assert step(page) == moves - 1
    page.keyboard.press("Home")
    assert step(page) == 0

    # The slider.
    page.locator("#slider").fill("10")
    assert step(page) == 10
    expect(page.locator("#step-number")).to_have_text("10")
    expect(page.locator(".replay__move-item--current")).to_have_attribute("data-number", "10")

    # The move list.
    page.locator(".replay__move-button").nth(4).click()
    assert step(page) == 5
    expect(page.locator("#slider")).to_have_value("5")

    # Back to the game, and the record to copy.
    expect(page.locator("#record-text")).to_have_value(record)
    page.get_by_role("link", name="Back to the game").click()
    page.wait_for_url(f"**/games/{game.pk}/")
    expect(page.get_by_role("link", name="Replay")).to_be_visible()
    assert errors == []


def test_the_analysis_marks_the_blunder_and_study_from_here_starts_a_game(page, log_in):
    user = UserFactory(username="ivo")
    game = circles_finished(user, WIPE_OUT)
    errors = open_replay(page, log_in, user, game)

    expect(page.locator("#analysis-status")).to_have_text("Not analysed yet.")
    page.get_by_role("button", name="Analyse the game").click()
    expect(page.locator("#analysis-status")).to_have_text(
        "By the hard computer player.", timeout=ANALYSIS_WITHIN_MS
    )
    expect(page.get_by_role("button", name="Analyse the game")).to_be_hidden()
    blunder = page.locator(".replay__move-item--blunder")
    expect(blunder).to_have_count(1)
    expect(blunder).to_have_attribute("data-number", "8")
    expect(blunder.locator(".replay__mark")).to_contain_text("??")

    # At the step before the last move, the best move (g2, the wipe-out) is on the board.
    page.locator("#slider").fill("8")
    expect(page.locator("#analysis-move")).to_contain_text("8. Black d2 lost")
    expect(page.locator("#analysis-move")).to_contain_text("a blunder")
    expect(page.locator("#analysis-here")).to_have_text("Best move for white: g2 (≈+13).")
    expect(page.locator(".circles-board__square--best")).to_have_attribute("data-square", "g2")

    # Study the position after three moves against the computer.
    page.locator("#slider").fill("3")
    page.get_by_label("Play on against").select_option("easy")
    page.get_by_role("button", name="Study from here").click()
    page.wait_for_url(lambda url: "/replay/" not in url)
    studied = Game.objects.exclude(pk=game.pk).get()
    assert page.url.endswith(f"/games/{studied.pk}/")
    assert studied.state["record"].startswith(WIPE_OUT[:6])
    assert [seat.ai_level for seat in studied.seats.order_by("index")] == ["", "easy"]
    # The three moves imported; black (the computer) to move after them, then white (me).
    expect(page.locator(".move-list__item--imported")).to_have_count(3)
    expect(page.locator("#status")).to_have_text("Your turn.", timeout=COMPUTER_TURNS_MS)
    assert errors == []


def test_an_analysis_in_progress_shows_how_far_it_is_and_no_totals(page, log_in):
    """3 of 9 moves analysed: the page says so, marks what is known, and gives no per-player
    totals ("0 mistakes" would be a verdict on the moves not analysed yet)."""
    user = UserFactory(username="una")
    game = circles_finished(user, WIPE_OUT)
    known = analysis_compute(moves=CIRCLES.parse_record(WIPE_OUT), budget=Budget(nodes=2_000))
    # Pending, and nothing queued: it stays at 3 of 9 while the page looks.
    CirclesAnalysis.objects.create(
        game=game, status=AnalysisStatus.PENDING, positions=known["positions"][:3], total=9
    )
    errors = open_replay(page, log_in, user, game)

    expect(page.locator("#analysis-status")).to_have_text("Analysed 3 of 9 moves so far.")
    expect(page.locator("#analysis-summary")).to_be_hidden()
    page.locator("#slider").fill("1")
    expect(page.locator("#analysis-move")).to_be_visible()
    page.locator("#slider").fill("8")
    expect(page.locator("#analysis-move")).to_be_hidden()
    assert errors == []


@pytest.mark.parametrize(("kind", "computers"), [("kingscorner", 2), ("cirkis", 1)])
def test_every_kind_draws_every_step_of_its_replay(page, log_in, monkeypatch, kind, computers):
    user = UserFactory(username=f"jo_{kind}")
    game = played_out(user, kind, computers, monkeypatch)
    errors = open_replay(page, log_in, user, game)

    expect(page.locator("#status")).to_have_text("The start.")
    expect(page.locator(".replay__move-item")).to_have_count(game.move_count)
    # Every step, one after the other, by the Forward button.
    for number in range(1, game.move_count + 1):
        page.evaluate("document.getElementById('forward').click()")
        assert step(page) == number
    expect(page.locator("#status")).to_contain_text("Game over")
    page.keyboard.press("Home")
    assert step(page) == 0
    page.keyboard.press("End")
    assert step(page) == game.move_count
    expect(page.locator("#analysis")).to_be_hidden()
    assert errors == []
