"""The rules pages (/rules/<kind>/), the About page, and the links to them."""

import json
import re

import pytest

from greycircle.games.services import SeatSpec, game_create

pytestmark = pytest.mark.django_db

KINDS = ("circles", "kingscorner", "cirkis")
FIGURE = re.compile(r'<figure class="rules-figure" data-diagram="([\w-]+)">')
SCRIPT = r'<script id="{}" type="application/json">(.*?)</script>'

# A few phrases of each game's rules that its page must state.
PHRASES = {
    "circles": [
        "How to play Circles",
        "<code>a1</code> is the top-left corner",
        "plays <strong>white</strong> and <strong>moves first</strong>",
        "white on <code>d4</code> and <code>e5</code>,",
        "black on <code>d5</code> and <code>e4</code>",
        "<strong>outflanks</strong>",
        "Discs that were just flipped do not flip anything further",
        "While you have a legal move, you must make one.",
        "neither</strong> player can move",
        "32&ndash;32",
        "Show helpers",
        "Passes are not written",
    ],
    "kingscorner": [
        "How to play King&#x27;s Corner",
        "<strong>Aces are low</strong>",
        "<strong>seven cards</strong>",
        "North&rsquo;s to North-west, East&rsquo;s to North-east, South&rsquo;s to South-east,"
        " West&rsquo;s to South-west",
        "<strong>one rank higher and of the other colour</strong>",
        "Nothing can be played on an ace",
        "<strong>empty corner</strong>",
        "<strong>empty foundation</strong>",
        "Corner piles never move",
        "<strong>take the top card of the stock</strong>",
        "<strong>last card from their hand wins at once</strong>",
        "<td>King</td><td>10</td>",
        "The <strong>lowest</strong> total wins",
        "only the player who drew sees which card it was",
        "<strong>bottom and top card</strong>",
    ],
    "cirkis": [
        "How to play CirKis",
        "<strong>165 fields</strong>: 90 kites, 65 darts",
        "10 thin <strong>Sliver spaces</strong>",
        "<strong>10 Circles</strong>",
        "<strong>6 Stars</strong>",
        "<strong>20 pieces</strong>",
        "Big Slice</td><td>3</td>",
        "Sliver</td><td>1</td>",
        "No piece covers more than two segments of a Star",
        "<strong>at least one field of the Center Star or of the Center Ring</strong>",
        "<strong>touch the Leader</strong>",
        "<strong>first Sliver</strong>",
        "One placement earns at most one free turn",
        "<strong>lose your turn</strong>",
        "scores <strong>10 points</strong>",
        "<strong>5-point bonus</strong>",
        "<strong>40 points or more</strong>",
        "<strong>10-point bonus</strong>",
        "<strong>most pieces left unplayed</strong>",
        "<strong>15 points</strong>",
        "<strong>100 points</strong>",
        "<strong>three scoreless rounds in a row</strong>",
        "Phil E. Orbanes",
    ],
}


def page_json(html: str, script_id: str):
    match = re.search(SCRIPT.format(script_id), html, re.S)
    assert match is not None, f"no #{script_id} in the page"
    return json.loads(match.group(1))


@pytest.mark.parametrize("kind", KINDS)
def test_each_rules_page_states_the_rules_and_holds_a_position_for_every_figure(client, kind):
    response = client.get(f"/rules/{kind}/")

    assert response.status_code == 200
    html = response.content.decode()
    for phrase in PHRASES[kind]:
        assert phrase in html, phrase
    figures = FIGURE.findall(html)
    assert figures, "the page has diagrams"
    assert len(figures) == len(set(figures)), "each figure is drawn once"
    diagrams = page_json(html, "rules-diagrams")
    assert set(figures) == set(diagrams)
    for name in figures:
        envelope = diagrams[name]["envelope"]
        assert envelope["kind"] == kind, name
        assert envelope["state"], name
    # The table of contents links to every section.
    for anchor in re.findall(r'<li><a href="#([\w-]+)">', html):
        assert f'id="{anchor}"' in html, anchor
    # The diagrams are drawn by the kind's own page module, through the import map.
    imports = json.loads(re.search(r'<script type="importmap">(.*?)</script>', html, re.S)[1])
    assert {f"{kind}/page", f"{kind}/rules", "greycircle/rules-diagrams"} <= set(imports["imports"])
    assert f'<script type="module" src="/static/{kind}/rules.js">' in html
    assert f'href="/play/#new-{kind}"' in html


def test_the_cirkis_rules_page_carries_the_board_for_its_renderer(client):
    html = client.get("/rules/cirkis/").content.decode()

    kind_data = page_json(html, "kind-data")
    assert len(kind_data["fields"]) == 165
    assert len(kind_data["pieces"]) == 9


def test_a_rules_page_links_to_the_other_games_rules(client):
    html = client.get("/rules/circles/").content.decode()

    assert 'href="/rules/kingscorner/"' in html
    assert 'href="/rules/cirkis/"' in html
    assert 'href="/about/"' in html


def test_an_unknown_game_has_no_rules_page(client):
    assert client.get("/rules/chess/").status_code == 404


def test_a_game_without_a_rules_template_has_no_rules_page(client, tictactoe):
    assert client.get("/rules/tictactoe/").status_code == 404
    # Nor a link to one.
    html = client.get("/").content.decode()
    assert 'href="/rules/tictactoe/"' not in html


def test_the_about_page_says_what_the_site_is_credits_the_original_and_lists_its_cookies(client):
    response = client.get("/about/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "About Grey Circle Games" in html
    assert "EECS 393, Software Engineering, at Case Western Reserve University" in html
    for name in (
        "George Hodulik",
        "Kirtan Patel",
        "Thomas Pech",
        "Sarah Whelan",
        "Molly Henderson",
    ):
        assert name in html
    assert "https://github.com/SWhelan/greycirclegames" in html
    assert "Phil E. Orbanes" in html
    for kind in KINDS:
        assert f'href="/rules/{kind}/"' in html
    for cookie in ("sessionid", "csrftoken", "messages"):
        assert f"<code>{cookie}</code>" in html
    assert "no cookies for tracking" in html


def test_the_cookie_notice_names_the_cookies_the_site_sets(settings):
    """The About page names the session, CSRF and messages cookies: keep them in step."""
    assert settings.SESSION_COOKIE_NAME == "sessionid"
    assert settings.CSRF_COOKIE_NAME == "csrftoken"
    assert getattr(settings, "MESSAGE_STORAGE", None) in (
        None,
        "django.contrib.messages.storage.fallback.FallbackStorage",
        "django.contrib.messages.storage.cookie.CookieStorage",
    )


def test_every_page_links_to_the_rules_and_the_about_page_in_its_footer(client):
    html = client.get("/about/").content.decode()
    footer = html[html.index('<footer class="site-footer">') :]

    for kind in KINDS:
        assert f'href="/rules/{kind}/"' in footer
    assert 'href="/about/"' in footer


def test_the_home_page_game_cards_link_to_the_rules_and_to_play(client):
    html = client.get("/").content.decode()

    cards = html[html.index('<ul class="game-cards">') :]
    for kind in KINDS:
        assert f'<a href="/rules/{kind}/"' in cards
        assert f'href="/play/#new-{kind}"' in cards
    assert cards.count(">Play now</a>") == len(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_the_game_page_links_to_the_games_rules(client, alice, kind):
    game = game_create(creator=alice, kind=kind, opponents=[SeatSpec(ai_level="easy")])
    client.force_login(alice)

    html = client.get(f"/games/{game.pk}/").content.decode()

    assert f'<a href="/rules/{kind}/"' in html
