"""The home page, for visitors and for signed-in players."""

import json
import re
from collections.abc import Iterator

import pytest

from accounts import guests
from greycircle.games import registry
from greycircle.games.models import Game
from greycircle.games.services import SeatSpec, game_create
from tests.factories import game_started, let_anyone_invite
from tests.frontend.test_forms import OPTIONTOE

pytestmark = pytest.mark.django_db


def game_items(html: str) -> list[str]:
    return re.findall(r'<li class="game-list__item".*?</ul>\s*</li>', html, flags=re.S)


def test_home_for_a_visitor_introduces_the_games_and_offers_sign_up(client):
    response = client.get("/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "<title>Grey Circle Games</title>" in html
    for title in ("Circles", "King&rsquo;s Corner", "CirKis"):
        assert f'<h3 class="game-card__title">{title}</h3>' in html
    assert "Othello variant" in html
    assert "Penrose" in html
    assert 'href="/accounts/signup/"' in html
    assert 'href="/accounts/login/"' in html
    assert "Your games" not in html
    assert 'action="/accounts/logout/"' not in html
    assert 'href="/settings/"' not in html


def test_home_for_a_player_without_games(client, alice):
    client.force_login(alice)

    response = client.get("/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "Hello, alice" in html
    assert "Your games" in html
    assert "You have no games yet." in html
    assert all(entry["games"] == [] for entry in response.context["lists"])
    assert 'href="/settings/"' in html
    assert 'action="/accounts/logout/"' in html
    assert 'href="/accounts/signup/"' not in html


@pytest.mark.usefixtures("tictactoe")
def test_home_lists_the_players_games_with_status_and_seats(client, alice, bob, carol):
    playing = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    waiting = game_started(creator=bob, kind="tictactoe", opponents=[SeatSpec()])
    not_hers = game_started(creator=bob, kind="tictactoe", opponents=[SeatSpec(user=carol)])
    client.force_login(alice)

    response = client.get("/")

    lists = {entry["key"]: entry["games"] for entry in response.context["lists"]}
    assert [game["id"] for game in lists["my_turn"]] == [playing.pk]
    assert lists["their_turn"] == lists["finished"] == []
    html = response.content.decode()
    [item] = game_items(html)
    assert f'data-game-id="{playing.pk}"' in item
    assert "Tic-tac-toe" in item
    assert "In play" in item
    assert "Your turn" in item  # alice holds seat 0, which moves first
    assert re.search(r'<li class="seat seat--you">alice</li>\s*<li class="seat">bob</li>', item)
    assert f'data-game-id="{waiting.pk}"' not in html
    assert f'data-game-id="{not_hers.pk}"' not in html


@pytest.mark.usefixtures("tictactoe")
def test_home_shows_open_seats_and_whose_turn_it_is(client, alice, bob):
    playing = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    waiting = game_started(creator=bob, kind="tictactoe", opponents=[SeatSpec()])
    client.force_login(bob)

    html = client.get("/").content.decode()

    items = {
        int(re.search(r'data-game-id="(\d+)"', item).group(1)): item for item in game_items(html)
    }
    assert set(items) == {playing.pk, waiting.pk}
    assert "Your turn" not in items[playing.pk]  # alice is to move
    assert "Waiting for players" in items[waiting.pk]
    assert '<li class="seat seat--open">Open seat</li>' in items[waiting.pk]


def test_home_shows_the_kind_of_a_game_whose_app_is_not_registered(client, alice):
    from greycircle.games.models import Game, Seat

    game = Game.objects.create(kind="retired", status="finished", created_by=alice)
    Seat.objects.create(game=game, index=0, user=alice)
    client.force_login(alice)

    [item] = game_items(client.get("/").content.decode())
    assert "retired" in item
    assert "Finished" in item


def test_play_needs_a_login(client):
    response = client.get("/play/")
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/")


def test_play_offers_a_form_per_kind_with_its_computer_levels(client, alice):
    client.force_login(alice)
    html = client.get("/play/").content.decode()
    for kind in ("circles", "kingscorner", "cirkis"):
        assert f'data-kind="{kind}"' in html
    assert 'value="ai:hard"' in html
    assert 'value="ai:normal"' in html


def test_starting_a_game_from_the_form_opens_its_page(client, alice, bob):
    let_anyone_invite(bob)
    client.force_login(alice)
    response = client.post(
        "/play/", {"kind": "circles", "circles-seat_1": "user", "circles-username_1": "BOB"}
    )
    assert response.status_code == 302
    game = Game.objects.get()
    assert response.url == f"/games/{game.pk}/"
    assert [seat.user for seat in game.seats.all()] == [alice, bob]
    # bob is invited: the game waits for his answer.
    assert game.status == "open"
    assert list(game.invitations.values_list("invitee", "status")) == [(bob.pk, "pending")]


def test_the_form_chooses_what_a_declined_invitation_does(client, alice, bob):
    let_anyone_invite(bob)
    client.force_login(alice)
    html = play_form(client.get("/play/").content.decode(), "circles")
    assert re.search(
        r'<div class="new-game__on-decline" data-on-decline>.*?"circles-on_decline"', html, re.S
    )
    assert '<option value="cancel" selected>Cancel the game</option>' in html

    response = client.post(
        "/play/",
        {
            "kind": "circles",
            "circles-seat_1": "user",
            "circles-username_1": "bob",
            "circles-on_decline": "open_seat",
        },
    )

    assert response.status_code == 302
    assert list(Game.objects.get().invitations.values_list("on_decline", flat=True)) == [
        "open_seat"
    ]


def test_inviting_a_stranger_from_the_form_is_a_form_error(client, alice, bob):
    client.force_login(alice)
    response = client.post(
        "/play/", {"kind": "circles", "circles-seat_1": "user", "circles-username_1": "bob"}
    )
    assert response.status_code == 200
    assert "bob only accepts invitations from friends." in response.content.decode()
    assert not Game.objects.exists()


def test_an_unknown_friend_is_a_form_error(client, alice):
    client.force_login(alice)
    response = client.post(
        "/play/", {"kind": "circles", "circles-seat_1": "user", "circles-username_1": "nobody"}
    )
    assert response.status_code == 200
    assert "No player is called &#x27;nobody&#x27;." in response.content.decode()
    assert not Game.objects.exists()


def test_open_games_can_be_joined_from_the_lobby(client, alice, bob):
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec()])
    client.force_login(bob)
    assert f'action="/games/{game.pk}/join/"' in client.get("/play/").content.decode()
    response = client.post(f"/games/{game.pk}/join/")
    assert response.url == f"/games/{game.pk}/"
    again = client.post(f"/games/{game.pk}/join/", follow=True)
    assert "This game is not waiting for players." in again.content.decode()


