"""Friends and blocks: the services (accounts.friends) and selectors, refusals included."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from django.db import transaction
from django_tasks_db.models import DBTaskResult

from accounts import friends, selectors
from accounts.errors import AccountError
from accounts.models import Block, FriendRequest, Friendship
from greycircle.notifications.tasks import notifications_send
from tests.factories import UserFactory, befriend


def queued() -> list[tuple[int, str, dict]]:
    """The notifications queued for the task worker (the outbox), oldest first, as
    (user_id, event, data)."""
    rows = DBTaskResult.objects.filter(task_path=notifications_send.module_path)
    return [
        (item["user_id"], item["event"], item["data"])
        for row in rows.order_by("enqueued_at", "pk")
        for item in row.args_kwargs["args"][0]
    ]


@contextlib.contextmanager
def refused(code: str, status: int) -> Iterator[pytest.ExceptionInfo[AccountError]]:
    """Expect a service refusal with this code and HTTP status."""
    with pytest.raises(AccountError) as info:
        yield info
    assert info.value.code == code, info.value.detail
    assert info.value.status == status


@pytest.mark.django_db
def test_a_request_waits_for_the_recipient_then_both_are_friends(alice, bob):
    sent = friends.friend_request_send(sender=alice, username="bob")
    assert sent.friendship is None
    assert sent.request.from_user == alice
    assert sent.request.to_user == bob
    assert list(selectors.friend_requests_incoming(user=bob)) == [sent.request]
    assert list(selectors.friend_requests_outgoing(user=alice)) == [sent.request]
    assert not selectors.are_friends(user=alice, other=bob)
    assert queued() == [(bob.pk, "friend_request", {"request": sent.request.pk, "by": "alice"})]

    mine = friends.friend_request_accept(user=bob, request_id=sent.request.pk)

    assert (mine.user, mine.friend) == (bob, alice)
    assert selectors.are_friends(user=alice, other=bob)
    assert selectors.are_friends(user=bob, other=alice)
    assert [f.friend for f in selectors.friends_of(user=alice)] == [bob]
    assert [f.friend for f in selectors.friends_of(user=bob.pk)] == [alice]
    assert not FriendRequest.objects.exists()
    assert queued()[-1] == (alice.pk, "friend_accepted", {"by": "bob", "user": bob.pk})


@pytest.mark.django_db
def test_the_news_is_queued_with_the_change_and_rolls_back_with_it(alice, bob):
    # The outbox row is written in the request's transaction: no request, no news.
    inside = []
    with contextlib.suppress(RuntimeError), transaction.atomic():
        friends.friend_request_send(sender=alice, username="bob")
        inside = queued()
        raise RuntimeError("a failure before the commit")
    assert [event for _, event, _ in inside] == ["friend_request"]
    assert not FriendRequest.objects.exists()
    assert queued() == []


@pytest.mark.django_db
def test_befriending_yourself_is_refused(alice):
    with refused("cannot_befriend_yourself", 400):
        friends.friend_request_send(sender=alice, username="ALICE")
    assert not FriendRequest.objects.exists()


@pytest.mark.django_db
def test_a_second_request_to_the_same_user_is_refused(alice, bob):
    friends.friend_request_send(sender=alice, username="bob")
    with refused("already_requested", 400):
        friends.friend_request_send(sender=alice, username="Bob")
    assert FriendRequest.objects.count() == 1


@pytest.mark.django_db
def test_asking_someone_who_asked_you_accepts_their_request(alice, bob):
    friends.friend_request_send(sender=alice, username="bob")
    sent = friends.friend_request_send(sender=bob, username="alice")
    assert sent.request is None
    assert (sent.friendship.user, sent.friendship.friend) == (bob, alice)
    assert selectors.are_friends(user=alice, other=bob)
    assert not FriendRequest.objects.exists()
    assert queued()[1:] == [(alice.pk, "friend_accepted", {"by": "bob", "user": bob.pk})]


@pytest.mark.django_db
def test_asking_a_friend_again_is_refused(alice, bob):
    befriend(alice, bob)
    with refused("already_friends", 400):
        friends.friend_request_send(sender=bob, username="alice")


@pytest.mark.django_db
def test_an_unknown_username_is_refused_without_echoing_it_at_length(alice):
    with refused("user_not_found", 404) as info:
        friends.friend_request_send(sender=alice, username="x" * 5000)
    assert len(info.value.detail) < 80


@pytest.mark.django_db
def test_a_deactivated_user_cannot_be_asked(alice):
    UserFactory(username="gone", is_active=False)
    with refused("user_not_found", 404):
        friends.friend_request_send(sender=alice, username="gone")


@pytest.mark.django_db
def test_only_the_recipient_accepts_or_declines(alice, bob, carol):
    request = friends.friend_request_send(sender=alice, username="bob").request
    with refused("not_recipient", 403):
        friends.friend_request_accept(user=alice, request_id=request.pk)
    with refused("not_recipient", 403):
        friends.friend_request_decline(user=alice, request_id=request.pk)
    # Someone else's request does not exist as far as a third user can tell.
    with refused("not_found", 404):
        friends.friend_request_accept(user=carol, request_id=request.pk)
    assert FriendRequest.objects.filter(pk=request.pk).exists()
    assert not Friendship.objects.exists()


@pytest.mark.django_db
def test_only_the_sender_cancels(alice, bob, carol):
    request = friends.friend_request_send(sender=alice, username="bob").request
    with refused("not_sender", 403):
        friends.friend_request_cancel(user=bob, request_id=request.pk)
    with refused("not_found", 404):
        friends.friend_request_cancel(user=carol, request_id=request.pk)
    friends.friend_request_cancel(user=alice, request_id=request.pk)
    assert not FriendRequest.objects.exists()
    with refused("not_found", 404):
        friends.friend_request_accept(user=bob, request_id=request.pk)


@pytest.mark.django_db
def test_a_declined_request_is_gone_and_the_sender_may_ask_again(alice, bob):
    request = friends.friend_request_send(sender=alice, username="bob").request
    friends.friend_request_decline(user=bob, request_id=request.pk)
    assert not FriendRequest.objects.exists()
    assert not selectors.are_friends(user=alice, other=bob)
    assert [event for _, event, _ in queued()] == ["friend_request"]  # alice is told nothing
    assert friends.friend_request_send(sender=alice, username="bob").request is not None


@pytest.mark.django_db
def test_removing_a_friend_ends_both_sides(alice, bob, carol):
    befriend(alice, bob)
    befriend(alice, carol)
    friends.friend_remove(user=bob, friend_id=alice.pk)
    assert not selectors.are_friends(user=alice, other=bob)
    assert not selectors.are_friends(user=bob, other=alice)
    assert [f.friend for f in selectors.friends_of(user=alice)] == [carol]
    with refused("not_friends", 404):
        friends.friend_remove(user=bob, friend_id=alice.pk)


@pytest.mark.django_db
def test_a_blocked_user_cannot_befriend_the_blocker(alice, bob):
    friends.user_block(blocker=alice, username="bob")
    with refused("friend_request_refused", 403) as info:
        friends.friend_request_send(sender=bob, username="alice")
    assert "block" not in info.value.detail  # the blocked user is not told why
    with refused("user_blocked", 400):
        friends.friend_request_send(sender=alice, username="bob")
    assert not FriendRequest.objects.exists()


@pytest.mark.django_db
def test_blocking_ends_the_friendship_and_pending_requests_either_way(alice, bob, carol):
    befriend(alice, bob)
    friends.friend_request_send(sender=alice, username="carol")
    friends.friend_request_send(sender=carol, username="bob")
    friends.user_block(blocker=bob, username="alice")
    friends.user_block(blocker=carol, username="alice")
    assert not Friendship.objects.filter(user__in=[alice, bob], friend__in=[alice, bob]).exists()
    assert list(selectors.friend_requests_outgoing(user=alice)) == []
    # Requests between users who did not block each other stay.
    assert [r.to_user for r in selectors.friend_requests_outgoing(user=carol)] == [bob]


@pytest.mark.django_db
def test_unblocking_lets_them_ask_again_but_does_not_restore_the_friendship(alice, bob):
    befriend(alice, bob)
    friends.user_block(blocker=alice, username="bob")
    friends.user_unblock(blocker=alice, blocked_id=bob.pk)
    assert not selectors.are_friends(user=alice, other=bob)
    assert friends.friend_request_send(sender=bob, username="alice").request is not None


@pytest.mark.django_db
def test_block_refusals(alice, bob):
    with refused("cannot_block_yourself", 400):
        friends.user_block(blocker=alice, username="alice")
    with refused("user_not_found", 404):
        friends.user_block(blocker=alice, username="nobody")
    friends.user_block(blocker=alice, username="bob")
    with refused("already_blocked", 400):
        friends.user_block(blocker=alice, username="BOB")
    with refused("not_blocked", 404):
        friends.user_unblock(blocker=bob, blocked_id=alice.pk)
    assert Block.objects.count() == 1


@pytest.mark.django_db
def test_block_selectors_see_either_direction(alice, bob, carol):
    friends.user_block(blocker=alice, username="bob")
    assert selectors.is_blocked_between(a=alice, b=bob)
    assert selectors.is_blocked_between(a=bob.pk, b=alice.pk)
    assert not selectors.is_blocked_between(a=alice, b=carol)
    assert selectors.has_blocked(blocker=alice, blocked=bob)
    assert not selectors.has_blocked(blocker=bob, blocked=alice)
    assert [b.blocked for b in selectors.blocked_by(user=alice)] == [bob]
    assert list(selectors.blocked_by(user=bob)) == []
    assert selectors.blocked_user_ids(user=alice) == {bob.pk}
    assert selectors.blocked_user_ids(user=bob) == {alice.pk}
    assert selectors.blocked_user_ids(user=carol) == set()


@pytest.mark.django_db
def test_friend_requests_are_limited_per_sender(alice, bob, carol, monkeypatch):
    monkeypatch.setattr(friends, "FRIEND_REQUEST_LIMIT", 3)
    others = UserFactory.create_batch(3)
    with refused("user_not_found", 404):  # refused attempts count too
        friends.friend_request_send(sender=alice, username="nobody")
    friends_asked = [
        friends.friend_request_send(sender=alice, username=u.username) for u in others[:2]
    ]
    assert all(sent.request for sent in friends_asked)
    with refused("too_many_friend_requests", 429):
        friends.friend_request_send(sender=alice, username=others[2].username)
    # Another sender has an allowance of their own.
    assert friends.friend_request_send(sender=bob, username="carol").request is not None
