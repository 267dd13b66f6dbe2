"""Cheap reads for clients that poll: ETag and 304 on a game, `?after=` on its log,
`?changed_since=` on lists."""

import pytest
from django.utils import timezone

from greycircle.games.models import Game
from tests.games.api_requests import move

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("tictactoe")]


def test_an_unchanged_game_is_304_with_no_body(game, alice, client_for):
    client = client_for(alice)
    first = client.get(f"/api/v1/games/{game['id']}/")
    etag = first["ETag"]

    again = client.get(f"/api/v1/games/{game['id']}/", headers={"If-None-Match": etag})

    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    assert "no-cache" in again["Cache-Control"]


def test_a_move_changes_the_etag(game, alice, client_for):
    client = client_for(alice)
    etag = client.get(f"/api/v1/games/{game['id']}/")["ETag"]
    move(client, game["id"], 4, game["version"])

    after = client.get(f"/api/v1/games/{game['id']}/", headers={"If-None-Match": etag})

    assert after.status_code == 200
    assert after.json()["version"] == game["version"] + 1
    assert after["ETag"] != etag


def test_each_viewer_has_their_own_etag(game, alice, bob, carol, client_for):
    etags = {
        user.username: client_for(user).get(f"/api/v1/games/{game['id']}/")["ETag"]
        for user in (alice, bob, carol)
    }
    assert len(set(etags.values())) == 3
    # Another seat's ETag does not stand for your envelope.
    mine = client_for(bob).get(
        f"/api/v1/games/{game['id']}/", headers={"If-None-Match": etags["alice"]}
    )
    assert mine.status_code == 200


def test_a_claim_becoming_possible_changes_the_etag_without_a_new_version(
    game, alice, bob, client_for
):
    client = client_for(bob)  # alice is to move
    etag = client.get(f"/api/v1/games/{game['id']}/")["ETag"]
    Game.objects.filter(pk=game["id"]).update(move_deadline=timezone.now())

    after = client.get(f"/api/v1/games/{game['id']}/", headers={"If-None-Match": etag})

    assert after.status_code == 200
    assert after.json()["can_claim"] is True


def test_an_etag_list_and_a_weak_etag_are_understood(game, alice, client_for):
    client = client_for(alice)
    etag = client.get(f"/api/v1/games/{game['id']}/")["ETag"]
    listed = client.get(
        f"/api/v1/games/{game['id']}/", headers={"If-None-Match": f'"other", W/{etag}'}
    )
    assert listed.status_code == 304


def test_the_log_after_a_number_has_only_the_newer_entries(game, alice, bob, client_for):
    version = game["version"]
    for user, cell in ((alice, 0), (bob, 4), (alice, 8)):
        move(client_for(user), game["id"], cell, version)
        version += 1
    client = client_for(alice)

    newer = client.get(f"/api/v1/games/{game['id']}/moves/?after=1").json()
    none = client.get(f"/api/v1/games/{game['id']}/moves/?after=3").json()
    whole = client.get(f"/api/v1/games/{game['id']}/moves/?after=0").json()

    assert [entry["number"] for entry in newer] == [2, 3]
    assert none == []
    assert [entry["number"] for entry in whole] == [1, 2, 3]


@pytest.mark.parametrize("after", ["-1", "two", "1.5"])
def test_a_bad_after_is_refused(game, alice, client_for, after):
    response = client_for(alice).get(f"/api/v1/games/{game['id']}/moves/?after={after}")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "after" in response.json()["fields"]


def test_lists_changed_since_a_moment_leave_older_games_out(game, alice, bob, client_for):
    client = client_for(alice)
    [listed] = client.get("/api/v1/games/").json()["results"]
    since = listed["updated_at"]
    assert [g["id"] for g in client.get(f"/api/v1/games/?changed_since={since}").json()["results"]]
    later = timezone.now().isoformat()
    assert client.get("/api/v1/games/", {"changed_since": later}).json()["results"] == []

    move(client, game["id"], 4, game["version"])

    changed = client.get("/api/v1/games/", {"changed_since": later}).json()["results"]
    assert [(g["id"], g["version"]) for g in changed] == [(game["id"], game["version"] + 1)]


def test_a_bad_changed_since_is_refused(alice, client_for):
    response = client_for(alice).get("/api/v1/games/?changed_since=yesterday")
    assert response.status_code == 400
    assert "changed_since" in response.json()["fields"]


def test_the_move_answer_carries_the_etag_a_poll_sends_back(game, alice, bob, client_for):
    client = client_for(alice)
    played = move(client, game["id"], 4, game["version"])

    unchanged = client.get(
        f"/api/v1/games/{game['id']}/", headers={"If-None-Match": played["ETag"]}
    )
    assert unchanged.status_code == 304

    move(client_for(bob), game["id"], 0, game["version"] + 1)
    changed = client.get(f"/api/v1/games/{game['id']}/", headers={"If-None-Match": played["ETag"]})
    assert changed.status_code == 200
    assert changed.json()["version"] == game["version"] + 2