def test_the_game_page_carries_the_viewers_envelope(client, alice, bob):
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    client.force_login(bob)
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    envelope = json.loads(
        re.search(
            r'<script id="initial-envelope" type="application/json">(.*?)</script>',
            response.content.decode(),
            flags=re.S,
        ).group(1)
    )
    assert envelope["you"] == 1
    assert envelope["legal_moves"] == []
    assert "csrftoken" in response.cookies
    assert client.get("/games/999999/").status_code == 404


def test_the_game_page_has_a_remind_button_for_the_script_to_show(client, alice, bob):
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    client.force_login(bob)
    html = client.get(f"/games/{game.pk}/").content.decode()
    # Hidden until the script sees from the envelope that another person is to move.
    assert re.search(
        r'<button class="button button--small" id="remind" type="button" hidden>'
        r"Remind</button>",
        html,
    )


def test_the_invitees_game_page_carries_the_invitation_and_the_answer_buttons(client, alice, bob):
    let_anyone_invite(bob)
    game = game_create(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    client.force_login(bob)
    response = client.get(f"/games/{game.pk}/")
    envelope = response.context["envelope"]
    assert (envelope["status"], envelope["you"]) == ("open", 1)
    assert [(i["seat"], i["user"], i["status"]) for i in envelope["invitations"]] == [
        (1, "bob", "pending")
    ]
    html = response.content.decode()
    # Hidden until the script sees the viewer's pending invitation in the envelope.
    assert 'id="accept" type="button" hidden>Accept</button>' in html
    assert 'id="decline" type="button" hidden>Decline</button>' in html


def test_each_game_card_comes_from_its_app_and_a_kind_without_one_gets_a_plain_card(
    client, tictactoe
):
    response = client.get("/")

    html = response.content.decode()
    templates = {template.name for template in response.templates}
    assert {"circles/card.html", "kingscorner/card.html", "cirkis/card.html"} <= templates
    cards = re.findall(r'<li class="game-card game-card--(\w+)">(.*?)</li>', html, flags=re.S)
    by_kind = dict(cards)
    assert set(by_kind) == {"circles", "cirkis", "kingscorner", "tictactoe"}
    assert "Penrose" in by_kind["cirkis"]
    assert '<h3 class="game-card__title">Tic-tac-toe</h3>' in by_kind["tictactoe"]
    assert '<p class="game-card__players">2 players</p>' in by_kind["tictactoe"]


def play_form(html: str, kind: str) -> str:
    return re.search(rf'<form class="card new-game"[^>]*data-kind="{kind}".*?</form>', html, re.S)[
        0
    ]


@pytest.fixture
def optiontoe() -> Iterator[registry.GameKind]:
    registry.register(OPTIONTOE)
    yield OPTIONTOE
    registry.unregister(OPTIONTOE.kind)


def test_play_shows_the_cirkis_options_from_its_serializer(client, alice):
    client.force_login(alice)
    html = client.get("/play/").content.decode()

    cirkis = play_form(html, "cirkis")
    assert "<legend>Options</legend>" in cirkis
    for name, label, help_text in [
        ("center_ring", "Center Ring", "Center Ring scoring: covering the last"),
        ("long_game", "Long game (to 100)", "The long game: rounds to 40"),
    ]:
        assert re.search(
            rf'<input type="checkbox" name="cirkis-option_{name}"[^>]*id="id_cirkis-option_{name}"',
            cirkis,
        )
        assert (
            f'<label class="field__label" for="id_cirkis-option_{name}">{label}</label>' in cirkis
        )
        assert help_text in cirkis
    for kind in ("circles", "kingscorner"):
        assert "Options" not in play_form(html, kind)


@pytest.mark.parametrize(
    ("ticked", "options"),
    [
        ({"cirkis-option_center_ring": "on", "cirkis-option_long_game": "on"}, (True, True)),
        ({"cirkis-option_long_game": "on"}, (False, True)),
        ({}, (False, False)),
    ],
)
def test_a_cirkis_game_started_from_the_form_has_the_options_ticked(client, alice, ticked, options):
    client.force_login(alice)
    response = client.post(
        "/play/",
        {"kind": "cirkis", "cirkis-seat_1": "ai:easy", "cirkis-seat_2": "ai:easy", **ticked},
    )

    game = Game.objects.get()
    assert response.status_code == 302
    assert response.url == f"/games/{game.pk}/"
    assert game.options == dict(zip(("center_ring", "long_game"), options, strict=True))
    state = registry.get("cirkis").rules.decode(game.state)
    assert (state.center_ring, state.long_game) == options


def test_kings_corner_from_the_form_seats_six(client, alice, bob):
    let_anyone_invite(bob)
    client.force_login(alice)
    html = client.get("/play/").content.decode()
    assert 'name="kingscorner-seat_5"' in play_form(html, "kingscorner")
    assert 'name="kingscorner-seat_6"' not in html

    response = client.post(
        "/play/",
        {
            "kind": "kingscorner",
            **{f"kingscorner-seat_{index}": "ai:easy" for index in range(1, 5)},
            "kingscorner-seat_5": "user",
            "kingscorner-username_5": "bob",
        },
    )

    game = Game.objects.get()
    assert response.url == f"/games/{game.pk}/"
    seats = list(game.seats.all())
    assert len(seats) == 6
    assert seats[5].user == bob


def test_a_bad_option_value_is_refused_on_the_form(client, alice, optiontoe):
    client.force_login(alice)
    response = client.post(
        "/play/",
        {"kind": "optiontoe", "optiontoe-seat_1": "ai:first", "optiontoe-option_size": "4"},
    )

    assert response.status_code == 200
    form = play_form(response.content.decode(), "optiontoe")
    assert re.search(r'<div class="field field--invalid">\s*<label[^>]*>Size</label>', form)
    assert "Four is not offered." in form
    assert not Game.objects.exists()


def test_options_the_engine_refuses_are_refused_on_the_form(client, alice, optiontoe):
    client.force_login(alice)
    response = client.post(
        "/play/",
        {
            "kind": "optiontoe",
            "optiontoe-seat_1": "ai:first",
            "optiontoe-option_size": "5",
            "optiontoe-option_speed": "fast",
        },
    )

    assert response.status_code == 200
    form = play_form(response.content.decode(), "optiontoe")
    assert (
        '<div class="message message--error" role="alert">A big board cannot be fast.</div>' in form
    )
    assert 'value="5"' in form  # what was posted stays on the form
    assert not Game.objects.exists()


def test_a_username_typed_for_a_computer_seat_is_refused(client, alice, bob):
    client.force_login(alice)
    response = client.post(
        "/play/", {"kind": "circles", "circles-seat_1": "ai:easy", "circles-username_1": "bob"}
    )

    assert response.status_code == 200
    form = play_form(response.content.decode(), "circles")
    assert (
        "Seat 2 is “Computer (easy)”, which takes no username: choose “A friend” to invite bob, "
        "or clear the name." in form
    )
    assert not Game.objects.exists()


def test_the_username_box_is_marked_for_the_script_that_hides_it(client, alice):
    client.force_login(alice)
    html = client.get("/play/").content.decode()

    circles = play_form(html, "circles")
    assert re.search(
        r'<div class="new-game__seat" data-seat>.*?<select name="circles-seat_1"', circles, re.S
    )
    assert '<div class="field field--friend" data-friend>' in circles
    assert 'chooser.value === "user"' in html


# --- open tables on the game page -------------------------------------------------------------


def join_form(html: str) -> str:
    return re.search(r'<form [^>]*id="join-form"[^>]*>', html).group(0)


def test_an_open_tables_page_offers_a_join_button_to_whoever_opens_its_link(client, alice, bob):
    table = game_started(creator=alice, kind="circles", opponents=[SeatSpec()], unlisted=True)

    client.force_login(bob)
    html = client.get(f"/games/{table.pk}/?key={table.link_key}").content.decode()
    form = join_form(html)
    assert f'action="/games/{table.pk}/join/"' in form
    assert "hidden" not in form
    assert f'<input type="hidden" name="key" value="{table.link_key}">' in html
    assert 'id="withdraw"' in html
    assert client.get(f"/games/{table.pk}/").status_code == 404  # the id alone is not its link
    response = client.post(f"/games/{table.pk}/join/", {"key": table.link_key})
    assert response.url == f"/games/{table.pk}/"
    assert Game.objects.get(pk=table.pk).status == "active"


def test_an_unlisted_games_players_see_its_link_to_pass_on(client, alice, bob):
    table = game_started(creator=alice, kind="circles", opponents=[SeatSpec()], unlisted=True)
    client.force_login(alice)
    html = client.get(f"/games/{table.pk}/").content.decode()
    assert f'value="http://testserver/games/{table.pk}/?key={table.link_key}"' in html
    assert "hidden" in join_form(html)

    listed = game_started(creator=alice, kind="circles", opponents=[SeatSpec()])
    assert 'id="share-link"' not in client.get(f"/games/{listed.pk}/").content.decode()


def test_joining_from_the_game_page_opens_the_game_or_says_why_not(client, alice, bob, carol):
    table = game_started(creator=alice, kind="circles", opponents=[SeatSpec()])
    client.force_login(bob)
    response = client.post(f"/games/{table.pk}/join/")
    assert response.url == f"/games/{table.pk}/"
    assert Game.objects.get(pk=table.pk).status == "active"

    client.force_login(carol)
    refused = client.post(f"/games/{table.pk}/join/")
    assert refused.url == f"/games/{table.pk}/"
    page = client.get(refused.url).content.decode()
    assert "This game is not waiting for players." in page
    assert "hidden" in join_form(page)
    assert client.post("/games/999999/join/").url == "/play/"


def test_the_play_form_starts_an_unlisted_table(client, alice, bob):
    client.force_login(alice)
    assert 'name="unlisted"' in client.get("/play/").content.decode()
    response = client.post(
        "/play/", {"kind": "circles", "circles-seat_1": "open", "unlisted": "on"}
    )
    game = Game.objects.get()
    assert response.url == f"/games/{game.pk}/"
    assert game.unlisted
    client.force_login(bob)
    assert f'data-game-id="{game.pk}"' not in client.get("/play/").content.decode()


# --- my games -----------------------------------------------------------------------------


def list_ids(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'class="game-list__item" data-game-id="(\d+)"', html)]


