"""The replay page (`/games/<id>/replay/`), its links, and importing a record into a new game."""

from __future__ import annotations

import json
import re

import pytest

from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec, game_create

pytestmark = pytest.mark.django_db

WIPE_OUT = "e3d3c2f2e2f3c5d2g2"


@pytest.fixture
def finished(alice) -> Game:
    game = game_create(
        creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")], record=WIPE_OUT
    )
    assert game.status == GameStatus.FINISHED
    return game


def json_script(html: str, element_id: str):
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html)
    assert match is not None, element_id
    return json.loads(match.group(1))


def test_the_replay_page_holds_the_replay_and_loads_the_kinds_renderer(client, alice, finished):
    client.force_login(alice)

    response = client.get(f"/games/{finished.pk}/replay/")

    assert response.status_code == 200
    html = response.content.decode()
    replay = json_script(html, "replay-data")
    assert replay["id"] == finished.pk
    assert replay["you"] == 0
    assert len(replay["steps"]) == 10
    assert json_script(html, "replay-settings") == {
        "analysis": True,
        "may_analyse": True,
        "records": True,
    }
    imports = json.loads(re.search(r'<script type="importmap">(.*?)</script>', html, re.S)[1])
    assert {"greycircle/replay", "circles/page"} <= set(imports["imports"])
    assert 'src="/static/frontend/js/replay.js"' in html
    assert f'href="/games/{finished.pk}/"' in html
    for control in ('id="first"', 'id="back"', 'id="forward"', 'id="last"', 'type="range"'):
        assert control in html
    # "Study from here" posts the record up to the step shown (filled in by the page).
    assert 'action="/games/import/"' in html
    assert 'id="study-record"' in html


def test_a_kind_without_an_analysis_or_record_has_neither_on_its_page(client, alice, bob):
    game = game_create(creator=alice, kind="kingscorner", opponents=[SeatSpec(ai_level="easy")])
    Game.objects.filter(pk=game.pk).update(status=GameStatus.FINISHED)
    client.force_login(bob)

    html = client.get(f"/games/{game.pk}/replay/").content.decode()

    assert json_script(html, "replay-settings") == {
        "analysis": False,
        "may_analyse": False,
        "records": False,
    }
    assert json_script(html, "replay-data")["you"] is None
    assert 'id="study-form"' not in html


def test_only_the_players_and_staff_are_offered_to_ask_for_the_analysis(
    client, bob, staff, finished
):
    for user, offered in ((bob, False), (staff, True)):
        client.force_login(user)
        html = client.get(f"/games/{finished.pk}/replay/").content.decode()
        settings = json_script(html, "replay-settings")
        assert (settings["analysis"], settings["may_analyse"]) == (True, offered)


def test_a_game_in_play_sends_the_replay_page_back_to_the_game(client, alice):
    game = game_create(creator=alice, kind="circles", opponents=[SeatSpec(ai_level="easy")])
    client.force_login(alice)

    response = client.get(f"/games/{game.pk}/replay/", follow=True)

    assert response.redirect_chain == [(f"/games/{game.pk}/", 302)]
    assert "The replay opens when the game is over." in response.content.decode()


def test_no_replay_page_for_a_game_that_does_not_exist(client, alice):
    client.force_login(alice)

    assert client.get("/games/999999/replay/").status_code == 404


def test_an_unlisted_games_replay_page_needs_its_link_key(client, alice, bob):
    game = game_create(
        creator=alice,
        kind="circles",
        opponents=[SeatSpec(ai_level="easy")],
        record=WIPE_OUT,
        unlisted=True,
    )
    client.force_login(bob)

    assert client.get(f"/games/{game.pk}/replay/").status_code == 404
    assert client.get(f"/games/{game.pk}/replay/?key={game.link_key}").status_code == 200
    client.force_login(alice)
    assert client.get(f"/games/{game.pk}/replay/").status_code == 200


def test_the_replay_page_asks_visitors_to_log_in(client, finished):
    response = client.get(f"/games/{finished.pk}/replay/")

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_the_game_page_and_the_finished_list_link_to_the_replay(client, alice, finished):
    client.force_login(alice)

    game_page = client.get(f"/games/{finished.pk}/").content.decode()
    finished_list = client.get("/games/?list=finished").content.decode()

    assert f'href="/games/{finished.pk}/replay/" hidden>Replay</a>' in game_page
    assert f'href="/games/{finished.pk}/replay/"' in finished_list


def test_importing_a_record_starts_a_game_against_the_computer(client, alice):
    client.force_login(alice)

    response = client.post(
        "/games/import/", {"kind": "circles", "record": "C5 e6", "ai_level": "medium"}
    )

    game = Game.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    assert game.state["record"] == "c5e6"
    assert game.status == GameStatus.ACTIVE
    assert [seat.ai_level for seat in game.seats.order_by("index")] == ["", "medium"]
    assert game.seats.get(index=0).user == alice
    assert all(move.imported for move in game.moves.all())


def test_a_bad_record_goes_back_with_the_reason(client, alice, finished):
    client.force_login(alice)
    replay_url = f"/games/{finished.pk}/replay/"

    response = client.post(
        "/games/import/",
        {"kind": "circles", "record": "c5c5", "ai_level": "hard", "next": replay_url},
        follow=True,
    )

    assert response.redirect_chain[0] == (replay_url, 302)
    assert "Move 2 of the record: c5 is taken." in response.content.decode()
    assert Game.objects.count() == 1


def test_import_refuses_unknown_levels_and_foreign_next_urls(client, alice):
    client.force_login(alice)

    response = client.post(
        "/games/import/",
        {
            "kind": "circles",
            "record": "c5",
            "ai_level": "grandmaster",
            "next": "https://evil.test/",
        },
    )

    assert response.status_code == 302
    assert response["Location"] == "/play/"
    assert not Game.objects.exists()
    assert client.post("/games/import/", {"kind": "chess", "record": "e4"}).status_code == 404
    assert client.get("/games/import/").status_code == 405


def test_the_play_page_offers_to_import_a_circles_record(client, alice):
    client.force_login(alice)

    html = client.get("/play/").content.decode()

    form = re.search(r'<form class="card record-import".*?</form>', html, re.S)
    assert form is not None
    assert 'data-kind="circles"' in form[0]
    assert 'name="record"' in form[0]
    assert '<option value="expert" selected>Computer (expert)</option>' in form[0]
    assert "csrfmiddlewaretoken" in form[0]
    assert 'data-kind="kingscorner"' not in html.split('id="import-a-record"')[1]
