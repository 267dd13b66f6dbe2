"""A live game in Chromium: each seat's clock ticks on both pages, the first move has its own
limit, and a player who runs out of time loses on both pages, the server ending the game on its
own (the clocks' loop of its task worker); a live game started from the Play form."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import override_settings
from django.utils import timezone
from playwright.sync_api import Page, expect

from greycircle.games.clocks import TimeControl
from greycircle.games.models import Game
from greycircle.games.services import SeatSpec
from tests.browser.pages import LIVE_WITHIN_MS
from tests.factories import PASSWORD, UserFactory, game_started

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module", autouse=True)
def first_moves_unhurried():
    """Each player's first move may take two minutes rather than 30 s: signing two players in
    and opening their pages on a busy machine must not abort the game. Set before the live
    server's process is forked (an autouse fixture of the module comes first), so it has it too."""
    with override_settings(GAMES_CLOCK_FIRST_MOVE_SECONDS=120):
        yield


def open_game(page: Page, game_id: int) -> None:
    page.goto(f"/games/{game_id}/")
    expect(page.locator("#connection")).to_have_text("Live")


def clock_of(page: Page, seat: int):
    return page.locator(f'#seats [data-seat="{seat}"] .player__clock')


def stretch_began(game: Game, *, ago: timedelta) -> None:
    """The running seat's clock (at a full minute) started `ago`, its flag moved with it."""
    started = timezone.now() - ago
    lag = timedelta(milliseconds=settings.GAMES_CLOCK_LAG_ALLOWANCE_MS)
    Game.objects.filter(pk=game.pk).update(
        clock_started_at=started, flag_at=started + timedelta(minutes=1) + lag
    )


def move_first_legal(page: Page) -> None:
    before = page.evaluate("window.greyCircleGame.envelope.version")
    square = page.locator(".circles-board__hint--legal").first.get_attribute("data-square")
    page.locator(f"rect[data-square={square}]").click()
    page.wait_for_function(f"window.greyCircleGame.envelope.version > {before}")


def test_clocks_tick_on_both_pages_and_the_player_out_of_time_loses(new_page, log_in):
    kim = UserFactory(username="kim")
    lee = UserFactory(username="lee")
    game = game_started(
        creator=kim, kind="circles", opponents=[SeatSpec(user=lee)], time_control=TimeControl(1, 0)
    )
    kim_page, lee_page = new_page(), new_page()
    log_in(kim_page, "kim", PASSWORD)
    log_in(lee_page, "lee", PASSWORD)
    open_game(kim_page, game.pk)
    open_game(lee_page, game.pk)

    # A first turn is timed by its own limit, not by the clock.
    expect(clock_of(kim_page, 0)).to_have_text("1:00")
    expect(kim_page.locator('#seats [data-seat="0"] .player__first-move')).to_contain_text(
        "First move within"
    )
    expect(kim_page.locator("#clock-announce")).to_contain_text("Your first move: within")
    expect(kim_page.get_by_label("Sound on your turn")).to_be_visible()
    move_first_legal(kim_page)
    expect(lee_page.locator('#seats [data-seat="1"] .player__first-move')).to_be_visible(
        timeout=LIVE_WITHIN_MS
    )
    move_first_legal(lee_page)

    # kim's clock runs now, on both pages; lee's stands still.
    expect(kim_page.locator("#status")).to_have_text("Your turn.", timeout=LIVE_WITHIN_MS)
    for page in (kim_page, lee_page):
        running = clock_of(page, 0)
        expect(running).to_have_class("player__clock player__clock--running")
        shown = running.inner_text()
        expect(running).not_to_have_text(shown)  # it ticks down
        expect(clock_of(page, 1)).to_have_text("1:00")

    # So does it in lee's list of games, by kim's seat.
    lee_page.goto("/")
    listed = lee_page.locator(f'[data-game-id="{game.pk}"] .seat__clock--running')
    expect(listed).to_have_count(1)
    shown = listed.inner_text()
    expect(listed).not_to_have_text(shown)

    # kim's minute is almost gone (the stretch moved back); the pages, opened again, warn.
    stretch_began(game, ago=timedelta(seconds=50))
    open_game(kim_page, game.pk)
    open_game(lee_page, game.pk)
    expect(clock_of(kim_page, 0)).to_contain_text("0:0")
    expect(clock_of(kim_page, 0)).to_have_class(
        "player__clock player__clock--running player__clock--low"
    )
    expect(kim_page.locator("#clock-announce")).to_contain_text("Low time")
    expect(clock_of(lee_page, 0)).to_have_text("0:00.0", timeout=LIVE_WITHIN_MS)

    # The server ends the game on its own, with no move nor request from anyone.
    expect(kim_page.locator("#status")).to_have_text(
        "Game over: lee wins on time.", timeout=LIVE_WITHIN_MS
    )
    expect(lee_page.locator("#status")).to_have_text(
        "Game over: You win on time.", timeout=LIVE_WITHIN_MS
    )
    for page in (kim_page, lee_page):
        expect(clock_of(page, 0)).to_have_text("0:00.0")
        expect(clock_of(page, 0)).to_have_class("player__clock player__clock--out")
        expect(clock_of(page, 1)).to_have_text("1:00")
    assert Game.objects.get(pk=game.pk).outcome["reason"] == "timeout"


