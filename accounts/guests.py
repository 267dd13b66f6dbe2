"""Guests: "Play now as a guest" makes an account and a game against the computer in one click.

A guest is a real `User` with `is_guest` set, a generated name ("guest-7k3x9q"), no e-mail and
no usable password: the session that made it is the only way in. So that session lasts as long
as the guest keeps playing (`guest_seen`, once a day, from accounts.middleware) and the guest is
removed after GUESTS_IDLE_DAYS without a visit (`guests_remove_idle`, run by the task worker).

A guest can become a full account (`guest_upgrade`): the same row gets a username, an e-mail
address and a password, so every game, rating and statistic stays theirs. Until then a guest
cannot make friends, be invited or invite (accounts.friends, games.services), nor appear on a
leaderboard (ratings.selectors).
"""

from __future__ import annotations

import math
import secrets
import time
from datetime import datetime, timedelta

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, ProtectedError, Q
from django.utils import timezone

from accounts.deletion import account_anonymise
from accounts.errors import AccountInvalid
from accounts.models import User, lookalike_exists
from accounts.usernames import GUEST_PREFIX
from greycircle.games import registry, services
from greycircle.games.errors import GameInvalid
from greycircle.games.models import Game, Seat

# Letters and digits that look like no other (no "m", which looks like "rn"; no 0, 1, i, l, o):
# generated names never collide as look-alikes and read back unambiguously.
GUEST_NAME_ALPHABET = "abcdefghjknpqrstuvwxyz23456789"
GUEST_NAME_LENGTH = 6
# Guest accounts one client address may make per hour: they are made without any sign-up.
GUESTS_PER_HOUR = 10
GUEST_WINDOW = timedelta(hours=1)
# The game "Play now" starts when the button does not say.
DEFAULT_KIND = "circles"


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


def computer_game_start(*, user: User, kind: str = DEFAULT_KIND) -> Game:
    """A game of `kind` between `user` and the easiest computer player, started at once."""
    try:
        game_kind = registry.get(kind)
    except registry.UnknownKind:
        raise GameInvalid("unknown_kind", "There is no such game.") from None
    computer = services.SeatSpec(ai_level=game_kind.ai_levels[0])
    return services.game_create(
        creator=user, kind=kind, opponents=[computer] * (game_kind.rules.min_seats - 1)
    )


def guest_game_start(*, user: User | None, kind: str = DEFAULT_KIND) -> tuple[User, Game]:
    """ "Play now": a game of `kind` against the computer for `user`, or for a new guest when
    `user` is None (made in the same transaction, so a refused game leaves no guest behind)."""
    with transaction.atomic():
        player = user if user is not None else guest_create()
        return player, computer_game_start(user=player, kind=kind)


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


def guests_remove_idle(*, idle_for: timedelta | None = None, now: datetime | None = None) -> int:
    """Remove every guest not seen for `idle_for` (GUESTS_IDLE_DAYS); returns how many.

    Their games against computers alone go with them. A guest who also played people is
    anonymised instead, as a deleted account (accounts.deletion): their games in play are
    resigned and the finished ones keep the seat, shown as "deleted player".
    """
    cutoff = (now or timezone.now()) - (idle_for or timedelta(days=idle_days()))
    idle = list(_idle_guests(cutoff).values_list("pk", flat=True).order_by("pk"))
    removed = 0
    for guest_id in idle:
        if _guest_remove(guest_id=guest_id, cutoff=cutoff):
            removed += 1
    return removed


def _idle_guests(cutoff: datetime):
    return User.objects.filter(
        is_guest=True, deleted_at__isnull=True, date_joined__lt=cutoff
    ).filter(Q(last_login__isnull=True) | Q(last_login__lt=cutoff))


def _guest_remove(*, guest_id: int, cutoff: datetime) -> bool:
    with transaction.atomic():
        guest = _idle_guests(cutoff).select_for_update().filter(pk=guest_id).first()
        if guest is None:  # came back, or upgraded, meanwhile
            return False
        somebody_else = Seat.objects.filter(game=OuterRef("pk"), user__isnull=False).exclude(
            user=guest
        )
        try:
            with transaction.atomic():
                Game.objects.filter(seats__user=guest).exclude(Exists(somebody_else)).delete()
                if not Seat.objects.filter(user=guest).exists():
                    guest.delete()
                    return True
        except ProtectedError:  # something else keeps a reference: anonymise instead
            pass
        account_anonymise(user=guest)
    return True
