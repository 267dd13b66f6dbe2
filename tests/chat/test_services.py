"""Posting in a game's chat (greycircle.chat.services) and what each viewer reads of it
(greycircle.chat.selectors): the rooms, every refusal, blocks, shadow-hidden messages."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.friends import user_block
from accounts.models import User
from greycircle.chat import services
from greycircle.chat.errors import MessageRefused
from greycircle.chat.models import GameMessage
from greycircle.chat.selectors import game_messages_for, game_messages_json
from greycircle.chat.signals import message_flagged
from greycircle.games.selectors import game_get
from greycircle.games.services import SeatSpec, game_resign
from tests.factories import UserFactory, befriend, game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


@pytest.fixture
def game(alice, bob):
    """Tic-tac-toe in play between alice and bob."""
    return game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])


def post(user, game, body="good luck", room="players", **kwargs):
    return services.game_message_post(user=user, game_id=game.pk, room=room, body=body, **kwargs)


def refused(code, user, game, **kwargs) -> MessageRefused:
    before = GameMessage.objects.count()
    with pytest.raises(MessageRefused) as refusal:
        post(user, game, **kwargs)
    assert refusal.value.code == code
    assert GameMessage.objects.count() == before  # a refusal changes nothing
    return refusal.value


def read(viewer, game, room="players", **kwargs) -> list[str]:
    fresh = game_get(game_id=game.pk)
    return [m.body for m in game_messages_for(viewer=viewer, game=fresh, room=room, **kwargs)]


def test_players_talk_in_their_room(game, alice, bob):
    message = post(alice, game, "  good\u200b luck  ")

    assert (message.room, message.body, message.hidden) == ("players", "good luck", False)
    assert read(bob, game) == ["good luck"]
    assert read(alice, game) == ["good luck"]


def test_only_players_write_in_the_players_room(game, carol):
    assert refused("not_a_player", carol, game).status == 403


def test_players_do_not_write_in_the_spectators_room(game, alice, carol):
    refused("not_a_spectator", alice, game, room="spectators")
    post(carol, game, "nice opening", room="spectators")

    assert read(carol, game, room="spectators") == ["nice opening"]


def test_a_game_one_may_not_see_is_not_found(game, alice, carol):
    user_block(blocker=alice, username=carol.username)

    assert refused("game_not_found", carol, game, room="spectators").status == 404
    with pytest.raises(MessageRefused) as refusal:
        services.game_message_post(user=carol, game_id=10**9, room="players", body="hi")
    assert refusal.value.code == "game_not_found"


def test_an_unknown_room_is_refused(game, alice):
    refused("invalid_room", alice, game, room="lobby")


@pytest.mark.parametrize(
    ("body", "code"), [("  \u200b ", "message_empty"), ("x" * 501, "message_too_long")]
)
def test_empty_and_overlong_messages_are_refused(game, alice, body, code):
    refused(code, alice, game, body=body)


def test_chat_turned_off_in_settings_refuses_and_hides(game, alice, bob):
    post(alice, game, "hello")
    User.objects.filter(pk=bob.pk).update(chat_enabled=False)

    refused("chat_off", bob, game)
    assert read(bob, game) == []


def test_chat_turned_off_for_one_game(game, alice, bob):
    post(alice, game, "hello")

    assert services.game_chat_switch(user=bob, game_id=game.pk, on=False) is False
    refused("chat_off", bob, game)
    assert read(bob, game) == []

    assert services.game_chat_switch(user=bob, game_id=game.pk, on=True) is True
    assert read(bob, game) == ["hello"]


def test_a_muted_player_is_told_until_when(game, alice):
    now = timezone.now()
    until = now + timedelta(hours=2)
    User.objects.filter(pk=alice.pk).update(chat_muted_until=until)

    refusal = refused("chat_muted", alice, game, now=now)
    assert refusal.extra == {"until": until.isoformat()}
    assert post(alice, game, "back", now=until + timedelta(seconds=1)).body == "back"


def test_too_many_messages(game, alice, rate_window_still):
    for n in range(5):
        post(alice, game, f"message {n}")

    refusal = refused("too_many_messages", alice, game)
    assert refusal.status == 429
    assert refusal.extra["retry_after"] >= 1


def test_a_message_sent_again_with_its_id_is_posted_once(
    game, alice, bob, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as first_callbacks:
        first = post(alice, game, "good luck", client_id="m-1")
    with django_capture_on_commit_callbacks(execute=True) as again_callbacks:
        again = post(alice, game, " good  luck ", client_id="m-1")  # the same once screened

    assert again.pk == first.pk
    assert read(bob, game) == ["good luck"]
    assert first_callbacks
    assert not again_callbacks  # nobody is sent it a second time
    # An id is its author's own: bob's "m-1" is another message.
    assert post(bob, game, "you too", client_id="m-1").pk != first.pk


def test_an_id_given_to_another_message_is_refused(game, alice, carol):
    post(alice, game, "good luck", client_id="m-1")

    assert refused("message_id_reused", alice, game, body="bad luck", client_id="m-1").status == 422
    other_game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=carol)])
    refused("message_id_reused", alice, other_game, body="good luck", client_id="m-1")
    refused("invalid_message_id", alice, game, client_id="m 1")
    refused("invalid_message_id", alice, game, client_id="m1\n")
    refused("invalid_message_id", alice, game, client_id="m" * 65)


def test_a_message_sent_again_spends_no_allowance(game, alice, rate_window_still):
    for n in range(5):
        post(alice, game, f"message {n}", client_id=f"m-{n}")

    # The fifth's answer was lost: sent again, it is answered, not refused as a sixth.
    assert post(alice, game, "message 4", client_id="m-4").body == "message 4"
    refused("too_many_messages", alice, game, client_id="m-5")


def test_blocked_users_never_read_each_other_either_way(game, alice, bob, carol, user_factory):
    dave = user_factory(username="dave")
    post(carol, game, "from carol", room="spectators")
    post(dave, game, "from dave", room="spectators")
    user_block(blocker=dave, username=carol.username)

    assert read(carol, game, room="spectators") == ["from carol"]
    assert read(dave, game, room="spectators") == ["from dave"]


def test_a_flagged_message_is_shadow_hidden_and_reported(
    game, alice, bob, staff, django_capture_on_commit_callbacks
):
    flagged = []

    def receiver(sender, message, reason, **kwargs):
        flagged.append((message.pk, reason))

    message_flagged.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            message = post(alice, game, "you are a piece of sh1t")
    finally:
        message_flagged.disconnect(receiver)

    assert message.hidden
    assert flagged == [(message.pk, message.flag_reason)]
    assert message.flag_reason.startswith("profanity: ")
    assert read(alice, game) == ["you are a piece of sh1t"]
    assert read(bob, game) == []
    assert read(staff, game) == ["you are a piece of sh1t"]

    services.game_message_review(message=message)
    assert read(bob, game) == ["you are a piece of sh1t"]


def test_the_spectators_room_is_kept_from_players_until_the_game_is_over(game, alice, bob, carol):
    post(carol, game, "alice should take the corner", room="spectators")
    post(alice, game, "good luck")

    assert read(alice, game, room="spectators") == []
    assert read(carol, game) == []  # and never the players' room

    game_resign(game_id=game.pk, user=bob)

    assert read(alice, game, room="spectators") == ["alice should take the corner"]
    assert read(bob, game) == ["good luck"]
    assert read(carol, game) == []


def test_an_unlisted_game_is_for_those_with_its_link(alice, bob, carol):
    game = game_started(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)], unlisted=True
    )

    refused("game_not_found", carol, game, room="spectators")
    post(carol, game, "hi", room="spectators", key=game.link_key)
    assert read(carol, game, room="spectators", key=game.link_key) == ["hi"]
    assert read(carol, game, room="spectators") == []


def test_reading_after_a_message(game, alice):
    first = post(alice, game, "one")
    post(alice, game, "two")

    assert read(alice, game, after=first.pk) == ["two"]


def test_links_are_clickable_only_from_oneself_and_friends(game, alice, bob, carol):
    post(alice, game, "see example.com")
    fresh = game_get(game_id=game.pk)

    def links(viewer):
        messages = game_messages_for(viewer=viewer, game=fresh, room="players")
        return [m["links"] for m in game_messages_json(viewer=viewer, messages=messages)]

    assert links(alice) == [True]
    assert links(bob) == [False]
    befriend(alice, bob)
    assert links(bob) == [True]


def test_a_message_body_is_never_markup(game, alice, bob):
    post(alice, game, "<script>alert(1)</script>")

    assert read(bob, game) == ["<script>alert(1)</script>"]


def test_anyone_who_may_watch_a_listed_game_may_talk_among_spectators(game):
    stranger = UserFactory()

    assert post(stranger, game, "hello all", room="spectators").author == stranger
