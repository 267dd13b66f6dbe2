"""Reads of accounts."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models.functions import Lower

from accounts.models import User
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
