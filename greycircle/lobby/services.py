"""Every change to the lobby: seeks made and cancelled, seekers paired into games, live seeks let
go of when their seekers leave.

Pairing (`seeks_pair`) runs right after each seek is made, for its pool, and each second for
every pool with seekers (`lobby_sweep`, a sweep of every task worker), since the windows widen
while seekers wait (greycircle.lobby.pairing). One pool is paired in one transaction: its
waiting seeks are read with their rows locked (`select_for_update(skip_locked=True)` on
PostgreSQL: a seek another pairing holds is left to it rather than waited for), each group's game
is created with every seat taken (`games.services.game_pair`), and the group's seeks are marked
matched by an update that only matches seeks still waiting. If it matches fewer than the group
(SQLite, which locks no row, or a seek cancelled meanwhile), the whole transaction is rolled
back: no game is created, and the seeks left waiting are paired next time. So two seekers racing
for one seek never both get it, and no seek makes two games. Once committed, each player hears
`{"type": "game_started"}` on `ws/me/` and the lobby's sockets the pools' new counts.

Live seeks are tied to the seeker's presence on the site (greycircle.presence: a live socket,
`ws/me/` on every page or `ws/lobby/`): when the seeker's last socket closes through the
lobby's socket their live seeks expire at once (`seeks_left`), and the sweep expires any live seek
whose seeker has had no socket for `LOBBY_LIVE_SEEK_GRACE_SECONDS` since it was made, which also
ends the seeks of an app that seeks over REST and never opens a socket. Correspondence seeks stay
until cancelled or matched.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from greycircle import presence
from greycircle.games import registry
from greycircle.games.clocks import TimeControl
from greycircle.games.errors import GameInvalid, GameNotFound
from greycircle.games.models import DaysPerMove, Game, GameStatus
from greycircle.games.rated_bar import rated_bar_check
from greycircle.games.services import game_pair
from greycircle.lobby import events
from greycircle.lobby.models import Seek, SeekStatus, pool_key
from greycircle.lobby.pairing import groups_of
from greycircle.lobby.selectors import block_pairs_among
from greycircle.ratings.selectors import player_rating_for

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)

# A player's waiting seeks at once (every pool together); one of them at most is live.
SEEKS_MAX = 5
# A custom seek's range of opponents' ratings.
RATING_RANGE_MIN, RATING_RANGE_MAX = 0, 4000
# Ended seeks are kept this long, for the seeker's app to read what became of them (and a
# matched one as long as its game is in play).
ENDED_KEPT = timedelta(days=1)


class _Raced(Exception):
    """A group's seek was no longer waiting when it was to be matched."""