@pytest.mark.usefixtures("tictactoe")
def test_my_games_shows_one_list_at_a_time_newest_first_by_pages(client, alice, bob):
    mine = [
        game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)]).pk
        for _ in range(22)
    ]
    theirs = game_started(creator=bob, kind="tictactoe", opponents=[SeatSpec(user=alice)])
    client.force_login(alice)

    first = client.get("/games/").content.decode()
    assert list_ids(first) == mine[::-1][:20]
    assert 'href="?list=my_turn&amp;page=2"' in first
    assert list_ids(client.get("/games/?list=my_turn&page=2").content.decode()) == mine[1::-1]
    assert list_ids(client.get("/games/?list=their_turn").content.decode()) == [theirs.pk]
    assert "No games here." in client.get("/games/?list=finished").content.decode()
    assert client.get("/games/?list=everything").status_code == 404
    assert client.get("/games/?page=last").status_code == 200


@pytest.mark.usefixtures("tictactoe")
def test_home_shows_the_first_few_of_each_list_and_links_to_the_rest(
    client, alice, bob, django_assert_max_num_queries
):
    from frontend.views import HOME_LIST_LIMIT

    mine = [
        game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)]).pk
        for _ in range(HOME_LIST_LIMIT + 1)
    ]
    waiting = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec()])
    client.force_login(alice)

    with django_assert_max_num_queries(10):  # session, user, then two per list
        html = client.get("/").content.decode()

    assert list_ids(html) == [*mine[::-1][:HOME_LIST_LIMIT], waiting.pk]
    assert 'href="/games/?list=my_turn"' in html
    assert 'href="/games/?list=their_turn"' not in html  # all of it is shown
    assert 'href="/games/"' in html
    assert 'href="/watch/"' in html


