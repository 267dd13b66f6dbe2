"""Download my data: what it holds, and never another seat's hidden cards."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils.dateparse import parse_datetime

from accounts import friends
from greycircle.chat import services as chat
from greycircle.conversations import services as conversations
from greycircle.games import selectors, services
from greycircle.games.clocks import TimeControl
from greycircle.games.models import Game, Move
from greycircle.games.services import SeatSpec
from greycircle.lobby import services as lobby
from greycircle.players.data import account_data_export
from greycircle.push.models import PushDevice
from greycircle.push.services import webpush_subscribe
from greycircle.ratings.models import PlayerRating
from tests.factories import befriend, game_started
from tests.push.push_service import Browser

pytestmark = pytest.mark.django_db


def download(user) -> tuple[object, dict]:
    client = Client()
    client.force_login(user)
    response = client.get("/account/data/")
    return response, json.loads(response.content)


def test_the_download_holds_my_profile_settings_games_friends_and_blocks(alice, bob, carol):
    alice.show_helpers = False
    alice.save(update_fields=["show_helpers"])
    friends.friend_request_send(sender=alice, username="bob")
    friends.friend_request_accept(user=bob, request_id=alice.friend_requests_sent.get().pk)
    friends.user_block(blocker=alice, username="carol")
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    [first, *_] = selectors.game_view_for(game=game, viewer=alice)["legal_moves"]
    services.move_submit(game_id=game.pk, user=alice, move=first, expected_version=game.version)
    services.game_resign(game_id=game.pk, user=bob)

    response, data = download(alice)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="greycircle-alice.json"'
    profile = data["profile"]
    assert (profile["id"], profile["username"], profile["email"], profile["is_guest"]) == (
        alice.pk,
        "alice",
        "alice@example.com",
        False,
    )
    assert data["settings"]["show_helpers"] is False
    assert set(data["settings"]) >= {"accept_invitations_from_anyone", "email_your_turn"}
    assert [friend["username"] for friend in data["friends"]] == ["bob"]
    assert [block["username"] for block in data["blocks"]] == ["carol"]
    [exported] = data["games"]
    assert (exported["id"], exported["kind"], exported["status"]) == (
        game.pk,
        "circles",
        "finished",
    )
    assert exported["your_seat"] == 0
    assert [seat["name"] for seat in exported["seats"]] == ["alice", "bob"]
    assert exported["outcome"]["winners"] == [0]
    assert exported["finished_at"] is not None
    assert [(move["number"], move["seat"], move["square"]) for move in exported["moves"]] == [
        (1, 0, first["square"])
    ]


def test_the_download_is_the_api_document(alice, client_for):
    _, site = download(alice)
    api = client_for(alice).get("/api/v1/me/data/").json()
    for document in (site, api):  # each request signs in anew
        document.pop("exported_at")
        document["profile"].pop("last_login")
    assert site == api


def test_my_seeks_waiting_and_ended_are_in_my_data_not_others(alice, bob):
    t0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    live = lobby.seek_create(user=alice, kind="circles", time_control=TimeControl(3, 2), now=t0)
    lobby.seek_cancel(seek_id=live.pk, user=alice, now=t0 + timedelta(minutes=1))
    later = t0 + timedelta(minutes=2)
    mine = lobby.seek_create(
        user=alice,
        kind="circles",
        days_per_move=3,
        rated=False,
        rating_range=(1200, 1800),
        now=later,
    )
    theirs = lobby.seek_create(user=bob, kind="circles", days_per_move=3, rated=False, now=later)
    assert theirs.status == "matched"

    _, data = download(alice)

    cancelled, matched = data["seeks"]
    assert cancelled["pool"] == "circles:3+2:2:rated"
    assert (cancelled["kind"], cancelled["seats"], cancelled["rated"]) == ("circles", 2, True)
    assert cancelled["time_control"] == {"minutes": 3, "increment": 2}
    assert (cancelled["days_per_move"], cancelled["rating_range"]) == (None, None)
    assert (cancelled["status"], cancelled["game"]) == ("cancelled", None)
    assert parse_datetime(cancelled["created_at"]) == t0
    assert parse_datetime(cancelled["ended_at"]) == t0 + timedelta(minutes=1)
    assert matched["pool"] == "circles:3d:2:casual"
    assert (matched["time_control"], matched["days_per_move"]) == (None, 3)
    assert matched["rating_range"] == {"min": 1200, "max": 1800}
    assert matched["rating"] == round(mine.rating)
    assert (matched["status"], matched["game"]) == ("matched", theirs.game_id)
    assert parse_datetime(matched["ended_at"]) == later


def test_other_seats_hidden_cards_are_not_in_my_data(alice, bob):
    game = game_started(creator=alice, kind="kingscorner", opponents=[SeatSpec(user=bob)])
    players = {0: alice, 1: bob}
    for _ in range(6):  # each ends three turns, drawing a card no one else may see
        game = Game.objects.get(pk=game.pk)
        services.move_submit(
            game_id=game.pk,
            user=players[game.to_move],
            move={"action": "end_turn"},
            expected_version=game.version,
        )
    moves = {move.number: move for move in Move.objects.filter(game=game)}
    bobs_draws = {move.private["1"]["card"] for move in moves.values() if move.seat == 1}
    assert len(bobs_draws) == 3

    data = account_data_export(user=alice)

    [exported] = data["games"]
    assert exported["your_seat"] == 0
    for entry in exported["moves"]:
        drawn = moves[entry["number"]].private
        if entry["seat"] == 0:
            assert entry["card"] == drawn["0"]["card"]
        else:
            assert "card" not in entry
    text = json.dumps(data, default=str)
    assert "hands" not in text
    assert "stock" not in text
    # Bob's cards appear nowhere (unless one happened to be the same as one of alice's draws).
    alices = {entry["card"] for entry in exported["moves"] if "card" in entry}
    for card in bobs_draws - alices:
        assert f'"{card}"' not in text


def test_my_browsers_and_apps_are_in_my_data_without_their_keys(alice, bob):
    browser = Browser(endpoint="https://push.example.com/push/alices-phone")
    keys = browser.subscription()["keys"]
    webpush_subscribe(user=alice, user_agent="Firefox/150", endpoint=browser.endpoint, **keys)
    webpush_subscribe(user=bob, endpoint="https://push.example.com/push/bobs", **keys)
    token = "f" * 64
    PushDevice.objects.create(user=alice, platform="apns", token=token, app_id="games.gc.app")

    _, data = download(alice)

    [subscription] = data["push_subscriptions"]
    assert subscription["endpoint"] == browser.endpoint
    assert subscription["user_agent"] == "Firefox/150"
    assert subscription["last_success"] is None
    assert (subscription["last_failure"], subscription["last_failure_status"]) == (None, None)
    assert subscription["last_failure_reason"] == ""
    [device] = data["app_devices"]
    assert (device["platform"], device["app_id"], device["token"]) == (
        "apns",
        "games.gc.app",
        "ffffffff…",
    )
    assert (device["last_failure"], device["last_failure_status"]) == (None, None)
    assert device["last_failure_reason"] == ""
    text = json.dumps(data)
    assert keys["p256dh"] not in text
    assert keys["auth"] not in text
    assert token not in text
    assert "bobs" not in text


def test_my_ratings_are_in_my_data_per_kind_and_speed(alice):
    PlayerRating.objects.create(user=alice, kind="circles", speed="live", rating=1550, games=4)
    PlayerRating.objects.create(user=alice, kind="circles", rating=1620, games=12)

    ratings = account_data_export(user=alice)["ratings"]

    assert [(rating["kind"], rating["speed"], rating["rating"]) for rating in ratings] == [
        ("circles", "correspondence", 1620),
        ("circles", "live", 1550),
    ]


def test_the_messages_i_sent_are_in_my_data(alice, bob):
    befriend(alice, bob)
    conversation = conversations.conversation_start(user=alice, username="bob")
    conversations.direct_message_send(user=alice, conversation_id=conversation.pk, body="hi bob")
    conversations.direct_message_send(user=bob, conversation_id=conversation.pk, body="hi alice")
    data = account_data_export(user=alice)
    assert [(m["to_user"], m["body"]) for m in data["messages"]] == [("bob", "hi bob")]


def test_what_i_wrote_in_games_chats_is_in_my_data(alice, bob):
    game = game_started(creator=alice, kind="circles", opponents=[SeatSpec(user=bob)])
    chat.game_message_post(user=alice, game_id=game.pk, room="players", body="good luck")
    chat.game_message_post(user=bob, game_id=game.pk, room="players", body="you too")
    data = account_data_export(user=alice)
    assert [(m["game"], m["room"], m["body"]) for m in data["game_messages"]] == [
        (game.pk, "players", "good luck")
    ]
