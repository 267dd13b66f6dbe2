"""Friends and blocks: every change to them (the services; reads are in accounts.selectors).

Each service runs in one transaction that first locks both users' rows (lowest id first), so two
requests about the same pair — say each asking the other at the same moment — are carried out one
after the other and the pair never ends up with two crossed requests or half a friendship.
What the other user is to hear of (a request, its acceptance) is told inside that transaction
(`signals.friend_news`): the receiver above (the inbox) queues its notification with the change,
so it commits or rolls back with it.

Choices:
- A request to someone who has already asked you accepts their request: you both want it.
- Only pending requests are stored: accepting, declining or cancelling deletes the request, and
  declining tells the sender nothing (their request just stops being pending).
- A block works both ways: neither user can ask the other, and blocking ends their friendship and
  deletes pending requests either way; neither can join, accept or be seated in a game with the
  other, and a table not yet started where both hold a seat loses one of them. The blocked user
  is not told; a request they try to send is refused with a message that does not say why
  beyond "you cannot".
- Every attempt to send a request (refused ones too, so probing usernames is limited as well)
  counts against the sender's allowance: `FRIEND_REQUEST_LIMIT` per `FRIEND_REQUEST_WINDOW`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.core.cache import cache
from django.db import transaction
from django.db.models import Q

from accounts import selectors
from accounts.errors import (
    AccountInvalid,
    AccountNotFound,
    AccountPermissionDenied,
    AccountRateLimited,
)
from accounts.models import Block, FriendRequest, Friendship, User
from accounts.signals import friend_news, user_blocked
from greycircle.api.errors import shorten

FRIEND_REQUEST_LIMIT = 20
FRIEND_REQUEST_WINDOW = timedelta(hours=1)


@dataclass(frozen=True)
class FriendRequestSent:
    """What sending a request did: a pending `request`, or — when the other user had already
    asked the sender — the sender's side of the new `friendship`."""

    request: FriendRequest | None = None
    friendship: Friendship | None = None


def friend_request_send(*, sender: User, username: str) -> FriendRequestSent:
    """Ask the user called `username` to be friends (accepting theirs if they asked first).

    Guests (accounts.guests) have no friends until they create an account: they can neither ask
    nor be asked (`guest_account`)."""
    if sender.is_guest:
        raise AccountPermissionDenied(
            "guest_account", "Create an account to make friends: guests cannot."
        )
    _friend_request_allowance(sender=sender)
    recipient = _user_called(username)
    if recipient.pk == sender.pk:
        raise AccountInvalid("cannot_befriend_yourself", "You cannot befriend yourself.")
    if recipient.is_guest:
        raise AccountPermissionDenied(
            "guest_account",
            f"{recipient.username} plays as a guest: guests cannot make friends.",
        )
    with transaction.atomic():
        _lock_pair(sender.pk, recipient.pk)
        if selectors.has_blocked(blocker=sender, blocked=recipient):
            raise AccountInvalid(
                "user_blocked", f"You blocked {recipient.username}: unblock them first."
            )
        if selectors.has_blocked(blocker=recipient, blocked=sender):
            raise AccountPermissionDenied(
                "friend_request_refused", f"You cannot send {recipient.username} a friend request."
            )
        if selectors.are_friends(user=sender, other=recipient):
            raise AccountInvalid(
                "already_friends", f"You and {recipient.username} are friends already."
            )
        if FriendRequest.objects.filter(from_user=sender, to_user=recipient).exists():
            raise AccountInvalid(
                "already_requested", f"You have already asked {recipient.username}."
            )
        theirs = FriendRequest.objects.filter(from_user=recipient, to_user=sender).first()
        if theirs is not None:
            return FriendRequestSent(friendship=_accept(theirs))
        request = FriendRequest.objects.create(from_user=sender, to_user=recipient)
        friend_news.send(
            sender=User,
            user_id=recipient.pk,
            event="friend_request",
            data={"request": request.pk, "by": sender.username},
        )
    return FriendRequestSent(request=request)


def friend_request_accept(*, user: User, request_id: int) -> Friendship:
    """The recipient accepts: they become friends (the returned row is `user`'s side)."""
    with transaction.atomic():
        request = _request_locked(user=user, request_id=request_id)
        if request.to_user_id != user.pk:
            raise AccountPermissionDenied(
                "not_recipient", "Only the person asked can accept a friend request."
            )
        return _accept(request)


def friend_request_decline(*, user: User, request_id: int) -> None:
    """The recipient says no; the request is deleted and the sender is not told."""
    with transaction.atomic():
        request = _request_locked(user=user, request_id=request_id)
        if request.to_user_id != user.pk:
            raise AccountPermissionDenied(
                "not_recipient", "Only the person asked can decline a friend request."
            )
        request.delete()