LOBBY_POOL = 'button[data-pool="circles:1+0:2:rated"]'


def test_two_players_paired_from_the_lobby_at_1_0_see_their_clocks_and_one_loses_on_time(
    new_page, log_in
):
    """Issue 22's whole path: one player presses the 1+0 pool with the mouse, the other takes
    it on a phone from the keyboard; both land on the game started for both at once, their
    clocks tick, and the one whose minute runs out loses, the server ending the game."""
    UserFactory(username="alice")
    UserFactory(username="bob")
    alice = new_page()
    bob = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    log_in(alice, "alice", PASSWORD)
    log_in(bob, "bob", PASSWORD)
    for page in (alice, bob):
        page.goto("/lobby/")
    alice.locator(LOBBY_POOL).click()
    expect(alice.locator("#lobby-status")).to_contain_text("Waiting for opponents")
    expect(alice.locator(LOBBY_POOL)).to_have_attribute("aria-pressed", "true")
    # Bob sees alice waiting there, live, and takes the same pool from the keyboard.
    expect(bob.locator(LOBBY_POOL).locator("[data-waiting]")).to_have_text("1")
    bob.locator(LOBBY_POOL).focus()
    bob.keyboard.press("Enter")
    game_url = re.compile(r"/games/(\d+)/$")
    for page in (alice, bob):
        expect(page).to_have_url(game_url)
        expect(page.locator("#connection")).to_have_text("Live")
    assert alice.url == bob.url
    game = Game.objects.get(pk=int(game_url.search(alice.url)[1]))
    assert (game.speed, game.clock_initial_ms) == ("live", 60_000)

    # Seats are drawn at random: the first to move plays first, then the other.
    pages = {page.evaluate("window.greyCircleGame.envelope.you"): page for page in (alice, bob)}
    first, second = pages[game.to_move], pages[1 - game.to_move]
    move_first_legal(first)
    expect(
        second.locator(f'#seats [data-seat="{1 - game.to_move}"] .player__first-move')
    ).to_be_visible(timeout=LIVE_WITHIN_MS)
    move_first_legal(second)

    # The first mover's clock runs on both pages, ticking down.
    for page in (alice, bob):
        running = clock_of(page, game.to_move)
        expect(running).to_have_class(
            "player__clock player__clock--running", timeout=LIVE_WITHIN_MS
        )
        shown = running.inner_text()
        expect(running).not_to_have_text(shown)

    # Its minute runs out (the stretch moved back): the server ends the game on its own.
    stretch_began(game, ago=timedelta(seconds=59))
    loser = game.seats.get(index=game.to_move).user.username
    winner = ({"alice", "bob"} - {loser}).pop()
    expect(pages[game.to_move].locator("#status")).to_have_text(
        f"Game over: {winner} wins on time.", timeout=LIVE_WITHIN_MS
    )
    expect(pages[1 - game.to_move].locator("#status")).to_have_text(
        "Game over: You win on time.", timeout=LIVE_WITHIN_MS
    )
    assert Game.objects.get(pk=game.pk).outcome["reason"] == "timeout"


def test_start_a_casual_live_game_against_the_computer_on_a_phone_with_the_keyboard(
    new_page, log_in
):
    UserFactory(username="max")
    page = new_page(viewport={"width": 390, "height": 844}, has_touch=True)
    log_in(page, "max", PASSWORD)
    page.goto("/play/")
    form = page.locator("form[data-kind=circles]")
    days = form.get_by_label("Time per move")
    clock = form.get_by_role("group", name="Time control (minutes + seconds added per turn)")
    minutes = form.get_by_label("Minutes each")

    # Correspondence first; the arrow key chooses a live game, whose presets then show.
    expect(days).to_be_visible()
    expect(clock).to_be_hidden()
    form.get_by_role("radio", name="Correspondence: days per move").focus()
    page.keyboard.press("ArrowDown")
    expect(form.get_by_role("radio", name="Live: a clock for each player")).to_be_checked()
    expect(days).to_be_hidden()
    expect(clock.get_by_role("radio", name="1+0")).to_be_checked()
    expect(minutes).to_be_hidden()
    clock.get_by_role("radio", name="Custom").check()
    expect(minutes).to_be_visible()
    minutes.fill("7")
    form.get_by_label("Seconds added per turn").fill("0")
    form.get_by_role("group", name="Rating").get_by_role("radio", name="Casual").check()
    form.get_by_role("button", name="Start Circles").click()

    expect(page.locator("#connection")).to_have_text("Live")
    expect(clock_of(page, 1)).to_have_text("7:00")
    game = Game.objects.get()
    assert (game.clock_initial_ms, game.rated) == (420_000, False)
