"""Time per move in games between people: reminders, winning on time, computer takeover.

Each game has a time per move (`Game.days_per_move`: 1, 3 or 7 days). While a game between at
least two people is in play and a person is to move, `Game.move_deadline` says when their time
runs out; every move starts it again (`changes.deadline_reset`, wherever `to_move` changes).
Against computers there is no deadline: a computer's slow turn is the stall sweep's business.

`deadlines_check`, run periodically by every task worker (greycircle.games.sweeps), finds the
games whose deadline is near or past with one indexed query (`status`, `move_deadline`) and
handles each in its own transaction, the game locked and its deadline checked again:

- less than a day left (half the time per move when that is one day): the player to move is
  reminded, once per deadline (`time_running_out`);
- time is up, in a kind whose rules let a computer take over (`GameKind.takeover_level`) with
  three or more seats: the computer takes over the absent player's seat and plays on
  (`seat_taken_over` to that player); they keep their seat, so they still see the game;
- time is up otherwise: the others may claim the win (`game_claim_win`; `can_claim` in the
  envelope). Nothing about the game changes but its version, so that every open page learns it
  (`win_claimable` to the others). The late player may still move until somebody claims.

`Game.deadline_notice` records what was done for the current deadline, so that several workers
running the check at once, or one running it again, never remind or take over twice.

A live game has clocks instead (greycircle.games.clocks, greycircle.games.flags), and its win is
claimed against a player who abandoned it (greycircle.games.abandonment): `abandonments_check`,
a sweep every worker runs each second, announces it once when a player's gone-time passes (and
once more should they come back), by the same `deadline_notice`.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from django.db import DatabaseError, transaction
from django.db.models import Q
from django.utils import timezone

from greycircle import presence
from greycircle.games import abandonment, events
from greycircle.games.changes import (
    deadline_reset,
    game_commit,
    game_finish,
    game_lock,
    seat_of,
)
from greycircle.games.engine import Outcome
from greycircle.games.errors import GameInvalid, GameNotFound, GamePermissionDenied
from greycircle.games.models import DaysPerMove, DeadlineNotice, Game, GameStatus, Seat
from greycircle.games.selectors import takeover_level_for

if TYPE_CHECKING:
    from accounts.models import User

logger = logging.getLogger(__name__)

# The player to move is reminded this long before their time runs out...
REMINDER_BEFORE = timedelta(days=1)


def reminder_before(days_per_move: int) -> timedelta:
    """...or half their time per move, if that is less (so a one-day game does not remind a
    player the moment their turn starts)."""
    return min(REMINDER_BEFORE, timedelta(days=days_per_move) / 2)


@dataclass
class DeadlinesChecked:
    """What one `deadlines_check` did: the ids of the games concerned."""

    reminded: list[int] = field(default_factory=list)
    claimable: list[int] = field(default_factory=list)
    taken_over: list[int] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.reminded or self.claimable or self.taken_over)


def deadlines_check(*, now: datetime | None = None) -> DeadlinesChecked:
    """Remind the players whose time runs out soon; take over or open to claims the seats of
    those whose time is up. Each game in its own transaction; safe to run anywhere, any time."""
    now = now or timezone.now()
    due = (
        Game.objects.filter(status=GameStatus.ACTIVE, move_deadline__lte=now + REMINDER_BEFORE)
        .filter(_due(now))
        .order_by("move_deadline")
        .values_list("pk", flat=True)
    )
    checked = DeadlinesChecked()
    for game_id in list(due):
        try:
            with transaction.atomic():
                done = _deadline_handle(game_id, now=now)
        except DatabaseError:
            raise  # the worker's loop logs it and tries again later
        except Exception:  # one broken game must not hold up every other game's deadline
            logger.exception("could not handle the deadline of game %s", game_id)
            continue
        if done is not None:
            getattr(checked, done).append(game_id)
    return checked


def game_claim_win(*, game_id: int, user: User, now: datetime | None = None) -> Game:
    """`user` wins on time: the person to move has run out of it.

    In a live game: another person abandoned it (greycircle.games.abandonment; `time_not_up`
    while nobody has, with `retry_after` and the `deadline` once somebody left), and the
    abandoned seats lose; otherwise as follows.

    Only a player seated in the game (`not_a_player`), not the one to move (`your_turn`), in a
    game in play whose player to move has a deadline (`no_deadline`) that has passed
    (`time_not_up`, with `retry_after` seconds and the `deadline`), and where no computer is to
    take the absent player's seat over instead (`takeover_instead`). Every seat but the absent
    player's wins (in a game of two, the claimant), for the reason "timeout".
    """
    with transaction.atomic():
        game = game_lock(game_id)
        seat = seat_of(game, user)
        now = now or timezone.now()
        if game.status != GameStatus.ACTIVE:
            raise GameInvalid("game_not_active", "Only a game in play can be won on time.")
        if seat.is_computer:
            raise GamePermissionDenied(
                "seat_taken_over", "Your time ran out: the computer plays your seat now."
            )
        if game.clock_initial_ms is not None:
            return _abandoned_claim(game, seat, now=now)
        if game.to_move == seat.index:
            raise GameInvalid("your_turn", "It is your turn: the time running is yours.")
        if game.move_deadline is None:
            raise GameInvalid("no_deadline", "No player's time is running in this game.")
        absent = game.seats.all()[game.to_move]
        if takeover_level_for(game=game) is not None:
            raise GameInvalid(
                "takeover_instead",
                f"When {absent.name}'s time runs out the computer takes over their seat: "
                "nobody wins this game on time.",
            )
        if game.move_deadline > now:
            left = game.move_deadline - now
            raise GameInvalid(
                "time_not_up",
                f"{absent.name} still has time to move: {time_left_words(left)}.",
                retry_after=max(1, math.ceil(left.total_seconds())),
                deadline=game.move_deadline,
            )
        seat_count = len(game.seats.all())
        outcome = Outcome(
            scores=[0] * seat_count,
            winners=[index for index in range(seat_count) if index != absent.index],
            reason="timeout",
        )
        game_finish(game, outcome)
        game.version += 1
        game.save()
        game_commit(game, ended=True)
    return game


def abandonments_check(*, now: datetime | None = None) -> dict[int, bool]:
    """Announce to the others of every live game that a player abandoned it, or came back (see
    greycircle.games.abandonment), each once. One query (the people seated in live games, as
    tuples: 200 games cost a few milliseconds) and one presence read find the games whose
    announcement is out of date; each of those is then checked in full, and again under its
    lock. {game id: whether its win can be claimed now} for those announced."""
    now = now or timezone.now()
    people = list(
        Seat.objects.filter(
            game__status=GameStatus.ACTIVE,
            game__flag_at__isnull=False,
            user__isnull=False,
            ai_level="",
        ).values_list("game_id", "index", "user_id", "game__clock_moved", "game__deadline_notice")
    )
    gone_since = presence.users_gone_since({row[2] for row in people}, now=now.timestamp())
    was_announced: dict[int, bool] = {}
    someone_gone: set[int] = set()
    for game_id, index, user_id, moved, notice in people:
        was_announced[game_id] = notice == DeadlineNotice.EXPIRED
        if abandonment.seat_abandoned(
            moved=moved[index], gone_since=gone_since.get(user_id), now=now
        ):
            someone_gone.add(game_id)
    announced: dict[int, bool] = {}
    for game_id, was in was_announced.items():
        if (game_id in someone_gone) == was:
            continue
        game = Game.objects.get_with_seats(game_id)
        if game is None or not _abandonable(game):  # King's Corner for three: the clock's
            continue
        try:
            with transaction.atomic():
                if _abandonment_announce(game_id, now=now):
                    announced[game_id] = not was
        except DatabaseError:
            raise  # the loop logs it and tries again
        except Exception:  # one broken game must not hold up every other game's claim
            logger.exception("could not announce the abandonment of game %s", game_id)
    return announced


def abandonments_period() -> timedelta:
    """How often every worker looks for abandoned live games (a sweep, registered from
    GamesConfig.ready()): a gone-time of half a minute needs no finer precision."""
    return timedelta(seconds=1)


def time_left_words(left: timedelta) -> str:
    """How much time is left, never more than there is: "2 days 5 hours left", "3 hours left",
    "12 minutes left", "less than a minute left"; "time is up" when none is."""
    seconds = int(left.total_seconds())
    if seconds <= 0:
        return "time is up"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        words = _count(days, "day") + (f" {_count(hours, 'hour')}" if hours else "")
    elif hours:
        words = _count(hours, "hour")
    elif minutes:
        words = _count(minutes, "minute")
    else:
        words = "less than a minute"
    return f"{words} left"


def _count(amount: int, unit: str) -> str:
    return f"{amount} {unit}{'' if amount == 1 else 's'}"


# --- internals ------------------------------------------------------------------------------


def _due(now: datetime) -> Q:
    """Games with something to do: time up and not handled yet, or a reminder due."""
    reminder_due = Q()
    for days in DaysPerMove.values:
        reminder_due |= Q(days_per_move=days, move_deadline__lte=now + reminder_before(days))
    return Q(move_deadline__lte=now) & ~Q(deadline_notice=DeadlineNotice.EXPIRED) | Q(
        reminder_due, deadline_notice=DeadlineNotice.NONE
    )


def _deadline_handle(game_id: int, *, now: datetime) -> str | None:
    """Handle the deadline of one game, locked; what was done ("reminded", "claimable",
    "taken_over"), or None if nothing was left to do (somebody moved meanwhile, another worker
    got there first)."""
    try:
        game = game_lock(game_id)
    except GameNotFound:
        return None
    deadline = game.move_deadline
    if game.status != GameStatus.ACTIVE or deadline is None or game.to_move is None:
        return None
    absent = game.seats.all()[game.to_move]
    if deadline <= now:
        if game.deadline_notice == DeadlineNotice.EXPIRED:
            return None
        level = takeover_level_for(game=game)
        if level is not None:
            seat_take_over(game, absent, level=level, now=now)
            return "taken_over"
        game.deadline_notice = DeadlineNotice.EXPIRED
        # Nothing else changes, but every page must learn that the win can be claimed.
        game.version += 1
        game.save(update_fields=["deadline_notice", "version", "updated_at"])
        _claimable_announce(game, absent=absent)
        return "claimable"
    if game.deadline_notice == DeadlineNotice.NONE and deadline <= now + reminder_before(
        game.days_per_move
    ):
        game.deadline_notice = DeadlineNotice.REMINDED
        game.save(update_fields=["deadline_notice"])  # not a change anybody's page shows
        events.notify(
            user_id=absent.user_id,
            event="time_running_out",
            game=game.pk,
            kind=game.kind,
            # The position it is about: a second delivery of it, or one after the next move,
            # changes nothing (greycircle.notifications.services, version order).
            version=game.version,
            deadline=deadline,
        )
        return "reminded"
    return None


def seat_take_over(game: Game, seat: Seat, *, level: str, now: datetime) -> None:
    """The computer at `level` plays `seat` of the locked `game` from now on; its player keeps
    the seat (and sees the game from it) but can no longer move."""
    seat.ai_level = level
    seat.taken_over_at = now
    seat.save(update_fields=["ai_level", "taken_over_at"])
    deadline_reset(game)  # the computer is to move: no deadline
    game.version += 1
    game.save()
    game_commit(game)  # queues the computer's turn and sends the new envelopes once committed
    events.notify(
        user_id=seat.user_id, event="seat_taken_over", game=game.pk, kind=game.kind, level=level
    )


def _claimable_announce(game: Game, *, absent: Seat) -> None:
    """Tell the others of the locked `game` that they may claim the win against `absent`, in
    the deadline's transaction, and every page the new envelopes once it is committed."""
    transaction.on_commit(lambda: events.game_envelopes_send(game=game))
    for seat in game.seats.all():
        if seat.is_person and seat.index != absent.index:
            events.notify(
                user_id=seat.user_id,
                event="win_claimable",
                game=game.pk,
                kind=game.kind,
                player=absent.name,
            )