def test_my_games_and_watch_need_a_login(client):
    assert client.get("/games/").url.startswith("/accounts/login/")
    assert client.get("/watch/").url.startswith("/accounts/login/")


# --- watching -----------------------------------------------------------------------------


@pytest.mark.usefixtures("tictactoe")
def test_watch_lists_live_games_between_people_but_never_unlisted_ones(client, alice, bob, carol):
    live = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    hidden = game_started(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)], unlisted=True
    )
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])
    client.force_login(carol)

    html = client.get("/watch/").content.decode()

    assert list_ids(html) == [live.pk]
    assert f'href="/games/{live.pk}/"' in html
    assert client.get(f"/games/{hidden.pk}/?key={hidden.link_key}").status_code == 200  # its link
    assert client.get(f"/games/{hidden.pk}/").status_code == 404


# --- navigation -----------------------------------------------------------------------------


def nav_links(html: str) -> dict[str, str]:
    """The main navigation's links: text -> the whole <a> tag (to check href and aria-current)."""
    nav = re.search(r'<nav class="site-nav" aria-label="Main">.*?</nav>', html, flags=re.S)
    assert nav, html
    return {
        text.strip(): tag
        for tag, text in re.findall(r"(<a [^>]*>)([^<]*)", nav.group(0))
        if text.strip()
    }