def seek_create(
    *,
    user: User,
    kind: str,
    seats: int | None = None,
    time_control: TimeControl | None = None,
    days_per_move: int | None = None,
    rated: bool = True,
    rating_range: tuple[int, int] | None = None,
    now: datetime | None = None,
) -> Seek:
    """`user` waits in the pool of `kind`, `seats` (the kind's fewest by default) and either a
    `time_control` (live) or `days_per_move` (correspondence; 3 by default), `rated` or casual,
    for opponents within `rating_range` if given (else a window that widens while they wait).
    Paired at once if the pool holds opponents who fit: the seek returned is then matched, with
    its `game`.

    Refused: an unknown kind, seats the kind is not played by, a bad time control or days per
    move, a bad range, a guest in a rated pool, a second seek in one pool or a second live one,
    more than `SEEKS_MAX` waiting seeks."""
    now = now or timezone.now()
    try:
        game_kind = registry.get(kind)
    except registry.UnknownKind:
        raise GameInvalid("unknown_kind", f"There is no game called {kind!r}.") from None
    rules = game_kind.rules
    seats = rules.min_seats if seats is None else seats
    if not rules.min_seats <= seats <= rules.max_seats:
        raise GameInvalid(
            "bad_seats",
            f"{game_kind.title} is played by {rules.min_seats} to {rules.max_seats} players.",
        )
    if time_control is not None and days_per_move is not None:
        raise GameInvalid(
            "bad_time_control", "A seek is live (a time control) or by days per move, not both."
        )
    if time_control is None:
        days_per_move = DaysPerMove.THREE if days_per_move is None else days_per_move
        if days_per_move not in DaysPerMove.values:
            raise GameInvalid(
                "bad_days_per_move",
                f"The time per move is {', '.join(map(str, DaysPerMove.values))} days.",
            )
    if rating_range is not None:
        low, high = rating_range
        if not RATING_RANGE_MIN <= low <= high <= RATING_RANGE_MAX:
            raise GameInvalid(
                "bad_rating_range",
                f"A rating range runs from a lower to a higher rating, within "
                f"{RATING_RANGE_MIN} to {RATING_RANGE_MAX}.",
            )
    if not user.is_active:
        raise GameInvalid("closed_account", "This account is closed.")
    if rated and user.is_guest:
        raise GameInvalid("guest_rated", "Guests play casual games: create an account to be rated.")
    if rated:
        rated_bar_check(user=user, now=now)
    pool = pool_key(
        kind=kind, time_control=time_control, days_per_move=days_per_move, seats=seats, rated=rated
    )
    seek = Seek(
        user=user,
        kind=kind,
        seats=seats,
        clock_minutes=time_control.minutes if time_control else None,
        clock_increment=time_control.increment if time_control else None,
        days_per_move=days_per_move if time_control is None else None,
        rated=rated,
        pool=pool,
        rating_min=rating_range[0] if rating_range else None,
        rating_max=rating_range[1] if rating_range else None,
        created_at=now,
    )
    seek.rating = player_rating_for(user_id=user.pk, kind=kind, speed=seek.speed)
    waiting = list(_waiting().filter(user=user).values_list("pool", "days_per_move"))
    if any(other == pool for other, _ in waiting):
        raise GameInvalid("seek_exists", "You are already waiting in this pool.")
    if time_control is not None and any(days is None for _, days in waiting):
        raise GameInvalid(
            "live_seek_exists", "You are already waiting for a live game: cancel that seek first."
        )
    if time_control is not None and _playing_live(user):
        raise GameInvalid(
            "playing_live", "You are playing a live game: finish it before seeking another."
        )
    if len(waiting) >= SEEKS_MAX:
        raise GameInvalid("too_many_seeks", f"You may wait in at most {SEEKS_MAX} pools at once.")
    try:
        with transaction.atomic():
            seek.save()
    except IntegrityError:
        # The same seek sent twice at once: the constraints let one of them in.
        raise GameInvalid("seek_exists", "You are already waiting in this pool.") from None
    # Paired at once if it can be; the lobby hears of the new seek, or of the game it made.
    if not seeks_pair(pool=pool, now=now):
        transaction.on_commit(events.pools_changed)
    # What pairing made of it (its seeker kept, rather than read again as refresh_from_db would).
    seek.status, seek.game_id, seek.ended_at = (
        Seek.objects.filter(pk=seek.pk).values_list("status", "game_id", "ended_at").get()
    )
    return seek


def _playing_live(user: User) -> bool:
    """Whether `user` holds a seat (not taken over) in a live game in play."""
    return Game.objects.filter(
        status=GameStatus.ACTIVE,
        clock_initial_ms__isnull=False,
        seats__user=user,
        seats__taken_over_at__isnull=True,
    ).exists()


def seek_cancel(*, seek_id: int, user: User, now: datetime | None = None) -> Seek:
    """`user` stops waiting with their seek `seek_id`; refused once it has been matched."""
    with transaction.atomic():
        seek = Seek.objects.select_for_update().filter(pk=seek_id, user=user).first()
        if seek is None:
            raise GameNotFound("not_found", "No such seek of yours.")
        if seek.status != SeekStatus.WAITING:
            raise GameInvalid("not_waiting", f"This seek is {seek.status}, not waiting.")
        seek.status = SeekStatus.CANCELLED
        seek.ended_at = now or timezone.now()
        seek.save(update_fields=["status", "ended_at"])
        transaction.on_commit(events.pools_changed)
    return seek


