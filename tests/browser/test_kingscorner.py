"""King's Corner in Chromium: two computers by drag and by clicks, pile moves, the end, a phone.

The first tests play the real, random deal: they read the legal moves the server sent to the page
(window.greyCircleGame.envelope.legal_moves) and make them through the table, as a player would.
"""

import json
import re

import pytest
from playwright.sync_api import Locator, Page, expect

from greycircle.games.models import Game
from kingscorner.rules import RULES, GameState, position
from tests.browser.pages import (
    COMPUTER_TURNS_MS,
    LIVE_WITHIN_MS,
    game_start,
    invitation_accept,
    move_list_current,
)
from tests.factories import PASSWORD, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MAX_TURNS = 15
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
# Cards in the fan overlap and lean: press a card on its visible corner, where its rank and suit
# are (a point of the card's bounding box that the card itself covers at any angle of the fan).
CARD_CORNER = {"x": 20, "y": 24}


def card_text(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + SUITS[card[1]]


def envelope(page: Page) -> dict:
    return page.evaluate("window.greyCircleGame.envelope")


def hand_card(page: Page, card: str) -> Locator:
    return page.locator(f'.kc-fan__card[data-card="{card}"]')


def pile(page: Page, name: str) -> Locator:
    return page.locator(f'.kc-pile[data-pile="{name}"]')


def pile_cards(page: Page, name: str) -> Locator:
    return pile(page, name).locator(".kc-pile__cards")


def log(page: Page) -> Locator:
    return page.locator(".move-list li")


def start_against_two_easy_computers(page: Page) -> None:
    game_start(page, kind="kingscorner", title="King's Corner", opponents=["ai:easy", "ai:easy"])
    expect(page.locator(".kc-table")).to_be_visible()


def end_turn_and_wait_for_the_computers(page: Page) -> None:
    """End the turn; both computers' turns arrive live and it is your turn again."""
    entries = move_list_current(page)
    page.get_by_role("button", name=re.compile(r"^End turn")).click()
    expect(log(page).nth(entries)).to_have_text(
        re.compile(r"^You (drew (10|[2-9AJQK])[♣♦♥♠]|ended the turn)$")
    )
    expect(log(page).last).to_have_text(
        re.compile(r"^Computer \(easy\) #3 (drew a card|ended the turn)$"),
        timeout=COMPUTER_TURNS_MS,
    )
    expect(page.locator("#status")).to_have_text("Your turn.")
    # What you drew is still told when your turn comes back, however quick the computers were.
    yours = log(page).nth(entries).inner_text()
    drew = f"{yours}. " if yours.startswith("You drew") else ""
    expect(page.locator("#notice")).to_have_text(f"{drew}It's your turn.")
    move_list_current(page)
    seats_who_acted = {text.split(" ", 3)[2] for text in log(page).all_inner_texts()[entries + 1 :]}
    assert seats_who_acted == {"#2", "#3"}, "both computers took their turns"


def deal(game: Game, state: GameState) -> None:
    """Put a game that has no moves yet at a hand-built position (the deal is otherwise secret)."""
    Game.objects.filter(pk=game.pk).update(state=RULES.encode(state), to_move=RULES.to_move(state))


def test_sign_up_and_play_two_easy_computers_by_drag_and_by_clicks(page: Page, sign_up):
    sign_up(page, "kim")
    start_against_two_easy_computers(page)

    status = page.locator("#status")
    expect(status).to_have_text("Your turn.")
    expect(page.locator(".kc-fan__card")).to_have_count(7)
    expect(page.locator(".kc-opponent")).to_have_count(2)
    expect(page.locator(".kc-opponent").first).to_contain_text("Computer (easy) #2")
    expect(page.locator(".kc-opponent").first).to_contain_text("7 cards")
    expect(page.locator(".player__score")).to_have_text(["7 cards", "7 cards", "7 cards"])
    expect(page.locator(".kc-stock__count")).to_have_text("27")
    # The players list names the computers as the log does; a person's name leads to the profile.
    players = page.locator("#seats .player__name")
    expect(players).to_have_text(["kim (you)", "Computer (easy) #2", "Computer (easy) #3"])
    expect(page.locator("#seats a")).to_have_count(1)
    expect(players.first.get_by_role("link", name="kim")).to_have_attribute("href", "/u/kim/")

    ways = ["drag", "click"]
    for _ in range(MAX_TURNS):
        if not ways:
            break
        expect(status).to_have_text("Your turn.")
        legal = envelope(page)["legal_moves"]
        plays = [move for move in legal if move["action"] == "play"]
        playable = {move["card"] for move in plays}
        expect(page.locator(".kc-card--playable")).to_have_count(len(playable))
        if not plays:
            end_turn_and_wait_for_the_computers(page)
            continue
        card, target = plays[0]["card"], plays[0]["to"]
        expect(hand_card(page, card)).to_have_class(re.compile(r"\bkc-card--playable\b"))
        entries = move_list_current(page)
        if ways.pop(0) == "drag":
            hand_card(page, card).drag_to(pile_cards(page, target), source_position=CARD_CORNER)
        else:
            hand_card(page, card).click(position=CARD_CORNER)
            expect(hand_card(page, card)).to_have_attribute("aria-pressed", "true")
            accepting = {move["to"] for move in plays if move["card"] == card}
            expect(page.locator(".kc-pile--target")).to_have_count(len(accepting))
            expect(pile(page, target)).to_have_class(re.compile(r"\bkc-pile--target\b"))
            pile_cards(page, target).click()
        expect(log(page).nth(entries)).to_have_text(f"You played {card_text(card)} on {target}")
        expect(hand_card(page, card)).to_have_count(0)
        expect(pile(page, target).locator(".kc-card").last).to_have_attribute("data-card", card)
    assert not ways, "a card was played by drag and one by clicks"

    end_turn_and_wait_for_the_computers(page)


def test_pile_moves_and_the_end_show_every_hand_to_both_players(new_page, log_in):
    UserFactory(username="ana")
    UserFactory(username="ben", accept_invitations_from_anyone=True)
    ana_page, ben_page = new_page(), new_page()
    log_in(ana_page, "ana", PASSWORD)
    log_in(ben_page, "ben", PASSWORD)
    game_start(ana_page, kind="kingscorner", title="King's Corner", opponents=["user:ben"])
    invitation_accept(ben_page, ana_page.url)
    expect(ana_page.locator(".kc-table")).to_be_visible()
    game = Game.objects.get(pk=int(ana_page.url.rstrip("/").rsplit("/", 1)[1]))
    deal(
        game,
        position(
            hands=[["4C", "8S"], ["2C", "KD", "8H"]],
            piles={"N": ["6C", "5D"], "E": ["QS", "JH"], "S": ["TC"], "W": ["9H"], "NE": ["KH"]},
            stock=["2H", "3H", "4D"],
        ),
    )
    ana_page.reload()
    ben_page.goto(ana_page.url)
    expect(ana_page.locator("#connection")).to_have_text("Live")
    expect(ben_page.locator("#connection")).to_have_text("Live")
    expect(ben_page.locator("#status")).to_have_text("ana's turn.")
    expect(ben_page.locator(".kc-fan__card")).to_have_count(3)
    for hidden in ("4C", "8S", "2H", "3H", "4D"):
        expect(ben_page.locator(f'[data-card="{hidden}"]')).to_have_count(0)
        assert f'"{hidden}"' not in json.dumps(envelope(ben_page))

    # A whole pile by click-then-click: W (9♥ at the bottom) onto S (10♣).
    expect(pile(ana_page, "W")).to_have_class(re.compile(r"\bkc-pile--movable\b"))
    pile_cards(ana_page, "W").click()
    expect(pile(ana_page, "S")).to_have_class(re.compile(r"\bkc-pile--target\b"))
    pile_cards(ana_page, "S").click()
    expect(log(ana_page).first).to_have_text("You moved W onto S")
    expect(log(ben_page).first).to_have_text("ana moved W onto S", timeout=LIVE_WITHIN_MS)
    expect(pile(ben_page, "W")).to_have_class(re.compile(r"\bkc-pile--empty\b"))

    # Another by drag: E (Q♠ at the bottom) onto NE (K♥).
    pile_cards(ana_page, "E").drag_to(pile_cards(ana_page, "NE"))
    expect(log(ana_page).nth(1)).to_have_text("You moved E onto NE")
    expect(pile(ana_page, "NE").locator(".kc-pile__count")).to_have_text("3 ▾")
    pile(ana_page, "NE").locator(".kc-pile__count").click()
    expect(pile(ana_page, "NE").locator(".kc-card")).to_have_count(3)
    expect(pile(ana_page, "NE").locator(".kc-pile__count")).to_have_attribute(
        "aria-expanded", "true"
    )

    # A card the server refuses says why; then the last two cards go out.
    hand_card(ana_page, "4C").click(position=CARD_CORNER)
    pile_cards(ana_page, "S").click()
    expect(ana_page.locator("#notice")).to_have_text(
        re.compile(r"4C is not one rank lower than 9H")
    )
    hand_card(ana_page, "8S").drag_to(pile_cards(ana_page, "S"), source_position=CARD_CORNER)
    expect(log(ana_page).nth(2)).to_have_text("You played 8♠ on S")
    hand_card(ana_page, "4C").click(position=CARD_CORNER)
    pile_cards(ana_page, "N").click()

    expect(ana_page.locator("#status")).to_have_text("Game over: You win by going out.")
    expect(ana_page.locator("#notice")).to_have_text("You played your last card and won!")
    expect(ben_page.locator("#status")).to_have_text(
        "Game over: ana wins by going out.", timeout=LIVE_WITHIN_MS
    )
    for viewer in (ana_page, ben_page):
        final = viewer.locator(".kc-final__seat")
        expect(final).to_have_count(2)
        expect(final.nth(0)).to_contain_text("Winner")
        expect(final.nth(0)).to_contain_text("0 penalty points")
        expect(final.nth(0)).to_contain_text("Went out")
        expect(final.nth(1)).to_contain_text("12 penalty points")
        expect(final.nth(1).locator(".kc-card")).to_have_count(3)
        expect(viewer.locator(".player__score")).to_have_text(["0 pts", "12 pts"])
        expect(viewer.get_by_role("button", name=re.compile(r"^End turn"))).to_have_count(0)
        for stock in ("2H", "3H", "4D"):
            assert f'"{stock}"' not in json.dumps(envelope(viewer)), "the stock stays hidden"


def test_a_phone_plays_by_touch_without_sideways_scrolling(new_page, log_in):
    UserFactory(username="pia")
    page = new_page(viewport={"width": 375, "height": 812}, has_touch=True, is_mobile=True)
    log_in(page, "pia", PASSWORD)
    start_against_two_easy_computers(page)
    expect(page.locator("#status")).to_have_text("Your turn.")

    def no_sideways_scrolling() -> None:
        assert page.evaluate("document.documentElement.scrollWidth") <= 375

    no_sideways_scrolling()
    first = page.locator(".kc-fan__card").first
    first.tap(position=CARD_CORNER)
    expect(first).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".kc-hint")).to_contain_text("selected: now choose a pile")
    no_sideways_scrolling()
    first.tap(position=CARD_CORNER)
    expect(first).to_have_attribute("aria-pressed", "false")

    for name in ("N", "E", "S", "W"):
        count = pile(page, name).locator(".kc-pile__count")
        if count.count():
            count.tap()
            expect(count).to_have_attribute("aria-expanded", "true")
    no_sideways_scrolling()
    box = page.locator(".kc-table").bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 375