def test_the_navigation_links_to_the_leaderboards_for_everyone(client, alice):
    first = registry.all_kinds()[0].kind
    links = nav_links(client.get("/").content.decode())
    assert f'href="/leaderboard/{first}/"' in links["Leaderboards"]
    assert "Profile" not in links

    client.force_login(alice)
    links = nav_links(client.get("/").content.decode())
    assert f'href="/leaderboard/{first}/"' in links["Leaderboards"]
    assert "aria-current" not in links["Leaderboards"]
    # Every kind's leaderboard marks the link as the page the player is on.
    for game_kind in registry.all_kinds():
        page = client.get(f"/leaderboard/{game_kind.kind}/").content.decode()
        assert 'aria-current="page"' in nav_links(page)["Leaderboards"]


def test_the_navigation_links_to_the_signed_in_players_profile(client, alice, bob):
    client.force_login(alice)

    links = nav_links(client.get("/").content.decode())

    assert 'href="/u/alice/"' in links["Profile"]
    assert "aria-current" not in links["Profile"]
    assert client.get("/u/alice/").status_code == 200
    # Current on the player's own profile, not on somebody else's.
    assert 'aria-current="page"' in nav_links(client.get("/u/alice/").content.decode())["Profile"]
    assert "aria-current" not in nav_links(client.get("/u/bob/").content.decode())["Profile"]
    # The short label keeps the navigation narrow on a phone, whatever the name's length.
    assert list(links)[-2:] == ["Profile", "Settings"]


# --- guests ---------------------------------------------------------------------------------


def test_a_guests_play_page_offers_no_friends_seat_and_says_what_an_account_gives(client, bob):
    client.force_login(guests.guest_create())

    response = client.get("/play/?invite=bob")

    html = response.content.decode()
    assert 'value="user"' not in html
    assert "friend's username" not in html
    assert "If an invitation is declined" not in html
    assert "invite-hint" not in html
    assert "you cannot invite players." in html
    assert 'href="/account/upgrade/">Create an account</a> to keep your games' in html
    assert 'value="open"' in html  # what a guest can do stays

    client.force_login(bob)
    html = client.get("/play/").content.decode()
    assert "you cannot invite players." not in html
    assert 'value="user"' in html
