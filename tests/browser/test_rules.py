"""The rules pages in Chromium: every diagram is drawn by its game's renderer, without an error,
on a wide screen and on a phone; the About page and the links to the rules work."""

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

KINDS = {"circles": "Circles", "kingscorner": "King's Corner", "cirkis": "CirKis"}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

# For each figure: whether it was drawn, and the size of the board or table drawn in it.
FIGURES = """() => [...document.querySelectorAll("figure[data-diagram]")].map((figure) => {
  const drawing = figure.querySelector(".rules-figure__drawing");
  const drawn = drawing?.querySelector(".circles-board, .kc, .cirkis-board");
  const box = drawn?.getBoundingClientRect();
  return {
    name: figure.dataset.diagram,
    state: figure.dataset.drawn,
    tag: drawn?.tagName ?? null,
    elements: drawn ? drawn.querySelectorAll("*").length : 0,
    width: box?.width ?? 0,
    height: box?.height ?? 0,
  };
})"""


def console_errors(page: Page) -> list[str]:
    """Collect the page's console errors (its uncaught exceptions fail the test anyway)."""
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def open_rules(page: Page, kind: str) -> list[dict]:
    page.goto(f"/rules/{kind}/")
    expect(page.get_by_role("heading", level=1)).to_have_text(f"How to play {KINDS[kind]}")
    page.wait_for_function(
        """() => [...document.querySelectorAll("figure[data-diagram]")]
                 .every((figure) => figure.dataset.drawn)"""
    )
    return page.evaluate(FIGURES)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_every_diagram_of_a_rules_page_is_drawn_without_an_error(
    new_page: Callable[..., Page], kind: str, device: str
):
    page = new_page(**(PHONE if device == "phone" else {}))
    errors = console_errors(page)

    figures = open_rules(page, kind)

    assert figures
    for figure in figures:
        assert figure["state"] == "true", figure
        assert figure["tag"] is not None, figure
        assert figure["elements"] > 0, figure
        assert figure["width"] > 100, figure
        assert figure["height"] > 100, figure
    assert errors == []
    # Nothing is wider than the screen.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_the_diagrams_are_the_games_own_drawings_and_cannot_be_played(page: Page):
    page.goto("/rules/circles/")
    capture = page.locator('figure[data-diagram="capture-after"]')
    expect(capture.locator(".circles-board")).to_be_visible()
    # The four discs c5 flipped are white and ringed.
    expect(capture.locator(".circles-board__mark")).to_have_count(4)
    expect(capture.locator(".disc--white")).to_have_count(11)
    expect(page.locator('figure[data-diagram="start"] .circles-board__hint--legal')).to_have_count(
        4
    )
    assert capture.locator(".rules-figure__drawing").evaluate("drawing => drawing.inert")

    page.goto("/rules/kingscorner/")
    before = page.locator('figure[data-diagram="pile-before"]')
    expect(before.locator('[data-pile="E"].kc-pile--movable')).to_have_count(1)
    after = page.locator('figure[data-diagram="pile-after"]')
    expect(after.locator('[data-pile="N"] .kc-pile__count')).to_have_text("4 ▾")
    expect(after.locator('[data-pile="E"].kc-pile--empty')).to_have_count(1)
    opened = page.locator('figure[data-diagram="king-pile-after"] [data-pile="N"] .kc-card')
    expect(opened).to_have_count(4)

    page.goto("/rules/cirkis/")
    double = page.locator('figure[data-diagram="score-double"]')
    expect(double.locator(".cirkis-won__shape")).to_have_count(2)
    expect(double.locator(".cirkis-score__points")).to_have_text(["15", "10"])
    expect(double.locator(".cirkis-tray")).to_be_hidden()
    for key in ("big_slice", "wedge", "sliver"):
        piece = page.locator(f'figure[data-diagram="piece-{key}"] .cirkis-board')
        expect(piece).to_have_class("cirkis-board cirkis-board--zoomed")


def test_the_about_page_and_the_links_to_the_rules(page: Page):
    errors = console_errors(page)
    page.goto("/")
    page.get_by_role("link", name="Rules of CirKis").click()
    expect(page).to_have_url("/rules/cirkis/")
    expect(page.get_by_role("heading", level=1)).to_have_text("How to play CirKis")

    page.get_by_role("navigation", name="Rules and information").get_by_role(
        "link", name="About"
    ).click()
    expect(page).to_have_url("/about/")
    expect(page.get_by_role("heading", level=1)).to_have_text("About Grey Circle Games")
    expect(page.get_by_text("EECS 393, Software Engineering")).to_be_visible()
    page.get_by_role("link", name="How to play King's Corner").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("How to play King's Corner")
    assert errors == []
