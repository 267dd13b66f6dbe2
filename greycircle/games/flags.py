"""A live game's flag: what happens when the running seat's time is up (greycircle.games.clocks).

The seat to move of a live game has until `Game.flag_at`. Past it:

- in its first turn, the game is aborted: nobody played it, so it is rated for nobody (its
  outcome says why: `{"reason": "no_first_move", "seat": ...}`, no winners);
- in a kind whose rules let a computer take over, with three or more seats, the computer takes
  the seat over and plays on, as with days per move (greycircle.games.deadlines); the seat's
  clock stops;
- otherwise the seat loses on time (reason `timeout`) and every other seat wins.

The flag falls on its own, with no request from anyone: `flags_fall` ends every game whose flag
is due, and the clocks' loop of every task worker (and of the embedded site) runs it as each
flag comes due (`flag_next_at`, registered as a timer: greycircle.runtime.timers). A move that
arrives after the flag makes it fall instead of being played (`services.move_submit`), and so
does a computer's move thought past it (`services.ai_take_turn`). Each runs on the game's locked
row and checks the flag again under the lock, so whichever of a move, a loop or another worker's
loop takes the lock first decides, and the game ends exactly once. The loops skip a game whose
row another holds (`skip_locked`) rather than queue behind it: two workers' loops share the due
games between them instead of taking them in turn, and a game skipped because a move held it is
still due (or no longer) at the loop's next look, a few hundredths of a second later.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import DatabaseError, transaction
from django.utils import timezone

from greycircle.games import clocks
from greycircle.games.changes import deadline_reset, game_commit, game_finish, game_lock
from greycircle.games.deadlines import seat_take_over
from greycircle.games.engine import Outcome
from greycircle.games.errors import GameNotFound
from greycircle.games.models import Game, GameStatus
from greycircle.games.results import ABORT_NO_FIRST_MOVE
from greycircle.games.selectors import takeover_level_for

logger = logging.getLogger(__name__)

FLAG_ABORTED = "aborted"
FLAG_TAKEN_OVER = "taken_over"
FLAG_TIMEOUT = "timeout"


def flag_is_due(game: Game, *, now: datetime) -> bool:
    """Whether the running seat's time in `game` is up at `now`."""
    return game.status == GameStatus.ACTIVE and game.flag_at is not None and game.flag_at <= now


def flag_fall(game: Game, *, now: datetime) -> str:
    """End the running seat's time in the locked `game`, whose flag is due (`flag_is_due`):
    abort the game, take the seat over, or make the seat lose on time. What was done."""
    seat = game.seats.all()[game.to_move]
    if clocks.is_first_turn(game, seat.index):
        game.status = GameStatus.ABORTED
        game.outcome = {"reason": ABORT_NO_FIRST_MOVE, "seat": seat.index}
        game.to_move = None
        game.finished_at = now
        deadline_reset(game)
        game.version += 1
        game.save()
        game_commit(game, ended=True)
        return FLAG_ABORTED
    clocks.clock_charge(game, seat=seat.index, turn_over=False, arrived_at=now, now=now)
    level = takeover_level_for(game=game)
    if level is not None:
        seat_take_over(game, seat, level=level, now=now)
        return FLAG_TAKEN_OVER
    seat_count = len(game.seats.all())
    outcome = Outcome(
        scores=[0] * seat_count,
        winners=[index for index in range(seat_count) if index != seat.index],
        reason="timeout",
    )
    game_finish(game, outcome)
    game.version += 1
    game.save()
    game_commit(game, ended=True)
    return FLAG_TIMEOUT


def lost_on_time(game: Game, *, seat: int) -> bool:
    """Whether `seat` lost the live `game` on time (its flag fell: the game is over)."""
    outcome = game.outcome or {}
    return (
        game.clock_initial_ms is not None
        and game.status == GameStatus.FINISHED
        and outcome.get("reason") == FLAG_TIMEOUT
        and seat not in (outcome.get("winners") or [])
    )


def flag_next_at() -> datetime | None:
    """When the next flag of a game in play falls (one query on the partial index of
    `flag_at`); None if no clock runs."""
    return (
        Game.objects.filter(flag_at__isnull=False, status=GameStatus.ACTIVE)
        .order_by("flag_at")
        .values_list("flag_at", flat=True)
        .first()
    )


def flags_fall(*, now: datetime | None = None) -> dict[int, str]:
    """End the time of every live game whose flag is due by `now`, each in its own transaction,
    the game locked and its flag checked again; {game id: what was done} for those this call
    ended (another worker, or a move, may have got to the others first)."""
    now = now or timezone.now()
    due = list(
        Game.objects.filter(flag_at__lte=now, status=GameStatus.ACTIVE)
        .order_by("flag_at")
        .values_list("pk", flat=True)
    )
    fallen: dict[int, str] = {}
    for game_id in due:
        try:
            with transaction.atomic():
                if not _row_lock_or_skip(game_id):
                    continue  # held by a move or another loop, or gone: they decide
                try:
                    game = game_lock(game_id)
                except GameNotFound:
                    continue
                if flag_is_due(game, now=now):
                    # A loop behind the clock (timers.py) still records the real time.
                    fallen[game_id] = flag_fall(game, now=max(now, timezone.now()))
                    logger.info("game %s: flag fell (%s)", game_id, fallen[game_id])
        except DatabaseError:
            raise  # the loop logs it and tries again
        except Exception:  # one broken game must not hold up every other game's flag
            logger.exception("could not end the time of game %s", game_id)
    return fallen


def _row_lock_or_skip(game_id: int) -> bool:
    """Lock the row of game `game_id` for this transaction unless another holds it (no wait);
    whether it is locked now. On SQLite, which locks the whole database, always True."""
    locked = Game.objects.select_for_update(skip_locked=True).filter(pk=game_id)
    return bool(list(locked.values_list("pk", flat=True)))
