"""A guest's games: "Play now as a guest" makes a guest account (accounts.guests) and a game
against the computer in one click, and the task worker removes guests idle for GUESTS_IDLE_DAYS
(`guests_remove_idle`, registered as a sweep in greycircle/players/apps.py) with the games they
played alone.

The guest account itself (its generated name, the visits that keep it alive, becoming a full
account) is accounts': it knows no game.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef, ProtectedError, Q
from django.utils import timezone

from accounts.guests import guest_create, idle_days
from accounts.models import User
from greycircle.games import registry, services
from greycircle.games.errors import GameInvalid
from greycircle.games.models import Game, Seat
from greycircle.players.deletion import account_anonymise

# The game "Play now" starts when the button does not say.
DEFAULT_KIND = "circles"


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


def guests_remove_idle(*, idle_for: timedelta | None = None, now: datetime | None = None) -> int:
    """Remove every guest not seen for `idle_for` (GUESTS_IDLE_DAYS); returns how many.

    Their games against computers alone go with them. A guest who also played people is
    anonymised instead, as a deleted account (greycircle.players.deletion): their games in play are
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
