"""`/api/v1/games/{id}/chat/` (greycircle.chat.api): reading a room, posting, the switch; the
project's error shape, 429 with Retry-After."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.throttling import SimpleRateThrottle

from accounts.friends import user_block
from accounts.models import User
from greycircle.chat.models import GameMessage
from greycircle.games.services import SeatSpec
from tests.factories import befriend, game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


@pytest.fixture
def game(alice, bob):
    return game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])


def chat_url(game, suffix=""):
    return f"/api/v1/games/{game.pk}/chat/{suffix}"


def post(client, game, body, room="players", **sent):
    return client.post(chat_url(game), {"room": room, "body": body, **sent}, format="json")


def test_a_player_posts_and_the_other_reads(client_for, game, alice, bob):
    answer = post(client_for(alice), game, "good luck, see https://example.org")

    assert answer.status_code == 201
    message = answer.json()
    assert message["author"] == {"id": alice.pk, "username": "alice"}
    assert (message["room"], message["hidden"], message["links"]) == ("players", False, True)
    assert message["body"] == "good luck, see https://example.org"

    read = client_for(bob).get(chat_url(game), {"room": "players"})
    assert read.status_code == 200
    chat = read.json()
    assert (chat["room"], chat["chat_on"], chat["chat_on_here"]) == ("players", True, True)
    assert [m["id"] for m in chat["messages"]] == [message["id"]]
    assert chat["messages"][0]["links"] is False  # a stranger's links stay plain text

    befriend(alice, bob)
    assert client_for(bob).get(chat_url(game)).json()["messages"][0]["links"] is True


def test_after_reads_only_newer_messages(client_for, game, alice):
    client = client_for(alice)
    first = post(client, game, "one").json()["id"]
    post(client, game, "two")

    answer = client.get(chat_url(game), {"after": first})
    assert [m["body"] for m in answer.json()["messages"]] == ["two"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ("", 400, "message_empty"),
        ("x" * 501, 400, "message_too_long"),
    ],
)
def test_bad_messages_are_refused_in_the_error_shape(client_for, game, alice, body, status, code):
    answer = post(client_for(alice), game, body)

    assert answer.status_code == status
    assert answer.json()["code"] == code
    assert answer.json()["detail"]
    assert not GameMessage.objects.exists()


def test_a_frame_without_a_room_is_invalid(client_for, game, alice):
    answer = client_for(alice).post(chat_url(game), {"body": "hi"}, format="json")

    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid"
    assert "room" in answer.json()["fields"]


def test_a_message_posted_again_with_its_id_is_answered_with_the_first(client_for, game, alice):
    client = client_for(alice)
    first = post(client, game, "good luck", id="c0ffee-1")
    again = post(client, game, "good luck", id="c0ffee-1")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert GameMessage.objects.get().client_id == "c0ffee-1"


def test_an_id_is_refused_for_another_message_or_when_malformed(client_for, game, alice):
    client = client_for(alice)
    post(client, game, "good luck", id="c0ffee-1")

    reused = post(client, game, "bad luck", id="c0ffee-1")
    assert (reused.status_code, reused.json()["code"]) == (422, "message_id_reused")
    malformed = post(client, game, "bad luck", id="<c0ffee>")
    assert (malformed.status_code, malformed.json()["code"]) == (400, "invalid")
    assert "id" in malformed.json()["fields"]
    assert list(GameMessage.objects.values_list("body", flat=True)) == ["good luck"]


def test_a_spectator_is_not_a_player(client_for, game, carol):
    assert post(client_for(carol), game, "hi").json()["code"] == "not_a_player"
    answer = client_for(carol).get(chat_url(game), {"room": "players"})
    assert (answer.status_code, answer.json()["code"]) == (403, "not_a_player")


def test_players_wait_for_the_end_to_read_the_spectators(client_for, game, alice, carol):
    assert post(client_for(carol), game, "take the corner", room="spectators").status_code == 201

    answer = client_for(alice).get(chat_url(game), {"room": "spectators"})
    assert (answer.status_code, answer.json()["code"]) == (403, "spectators_room_closed")
    assert post(client_for(alice), game, "hi", room="spectators").json()["code"] == (
        "not_a_spectator"
    )


def test_a_game_across_a_block_is_not_found(client_for, game, alice, carol):
    user_block(blocker=carol, username=alice.username)

    for answer in (
        client_for(carol).get(chat_url(game), {"room": "spectators"}),
        post(client_for(carol), game, "hi", room="spectators"),
    ):
        assert (answer.status_code, answer.json()["code"]) == (404, "game_not_found")


def test_too_many_messages_is_429_with_retry_after(client_for, game, alice, rate_window_still):
    client = client_for(alice)
    for n in range(5):
        assert post(client, game, f"message {n}").status_code == 201

    answer = post(client, game, "one more")
    assert answer.status_code == 429
    assert answer.json()["code"] == "too_many_messages"
    assert int(answer["Retry-After"]) == answer.json()["retry_after"] >= 1


def test_the_daily_limit_is_429_too(client_for, game, alice, rate_window_still, monkeypatch):
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "chat_daily", "2/day")
    client = client_for(alice)
    post(client, game, "one")
    post(client, game, "two")

    answer = post(client, game, "three")
    assert answer.status_code == 429
    assert int(answer["Retry-After"]) > 3600


def test_a_muted_player_is_told_until_when(client_for, game, alice):
    until = timezone.now() + timedelta(days=1)
    User.objects.filter(pk=alice.pk).update(chat_muted_until=until)

    answer = post(client_for(alice), game, "hello")
    assert (answer.status_code, answer.json()["code"]) == (403, "chat_muted")
    assert answer.json()["until"] == until.isoformat()


def test_the_switch_turns_a_games_chat_off_and_on(client_for, game, alice, bob):
    post(client_for(alice), game, "hello")
    client = client_for(bob)

    off = client.put(chat_url(game, "switch/"), {"on": False}, format="json")
    assert (off.status_code, off.json()) == (200, {"on": False})
    chat = client.get(chat_url(game)).json()
    assert (chat["messages"], chat["chat_on"], chat["chat_on_here"]) == ([], False, False)
    assert post(client, game, "hi").json()["code"] == "chat_off"

    assert client.put(chat_url(game, "switch/"), {"on": True}, format="json").json() == {"on": True}
    assert len(client.get(chat_url(game)).json()["messages"]) == 1


def test_a_flagged_message_is_shown_to_its_author_only(client_for, game, alice, bob, staff):
    answer = post(client_for(alice), game, "sh1t move")

    assert answer.status_code == 201
    assert answer.json()["hidden"] is True
    assert len(client_for(alice).get(chat_url(game)).json()["messages"]) == 1
    assert client_for(bob).get(chat_url(game)).json()["messages"] == []
    assert len(client_for(staff).get(chat_url(game)).json()["messages"]) == 1


def test_markup_comes_back_as_text(client_for, game, alice, bob):
    post(client_for(alice), game, "<b>bold</b> &amp;")

    assert client_for(bob).get(chat_url(game)).json()["messages"][0]["body"] == (
        "<b>bold</b> &amp;"
    )


def test_signed_out_is_refused(client, game):
    assert client.get(chat_url(game)).status_code in (401, 403)