def seeks_pair(*, pool: str, now: datetime | None = None) -> list[Game]:
    """Pair the seekers of `pool` who fit each other at `now` (see the module); the games made.
    A pairing that raced another one makes nothing (its seeks are paired by a later call)."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            seeks = list(
                _locked(
                    _waiting()
                    .filter(pool=pool, user__is_active=True)
                    # A seeker barred from rated games since seeking waits (rated_bar).
                    .exclude(rated=True, user__rated_barred_until__gt=now)
                )
            )
            if len(seeks) < 2:
                return []
            first = seeks[0]
            groups = groups_of(
                seeks,
                seats=first.seats,
                now=now,
                blocks=block_pairs_among(user_ids={seek.user_id for seek in seeks}),
            )
            games = []
            for group in groups:
                try:
                    games.append(_group_pair(group, now=now))
                except GameInvalid as refusal:
                    # Its seekers changed since the pool was read (a block made, an account
                    # closed): the group is left, the pool's other groups still paired.
                    logger.info("a group of %s could not be seated: %s", pool, refusal.detail)
            if games:
                transaction.on_commit(events.pools_changed)
            return games
    except _Raced:
        logger.info("the pairing of %s raced another one: left to the next", pool)
        return []


def _group_pair(group: list[Seek], *, now: datetime) -> Game:
    """The game of `group` (one pool's seeks), its seeks matched, in a savepoint of the pool's
    transaction; `_Raced` if a seek was no longer waiting."""
    first = group[0]
    with transaction.atomic():
        # Told first once committed, before the game's own frames are made.
        made: list[Game] = []
        transaction.on_commit(lambda: events.game_started(game=made[0], seeks=group))
        game = game_pair(
            players=[seek.user for seek in group],
            kind=first.kind,
            time_control=first.time_control,
            days_per_move=first.days_per_move or DaysPerMove.THREE,
            rated=first.rated,
        )
        matched = Seek.objects.filter(
            pk__in=[seek.pk for seek in group], status=SeekStatus.WAITING
        ).update(status=SeekStatus.MATCHED, game=game, ended_at=now)
        if matched != len(group):
            raise _Raced
        made.append(game)
    return game


def seeks_left(*, user_id: int, now: datetime | None = None) -> int:
    """A socket of `user_id` closed: if it was their last, their live seeks expire now (the
    number expired)."""
    if presence.user_is_online(user_id):
        return 0
    return _expire(_waiting().filter(user_id=user_id, days_per_move__isnull=True), now=now)


def seeks_absent_expire(*, now: datetime | None = None) -> int:
    """Expire the live seeks whose seekers have no socket and were made more than the grace ago,
    and every waiting seek of a closed account (the number expired)."""
    now = now or timezone.now()
    grace = timedelta(seconds=float(settings.LOBBY_LIVE_SEEK_GRACE_SECONDS))
    live = _waiting().filter(days_per_move__isnull=True, created_at__lte=now - grace)
    seekers = set(live.values_list("user_id", flat=True))
    absent = seekers - presence.users_online(seekers)
    closed = _waiting().filter(user__is_active=False)
    return _expire(live.filter(user_id__in=absent), now=now) + _expire(closed, now=now)


def lobby_sweep(*, now: datetime | None = None) -> list[Game]:
    """The lobby's periodic work (each `LOBBY_SWEEP_SECONDS` in every task worker): let go of
    absent seekers' live seeks, pair every pool with at least two seekers as their windows now
    allow, delete seeks ended more than `ENDED_KEPT` ago, and send the lobby the pools' counts
    if they changed otherwise (games ended). The games made."""
    now = now or timezone.now()
    seeks_absent_expire(now=now)
    pools = (
        _waiting()
        .values("pool")
        .annotate(seekers=Count("pk"))
        .filter(seekers__gte=2)
        .values_list("pool", flat=True)
    )
    games = [game for pool in list(pools) for game in seeks_pair(pool=pool, now=now)]
    # (A seek whose game is still in play is kept: its players count as playing in its pool.)
    Seek.objects.filter(~Q(status=SeekStatus.WAITING), ended_at__lt=now - ENDED_KEPT).exclude(
        game__status=GameStatus.ACTIVE
    ).delete()
    # A game a pool paired ended: its players no longer count as playing there.
    events.pools_resend_if_changed()
    return games


def _waiting() -> QuerySet[Seek]:
    return Seek.objects.filter(status=SeekStatus.WAITING)


def _locked(seeks: QuerySet[Seek]) -> Iterable[Seek]:
    """The waiting `seeks`, oldest first, with their seekers; locked where the database can
    (rows another transaction holds are skipped: they are being paired)."""
    seeks = seeks.select_related("user").order_by("created_at", "pk")
    if connection.features.has_select_for_update_skip_locked:
        seeks = seeks.select_for_update(skip_locked=True, of=("self",))
    return seeks


def _expire(seeks: QuerySet[Seek], *, now: datetime | None) -> int:
    expired = seeks.update(status=SeekStatus.EXPIRED, ended_at=now or timezone.now())
    if expired:
        transaction.on_commit(events.pools_changed)
    return expired
