"""Publishing a change: one call to the channel layer for every audience, the change's log
entries in each frame, and a move request that costs a few queries however long the game."""

import json

import pytest
from channels.layers import get_channel_layer
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext

from greycircle.notifications import tasks
from tests.games.api_requests import move

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("tictactoe")]


@pytest.fixture
def published(monkeypatch) -> list[list[tuple[str, dict]]]:
    """Every call to the channel layer, each the list of `(group, message)` it sent."""
    layer = get_channel_layer()
    calls: list[list[tuple[str, dict]]] = []

    async def group_send_many(messages):
        calls.append(list(messages))

    async def group_send(group, message):
        calls.append([(group, message)])

    monkeypatch.setattr(layer, "group_send_many", group_send_many)
    monkeypatch.setattr(layer, "group_send_many_sync", lambda messages: calls.append(messages))
    monkeypatch.setattr(layer, "group_send", group_send)
    return calls


def test_a_move_is_one_publish_to_every_audience(game, alice, client_for, published):
    move(client_for(alice), game["id"], 4, game["version"])

    [call] = published
    assert [group for group, _ in call] == [
        f"game.{game['id']}.seat0",
        f"game.{game['id']}.seat1",
        f"game.{game['id']}.spectators",
    ]
    for _, message in call:
        assert message["type"] == "game.envelope"
        frame = json.loads(message["frame"])  # the socket frame's text, encoded once
        assert frame["type"] == "game"
        assert frame["envelope"]["version"] == game["version"] + 1
        assert [entry["number"] for entry in frame["moves"]] == [1]


def test_each_audience_gets_its_own_view_of_the_move(game, alice, client_for, published):
    move(client_for(alice), game["id"], 4, game["version"])

    [call] = published
    views = {
        group.rsplit(".", 1)[1]: json.loads(message["frame"])["envelope"] for group, message in call
    }
    assert views["seat0"]["you"] == 0
    assert views["seat1"]["you"] == 1
    assert views["spectators"]["you"] is None
    assert views["seat1"]["legal_moves"]  # bob is to move
    assert views["seat0"]["legal_moves"] == views["spectators"]["legal_moves"] == []


def test_the_players_notifications_are_one_more_publish_by_the_worker(
    game, alice, client_for, published, deliver_notifications
):
    deliver_notifications()  # those of the game's start
    published.clear()
    move(client_for(alice), game["id"], 4, game["version"])
    deliver_notifications()

    assert len(published) == 2
    [(_, message)] = published[1]
    assert message["type"] == "user.notification"
    assert message["notification"]["event"] == "your_turn"


def test_the_move_response_is_the_view_just_published(game, alice, client_for, published):
    response = move(client_for(alice), game["id"], 4, game["version"]).json()
    [call] = published
    assert response == json.loads(call[0][1]["frame"])["envelope"]


def test_a_move_request_costs_the_same_few_queries_however_long_the_game(
    game, alice, bob, client_for
):
    players = {0: client_for(alice), 1: client_for(bob)}
    version, counts = game["version"], []
    for turn, cell in enumerate((0, 1, 2, 4, 3, 5)):
        with CaptureQueriesContext(connection) as queries:
            response = move(players[turn % 2], game["id"], cell, version)
        assert response.status_code == 200, response.json()
        counts.append(len(queries.captured_queries))
        version += 1
    # the user (the session comes from the cache); then begin, the game locked with its seats,
    # update, log entry, commit; and the task that keeps the players' notifications.
    assert counts == [7] * len(counts)


def test_a_database_error_while_queuing_the_notifications_leaves_the_move_played(
    game, alice, client_for, published, monkeypatch, caplog
):
    def refuse(**news):
        raise OperationalError("the database went away\nDETAIL: more")

    monkeypatch.setattr(tasks, "notifications_enqueue", refuse)

    response = move(client_for(alice), game["id"], 4, game["version"])

    assert response.status_code == 200
    assert response.json()["version"] == game["version"] + 1
    assert len(published) == 1  # the frames went out
    [warning] = [r for r in caplog.records if "could not queue the notifications" in r.message]
    assert warning.message.endswith("database error: the database went away")