def _abandoned_claim(game: Game, seat: Seat, *, now: datetime) -> Game:
    """`game_claim_win` in the locked live `game`, for the person at `seat`."""
    if takeover_level_for(game=game) is not None:
        raise GameInvalid(
            "takeover_instead",
            "When an absent player's time runs out the computer takes over their seat: "
            "nobody wins this game on time.",
        )
    gone_since = presence.users_gone_since(abandonment.users_of([game]), now=now.timestamp())
    gone = [
        index
        for index in abandonment.seats_abandoned(game, now=now, gone_since=gone_since)
        if index != seat.index
    ]
    if not gone:
        opens = abandonment.claim_opens_at(game, claimant=seat.index, gone_since=gone_since)
        if opens is None:
            raise GameInvalid("time_not_up", "Everybody is still at the table.")
        left = opens - now.timestamp()
        raise GameInvalid(
            "time_not_up",
            "A player left the table but may still come back: "
            f"{math.ceil(left)} seconds before the win can be claimed.",
            retry_after=max(1, math.ceil(left)),
            deadline=datetime.fromtimestamp(opens, tz=UTC),
        )
    seat_count = len(game.seats.all())
    outcome = Outcome(
        scores=[0] * seat_count,
        winners=[index for index in range(seat_count) if index not in gone],
        reason="timeout",
    )
    game_finish(game, outcome)
    game.version += 1
    game.save()
    game_commit(game, ended=True)
    return game


def _abandonment_announce(game_id: int, *, now: datetime) -> bool:
    """Record in the locked game `game_id` whether its win can be claimed now that a player
    abandoned it or came back, and tell every page; False if nothing changed meanwhile."""
    try:
        game = game_lock(game_id)
    except GameNotFound:
        return False
    if not _abandonable(game):
        return False
    gone = abandonment.seats_abandoned(game, now=now)
    announced = game.deadline_notice == DeadlineNotice.EXPIRED
    if bool(gone) == announced:
        return False  # another worker got there first, or the player came back meanwhile
    game.deadline_notice = DeadlineNotice.EXPIRED if gone else DeadlineNotice.NONE
    game.version += 1
    game.save(update_fields=["deadline_notice", "version", "updated_at"])
    if gone:
        _claimable_announce(game, absent=game.seats.all()[gone[0]])
    else:
        transaction.on_commit(lambda: events.game_envelopes_send(game=game))
    return True


def _abandonable(game: Game) -> bool:
    return abandonment.abandonable(game, takeover=takeover_level_for(game=game) is not None)
