"""Guest accounts: "Play now as a guest" makes one, with a game against the computer, in one click
(greycircle.players.guests, which also removes idle guests: both reach the games).

A guest is a real `User` with `is_guest` set, a generated name ("guest-7k3x9q"), no e-mail and
no usable password: the session that made it is the only way in. So that session lasts as long
as the guest keeps playing (`guest_seen`, once a day, from accounts.middleware) and the guest is
removed after GUESTS_IDLE_DAYS without a visit (greycircle.players.guests.guests_remove_idle, run
by the task worker).

A guest can become a full account (`guest_upgrade`): the same row gets a username, an e-mail
address and a password, so every game, rating and statistic stays theirs. Until then a guest
cannot make friends, be invited or invite (accounts.friends, games.services), nor appear on a
leaderboard (ratings.selectors).
"""

from __future__ import annotations

import math
import secrets
import time
from datetime import timedelta

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.errors import AccountInvalid
from accounts.models import User, lookalike_exists
from accounts.usernames import GUEST_PREFIX

# Letters and digits that look like no other (no "m", which looks like "rn"; no 0, 1, i, l, o):
# generated names never collide as look-alikes and read back unambiguously.
GUEST_NAME_ALPHABET = "abcdefghjknpqrstuvwxyz23456789"
GUEST_NAME_LENGTH = 6
# Guest accounts one client address may make per hour: they are made without any sign-up.
GUESTS_PER_HOUR = 10
GUEST_WINDOW = timedelta(hours=1)


def idle_days() -> float:
    return float(settings.GUESTS_IDLE_DAYS)


def guest_allowance_take(*, ip: str) -> int | None:
    """Count one guest account made from `ip`. None while within GUESTS_PER_HOUR; beyond it,
    the seconds until the hour is over (fails open without a cache, like the other limits)."""
    key = f"guests:{ip}"
    now = time.time()
    cache.add(f"{key}:since", now, timeout=GUEST_WINDOW.total_seconds())
    cache.add(key, 0, timeout=GUEST_WINDOW.total_seconds())
    try:
        count = cache.incr(key)
    except ValueError:
        return None
    if count <= GUESTS_PER_HOUR:
        return None
    since = cache.get(f"{key}:since", now)
    return max(1, math.ceil(since + GUEST_WINDOW.total_seconds() - now))


def guest_create() -> User:
    """A new guest: a free generated name, no e-mail, no usable password. Log them in next."""
    for _ in range(20):
        username = GUEST_PREFIX + "".join(
            secrets.choice(GUEST_NAME_ALPHABET) for _ in range(GUEST_NAME_LENGTH)
        )
        if lookalike_exists(username):
            continue
        guest = User(username=username, is_guest=True)
        guest.set_unusable_password()
        try:
            with transaction.atomic():
                guest.save()
        except IntegrityError:  # taken a moment ago
            continue
        return guest
    raise RuntimeError("no free guest name found")  # 30**6 names: only if nearly all are taken


def guest_seen(*, user: User) -> None:
    """The guest is using the site: their idle time starts again (kept in `last_login`, since a
    guest never logs in any other way)."""
    User.objects.filter(pk=user.pk).update(last_login=timezone.now())


def guest_upgrade(*, user: User, username: str, email: str, password: str) -> EmailAddress:
    """Make guest `user` a full account with the given (already validated) username, e-mail
    address and password. The same row, so their games and statistics stay theirs.

    Returns the new, unverified primary address: the caller sends it the confirmation mail, as
    sign-up does. Refuses `not_a_guest`, and `username_taken` when the name was taken meanwhile.
    """
    with transaction.atomic():
        upgraded = User.objects.select_for_update().get(pk=user.pk)
        if not upgraded.is_guest:
            raise AccountInvalid("not_a_guest", "This account is not a guest account.")
        upgraded.username = username
        upgraded.email = email
        upgraded.set_password(password)
        upgraded.is_guest = False
        try:
            with transaction.atomic():
                upgraded.save()
        except IntegrityError:
            raise AccountInvalid(
                "username_taken", "A user with that username already exists."
            ) from None
        EmailAddress.objects.filter(user=upgraded).delete()
        address = EmailAddress.objects.create(
            user=upgraded, email=email.lower(), primary=True, verified=False
        )
    for name in ("username", "username_skeleton", "email", "password", "is_guest"):
        setattr(user, name, getattr(upgraded, name))
    return address
