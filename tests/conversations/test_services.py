"""Messages between friends: who may talk, what is kept, who sees it, and what is unread."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts import friends
from greycircle.chat.signals import message_flagged
from greycircle.conversations import selectors, services
from greycircle.conversations.models import Conversation
from greycircle.errors import ServiceError
from tests.factories import befriend

pytestmark = pytest.mark.django_db

ABUSE = "you are a piece of shit"


@pytest.fixture
def talking(alice, bob):
    """alice and bob, friends, with their conversation."""
    befriend(alice, bob)
    return services.conversation_start(user=alice, username="bob")


def refusal(call, **kwargs) -> ServiceError:
    with pytest.raises(ServiceError) as refused:
        call(**kwargs)
    return refused.value


def test_one_conversation_per_pair_whoever_starts_it(alice, bob, talking):
    assert services.conversation_start(user=bob, username="ALICE") == talking
    assert Conversation.objects.count() == 1


def test_only_friends_start_a_conversation(alice, bob):
    error = refusal(services.conversation_start, user=alice, username="bob")
    assert (error.code, error.status) == ("not_friends", 403)
    assert refusal(services.conversation_start, user=alice, username="nobody").code == (
        "user_not_found"
    )
    assert refusal(services.conversation_start, user=alice, username="alice").code == (
        "cannot_message_yourself"
    )
    assert not Conversation.objects.exists()


@pytest.mark.parametrize("blocker", ["alice", "bob"])
def test_a_block_either_way_refuses_without_saying_who_blocked(
    alice, bob, talking, blocker, request
):
    friends.user_block(
        blocker=request.getfixturevalue(blocker), username="bob" if blocker == "alice" else "alice"
    )
    for user, other in ((alice, "bob"), (bob, "alice")):
        error = refusal(services.conversation_start, user=user, username=other)
        assert (error.code, error.detail) == ("blocked", "You can't message this player.")
        error = refusal(
            services.direct_message_send, user=user, conversation_id=talking.pk, body="hi"
        )
        assert (error.code, error.detail) == ("blocked", "You can't message this player.")


def test_a_conversation_outliving_its_friendship_is_read_only(alice, bob, talking):
    services.direct_message_send(user=alice, conversation_id=talking.pk, body="hi")
    friends.friend_remove(user=bob, friend_id=alice.pk)
    error = refusal(services.direct_message_send, user=alice, conversation_id=talking.pk, body="?")
    assert error.code == "not_friends"
    assert [m.body for m in selectors.messages_for(user=bob, conversation=talking)] == ["hi"]


def test_a_closed_account_gets_no_messages(alice, bob, talking):
    bob.is_active = False
    bob.save(update_fields=["is_active"])
    error = refusal(services.direct_message_send, user=alice, conversation_id=talking.pk, body="hi")
    assert error.code == "closed_account"


def test_someone_elses_conversation_is_not_found(alice, bob, carol, talking):
    for call in (services.direct_message_send, services.conversation_read):
        extra = {"body": "hi"} if call is services.direct_message_send else {}
        error = refusal(call, user=carol, conversation_id=talking.pk, **extra)
        assert (error.code, error.status) == ("conversation_not_found", 404)


def test_a_muted_player_cannot_send_until_the_mute_ends(alice, bob, talking):
    now = timezone.now()
    alice.chat_muted_until = now + timedelta(hours=1)
    error = refusal(
        services.direct_message_send, user=alice, conversation_id=talking.pk, body="hi", now=now
    )
    assert error.code == "chat_muted"
    assert error.extra["until"] == alice.chat_muted_until.isoformat()
    later = now + timedelta(hours=2)
    services.direct_message_send(user=alice, conversation_id=talking.pk, body="hi", now=later)


def test_too_long_and_empty_messages_are_refused_and_kept_nowhere(alice, bob, talking):
    assert refusal(
        services.direct_message_send, user=alice, conversation_id=talking.pk, body="x" * 501
    ).code == ("message_too_long")
    assert refusal(
        services.direct_message_send, user=alice, conversation_id=talking.pk, body=" \n "
    ).code == ("message_empty")
    assert not talking.messages.exists()


def test_too_fast_is_refused_with_when_to_try_again(alice, bob, talking, rate_window_still):
    for number in range(5):
        services.direct_message_send(user=alice, conversation_id=talking.pk, body=f"{number}")
    error = refusal(services.direct_message_send, user=alice, conversation_id=talking.pk, body="6")
    assert (error.code, error.status) == ("too_many_messages", 429)
    assert error.retry_after > 0
    assert talking.messages.count() == 5


def test_markup_is_kept_as_the_text_typed(alice, bob, talking):
    body = '<script>alert("x")</script> <b>hi</b>'
    message = services.direct_message_send(user=alice, conversation_id=talking.pk, body=body)
    message.refresh_from_db()
    assert message.body == body


def test_a_flagged_message_is_seen_by_its_sender_only_and_reported(
    alice, bob, talking, django_capture_on_commit_callbacks
):
    flagged = []

    def received(sender, *, message, reason, **kwargs):
        flagged.append((message.pk, reason))

    message_flagged.connect(received)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            message = services.direct_message_send(
                user=alice, conversation_id=talking.pk, body=ABUSE
            )
    finally:
        message_flagged.disconnect(received)
    assert message.hidden
    assert flagged == [(message.pk, message.flag_reason)]
    assert [m.pk for m in selectors.messages_for(user=alice, conversation=talking)] == [message.pk]
    assert not selectors.messages_for(user=bob, conversation=talking).exists()
    assert selectors.messages_unread_count(user=bob) == 0

    services.direct_message_review(message_id=message.pk, visible=True)
    assert [m.pk for m in selectors.messages_for(user=bob, conversation=talking)] == [message.pk]


def test_unread_counts_follow_reading(alice, bob, carol, talking):
    befriend(carol, bob)
    other = services.conversation_start(user=carol, username="bob")
    first = services.direct_message_send(user=alice, conversation_id=talking.pk, body="one")
    services.direct_message_send(user=alice, conversation_id=talking.pk, body="two")
    services.direct_message_send(user=carol, conversation_id=other.pk, body="hey")
    assert selectors.messages_unread_count(user=bob) == 3
    assert selectors.messages_unread_count(user=alice) == 0

    assert services.conversation_read(user=bob, conversation_id=talking.pk, up_to=first.pk) == 1
    assert selectors.messages_unread_count(user=bob) == 2
    listed = selectors.conversations_for(user=bob)
    # Unread first, then the newest.
    assert [(c.pk, c.unread_count) for c in listed] == [(other.pk, 1), (talking.pk, 1)]

    # Answering reads what came before the answer.
    services.direct_message_send(user=bob, conversation_id=talking.pk, body="hi alice")
    assert selectors.messages_unread_count(user=bob) == 1
    assert services.conversation_read(user=bob, conversation_id=other.pk) == 0
    assert selectors.messages_unread_count(user=bob) == 0
    # Reading never goes back.
    services.conversation_read(user=bob, conversation_id=talking.pk, up_to=first.pk)
    assert selectors.messages_unread_count(user=bob) == 0
