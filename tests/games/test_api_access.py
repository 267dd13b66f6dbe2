"""Who may reach a game by its id through the REST API: an unlisted game only with its link key,
no game across a block (selectors.game_visible_to; the sockets: test_consumers.py)."""

import pytest

from accounts.models import Block
from greycircle.games.models import Game, GameStatus
from tests.factories import let_anyone_invite
from tests.games.api_requests import create

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("tictactoe")]


GAME_READS = ["", "moves/", "record/", "replay/", "analysis/"]


def test_an_unlisted_game_is_not_found_by_walking_ids(alice, bob, carol, client_for):
    let_anyone_invite(bob)
    duel = create(client_for(alice), [{"user": "bob"}], unlisted=True).json()
    key = duel["link_key"]
    assert len(key) >= 22
    assert client_for(bob).get(f"/api/v1/games/{duel['id']}/").json()["link_key"] == key

    stranger = client_for(carol)
    for read in GAME_READS:
        answer = stranger.get(f"/api/v1/games/{duel['id']}/{read}")
        assert answer.status_code == 404, read
        assert answer.json()["code"] == "not_found"
    assert stranger.get(f"/api/v1/games/{duel['id']}/?key=wrong").status_code == 404
    seen = stranger.get(f"/api/v1/games/{duel['id']}/?key={key}")
    assert seen.status_code == 200
    assert seen.json()["link_key"] is None  # spectators pass on the link they came with


def test_a_listed_game_has_no_link_key(alice, client_for):
    assert create(client_for(alice), [{"open": True}]).json()["link_key"] is None


@pytest.mark.parametrize("blocker", ["player", "viewer"])
def test_a_game_is_not_found_across_a_block(blocker, alice, bob, carol, client_for):
    let_anyone_invite(bob)
    duel = create(client_for(alice), [{"user": "bob"}]).json()
    if blocker == "player":
        Block.objects.create(blocker=bob, blocked=carol)
    else:
        Block.objects.create(blocker=carol, blocked=bob)

    stranger = client_for(carol)
    for read in GAME_READS:
        assert stranger.get(f"/api/v1/games/{duel['id']}/{read}").status_code == 404, read
    assert client_for(bob).get(f"/api/v1/games/{duel['id']}/").status_code == 200
    table = create(client_for(bob), [{"open": True}]).json()
    assert stranger.post(f"/api/v1/games/{table['id']}/join/").status_code == 404
    assert Game.objects.get(pk=table["id"]).status == GameStatus.OPEN


def test_an_unlisted_table_is_joined_through_its_link(alice, carol, client_for):
    table = create(client_for(alice), [{"open": True}], unlisted=True).json()
    stranger = client_for(carol)
    assert stranger.post(f"/api/v1/games/{table['id']}/join/").status_code == 404
    joined = stranger.post(f"/api/v1/games/{table['id']}/join/?key={table['link_key']}")
    assert joined.status_code == 200
    assert joined.json()["status"] == GameStatus.ACTIVE
    assert joined.json()["link_key"] == table["link_key"]  # a player now: theirs to pass on
