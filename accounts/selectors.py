"""Reads of accounts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Exists, Q, QuerySet
from django.db.models.functions import Lower

from accounts.models import Block, FriendRequest, Friendship, User
from accounts.usernames import normalize_username


def username_key(username: str) -> str:
    """How a typed username is matched: in its stored (NFKC) form, ignoring case."""
    return normalize_username(username.strip()).lower()


def users_by_username(*, usernames: Iterable[str]) -> dict[str, User]:
    """The users called `usernames` (matched by `username_key`), in one query, by that key."""
    wanted = {username_key(name) for name in usernames}
    if not wanted:
        return {}
    found = User.objects.annotate(username_key=Lower("username")).filter(username_key__in=wanted)
    return {user.username_key: user for user in found}


# --- Friends and blocks -----------------------------------------------------------------------
# Functions that take users also take user ids, so the games side can ask about seats' user_id.
UserOrId = User | int


def _id(user: UserOrId) -> int:
    return user if isinstance(user, int) else user.pk


def friends_of(*, user: UserOrId) -> QuerySet[Friendship]:
    """`user`'s side of each of their friendships (`.friend`, `.created_at`), by friend's name."""
    return (
        Friendship.objects.filter(user_id=_id(user))
        .select_related("friend")
        .order_by(Lower("friend__username"), "friend_id")
    )


def are_friends(*, user: UserOrId, other: UserOrId) -> bool:
    return Friendship.objects.filter(user_id=_id(user), friend_id=_id(other)).exists()


def friend_requests_incoming(*, user: UserOrId) -> QuerySet[FriendRequest]:
    """Requests waiting for `user`'s answer, newest first."""
    return (
        FriendRequest.objects.filter(to_user_id=_id(user))
        .select_related("from_user", "to_user")
        .order_by("-created_at", "-pk")
    )


def friend_requests_outgoing(*, user: UserOrId) -> QuerySet[FriendRequest]:
    """Requests `user` sent that are still waiting, newest first."""
    return (
        FriendRequest.objects.filter(from_user_id=_id(user))
        .select_related("from_user", "to_user")
        .order_by("-created_at", "-pk")
    )


def friend_requests_of(*, user: UserOrId) -> QuerySet[FriendRequest]:
    """Every pending request `user` sent or received, newest first."""
    uid = _id(user)
    return (
        FriendRequest.objects.filter(Q(from_user_id=uid) | Q(to_user_id=uid))
        .select_related("from_user", "to_user")
        .order_by("-created_at", "-pk")
    )


def blocked_by(*, user: UserOrId) -> QuerySet[Block]:
    """The blocks `user` made (`.blocked`, `.created_at`), by blocked user's name."""
    return (
        Block.objects.filter(blocker_id=_id(user))
        .select_related("blocked")
        .order_by(Lower("blocked__username"), "blocked_id")
    )


def has_blocked(*, blocker: UserOrId, blocked: UserOrId) -> bool:
    """Whether `blocker` blocked `blocked` (one direction)."""
    return Block.objects.filter(blocker_id=_id(blocker), blocked_id=_id(blocked)).exists()


def is_blocked_between(*, a: UserOrId, b: UserOrId) -> bool:
    """Whether either user blocked the other: then neither may befriend, invite or remind the
    other (a block protects the blocker, and the blocker has said they want no contact)."""
    first, second = _id(a), _id(b)
    return Block.objects.filter(
        Q(blocker_id=first, blocked_id=second) | Q(blocker_id=second, blocked_id=first)
    ).exists()


def blocked_user_ids(*, user: UserOrId) -> set[int]:
    """Ids of the users on the other side of a block with `user`, either way round: whose
    games to leave out of `user`'s lists, and whom `user` may not invite or remind."""
    uid = _id(user)
    pairs = Block.objects.filter(Q(blocker_id=uid) | Q(blocked_id=uid)).values_list(
        "blocker_id", "blocked_id"
    )
    return {other for pair in pairs for other in pair if other != uid}


def is_blocked_among(*, users: Iterable[UserOrId]) -> bool:
    """Whether a block stands between any two of `users` (one query)."""
    ids = {_id(user) for user in users}
    if len(ids) < 2:
        return False
    return Block.objects.filter(blocker_id__in=ids, blocked_id__in=ids).exists()


def block_between(*, user: UserOrId, other: Any) -> Exists:
    """Whether a block stands between `user` and `other` (a user id or an `OuterRef` to one),
    either way round: an expression for filtering lists without a query of its own."""
    uid = _id(user)
    return Exists(
        Block.objects.filter(
            Q(blocker_id=uid, blocked_id=other) | Q(blocked_id=uid, blocker_id=other)
        )
    )