def friend_request_cancel(*, user: User, request_id: int) -> None:
    """The sender withdraws their request."""
    with transaction.atomic():
        request = _request_locked(user=user, request_id=request_id)
        if request.from_user_id != user.pk:
            raise AccountPermissionDenied(
                "not_sender", "Only the person who sent a friend request can cancel it."
            )
        request.delete()


def friend_remove(*, user: User, friend_id: int) -> None:
    """End the friendship between `user` and the user `friend_id` (both sides)."""
    with transaction.atomic():
        _lock_pair(user.pk, friend_id)
        pair = _pair_q("user", "friend", user.pk, friend_id)
        deleted, _ = Friendship.objects.filter(pair).delete()
        if not deleted:
            raise AccountNotFound("not_friends", "That player is not among your friends.")


def user_block(*, blocker: User, username: str) -> Block:
    """Block the user called `username`: ends your friendship and any request between you, and
    parts you at every table that has not started (`signals.user_blocked`)."""
    blocked = _user_called(username)
    if blocked.pk == blocker.pk:
        raise AccountInvalid("cannot_block_yourself", "You cannot block yourself.")
    with transaction.atomic():
        _lock_pair(blocker.pk, blocked.pk)
        if selectors.has_blocked(blocker=blocker, blocked=blocked):
            raise AccountInvalid("already_blocked", f"You have already blocked {blocked.username}.")
        block = Block.objects.create(blocker=blocker, blocked=blocked)
        Friendship.objects.filter(_pair_q("user", "friend", blocker.pk, blocked.pk)).delete()
        FriendRequest.objects.filter(
            _pair_q("from_user", "to_user", blocker.pk, blocked.pk)
        ).delete()
        user_blocked.send(sender=User, blocker=blocker, blocked=blocked)
    return block


def user_unblock(*, blocker: User, blocked_id: int) -> None:
    """Lift `blocker`'s block of the user `blocked_id` (a friendship it ended stays ended)."""
    with transaction.atomic():
        deleted, _ = Block.objects.filter(blocker=blocker, blocked_id=blocked_id).delete()
        if not deleted:
            raise AccountNotFound("not_blocked", "You have not blocked that player.")


def _accept(request: FriendRequest) -> Friendship:
    """Make the friendship `request` asks for (the pair is locked); returns the recipient's side."""
    sender, recipient = request.from_user, request.to_user
    mine = Friendship.objects.create(user=recipient, friend=sender)
    Friendship.objects.create(user=sender, friend=recipient)
    FriendRequest.objects.filter(_pair_q("from_user", "to_user", sender.pk, recipient.pk)).delete()
    friend_news.send(
        sender=User,
        user_id=sender.pk,
        event="friend_accepted",
        data={"by": recipient.username, "user": recipient.pk},
    )
    return mine


def _friend_request_allowance(*, sender: User) -> None:
    """Count one attempt against `sender`'s allowance; refuse beyond it (fails open without a
    cache, like the other rate limits)."""
    key = f"friend-requests:{sender.pk}"
    cache.add(key, 0, timeout=FRIEND_REQUEST_WINDOW.total_seconds())
    try:
        count = cache.incr(key)
    except ValueError:
        return
    if count > FRIEND_REQUEST_LIMIT:
        raise AccountRateLimited(
            "too_many_friend_requests",
            "You have sent a lot of friend requests lately: try again in an hour.",
        )


def _user_called(username: str) -> User:
    user = selectors.users_by_username(usernames=[username]).get(selectors.username_key(username))
    if user is None or not user.is_active:
        raise AccountNotFound("user_not_found", f"No player is called {shorten(username.strip())}.")
    return user


def _lock_pair(a: int, b: int) -> None:
    """Lock both users' rows, lowest id first (so two locks of one pair never deadlock)."""
    list(User.objects.select_for_update().filter(pk__in={a, b}).order_by("pk").values_list("pk"))


def _pair_q(left: str, right: str, a: int, b: int) -> Q:
    """Rows linking `a` and `b` either way round through the fields `left` and `right`."""
    return Q(**{f"{left}_id": a, f"{right}_id": b}) | Q(**{f"{left}_id": b, f"{right}_id": a})


def _request_locked(*, user: User, request_id: int) -> FriendRequest:
    """The friend request `request_id` that `user` sent or received, with its pair locked."""
    found = (
        FriendRequest.objects.filter(Q(from_user=user) | Q(to_user=user), pk=request_id)
        .values_list("from_user_id", "to_user_id")
        .first()
    )
    if found is not None:
        _lock_pair(*found)
        requests = FriendRequest.objects.select_related("from_user", "to_user")
        request = requests.filter(pk=request_id).first()
        if request is not None:
            return request
    raise AccountNotFound("not_found", "No such friend request.")
