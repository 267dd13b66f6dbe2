"""The steps every change of a game is made of, shared by the services that make them
(services, invitations, deadlines, reminders, account deletion): lock the game, find who acts,
check they may, start it, apply a move, finish it, and announce the change (`game_commit`: its
notifications queued in its transaction, its frames published once committed).

Not an API of their own: each expects to run inside the service's transaction, on a game locked
with `game_lock`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from greycircle.games import clocks, events, registry, selectors
from greycircle.games.engine import IllegalMove, Outcome
from greycircle.games.errors import GameConflict, GameInvalid, GameNotFound, GamePermissionDenied
from greycircle.games.models import DeadlineNotice, Game, GameStatus, InvitationStatus, Move, Seat
from greycircle.ratings.services import ratings_record
from greycircle.runtime.db_rows import row_update_and_insert

if TYPE_CHECKING:
    from accounts.models import User

computer_to_move = Signal()
"""Sent by `game_committed` when a committed change leaves a computer seat to move; arguments
`game_id` and `version`. greycircle.games.tasks queues the computer's turn (connected in
`GamesConfig.ready()`): the task that plays it comes back through these steps, so they may not
import it."""


def game_start_if_ready(game: Game) -> bool:
    """Start the locked, open `game` if no seat is open and no invitation waits for an answer."""
    seats = list(game.seats.all())
    if any(seat.is_open for seat in seats):
        return False
    if game.invitations.filter(status=InvitationStatus.PENDING).exists():
        return False
    game_start(game, seat_count=len(seats))
    return True


def invitations_close(game: Game, *, status: str) -> None:
    """Close every pending invitation of `game` (withdrawn or aborted before it started)."""
    game.invitations.filter(status=InvitationStatus.PENDING).update(
        status=status, answered_at=timezone.now()
    )


def game_withdraw(game: Game) -> None:
    """Cancel the locked, not yet started `game`: over, with no outcome (nobody won or lost)."""
    invitations_close(game, status=InvitationStatus.CANCELLED)
    game.status = GameStatus.CANCELLED
    game.to_move = None
    game.finished_at = timezone.now()


def game_lock(game_id: int) -> Game:
    """The game row, locked for this transaction, with its seats attached."""
    game = Game.objects.locked_with_seats(game_id)
    if game is None:
        raise GameNotFound("not_found", "No such game.")
    return game


def seat_of(game: Game, user: User) -> Seat:
    """`user`'s seat; refused as "not a player", or as "no such game" to someone who may not
    even see it (an unlisted game, a block: `selectors.game_visible_to`)."""
    for seat in game.seats.all():
        if seat.user_id == user.pk:
            return seat
    if not selectors.game_visible_to(game=game, viewer=user):
        raise GameNotFound("not_found", "No such game.")
    raise GamePermissionDenied("not_a_player", "You are not playing in this game.")


def check_can_act(game: Game, *, seat: Seat, expected_version: int) -> None:
    if expected_version != game.version:
        raise GameConflict(
            "stale_version",
            f"The game has changed since version {expected_version}; it is now at "
            f"version {game.version}.",
            current_version=game.version,
        )
    if game.status != GameStatus.ACTIVE:
        raise GameInvalid("game_not_active", "This game is not in play.")
    if seat.is_computer:
        raise GamePermissionDenied(
            "seat_taken_over", "Your time ran out: the computer plays your seat now."
        )
    if game.to_move != seat.index:
        waiting_for = game.seats.all()[game.to_move].name
        raise GamePermissionDenied("not_your_turn", f"It is {waiting_for}'s turn, not yours.")


def ai_turn_pending(game: Game, *, expected_version: int) -> bool:
    if game.status != GameStatus.ACTIVE or game.version != expected_version:
        return False
    if game.to_move is None:
        return False
    return game.seats.all()[game.to_move].is_computer


def game_start(game: Game, *, seat_count: int) -> None:
    rules = registry.get(game.kind).rules
    state = rules.new_game(seat_count, seed=game.seed, options=game.options)
    game.state = rules.encode(state)
    game.status = GameStatus.ACTIVE
    game.to_move = rules.to_move(state)
    clocks.clock_start(game, seat_count=seat_count, now=timezone.now())
    deadline_reset(game)
    game.version += 1


def game_finish(game: Game, outcome: Outcome, *, final_move_by: User | None = None) -> None:
    """`final_move_by`: the person whose move (not stored yet) ends the game, if one does."""
    game.status = GameStatus.FINISHED
    game.outcome = outcome.to_json()
    game.to_move = None
    game.finished_at = timezone.now()
    deadline_reset(game)
    game.outcome["rating"] = ratings_record(
        game=game,
        winners=outcome.winners,
        final_move_by=final_move_by.pk if final_move_by else None,
    )


def deadline_reset(game: Game) -> None:
    """Start the time per move of the seat now to move, or clear it: it runs only while the
    game is in play, a person is to move, and at least two people play (no time limit against
    computers). Called wherever `to_move` changes, and after each move of the same seat.

    A live game has no time per move but clocks (greycircle.games.clocks): the seat to move's
    runs while the game is in play, a computer's included, unless a computer took the seat over
    from a player whose time ran out."""
    seats = game.seats.all()
    if game.clock_initial_ms is not None:
        # Its `deadline_notice` says whether a player abandoned it, whatever the moves
        # (greycircle.games.abandonment).
        game.move_deadline = None
        running = (
            game.status == GameStatus.ACTIVE
            and game.to_move is not None
            and not seats[game.to_move].is_taken_over
        )
        game.flag_at = clocks.flag_at_of(game, running=running)
        return
    game.deadline_notice = DeadlineNotice.NONE
    people = [seat.index for seat in seats if seat.is_person]
    if game.status == GameStatus.ACTIVE and game.to_move in people and len(people) >= 2:
        game.move_deadline = timezone.now() + timedelta(days=game.days_per_move)
    else:
        game.move_deadline = None


# What a move changes in its game's row (the rest, such as its options or seats, stays).
MOVE_CHANGES = (
    "state",
    "to_move",
    "status",
    "outcome",
    "finished_at",
    "move_deadline",
    "deadline_notice",
    "clock_remaining_ms",
    "clock_moved",
    "clock_started_at",
    "flag_at",
    "version",
    "move_count",
    "updated_at",
)


def move_apply(
    game: Game,
    *,
    seat: Seat,
    move: Any,
    player: User | None,
    idempotency_key: str = "",
    imported: bool = False,
    state: Any = None,
    arrived_at: datetime | None = None,
) -> Move:
    """Play `move` on the locked `game`; store the state and the log entry (returned).

    In a live game the mover's clock is charged up to `arrived_at` (when the move came in; now
    if not given). The caller announces the change (`game_commit(game, moves=[...])`).
    """
    rules = registry.get(game.kind).rules
    before = selectors.game_state_of(game=game) if state is None else state
    try:
        after = rules.play(before, move)
    except IllegalMove as error:
        raise GameInvalid(error.code, error.message) from None
    entry = rules.log_entry(before, move, after)
    game.state = rules.encode(after)
    selectors.game_state_remember(game=game, state=after)
    game.to_move = rules.to_move(after)
    if game.clock_initial_ms is not None:
        now = timezone.now()
        if seat.is_taken_over:  # its clock stopped when its flag fell; the next seat's starts
            clocks.clock_restart(game, now=now)
        else:
            clocks.clock_charge(
                game,
                seat=seat.index,
                turn_over=game.to_move != seat.index,
                arrived_at=arrived_at or now,
                now=now,
            )
    outcome = rules.outcome(after)
    if outcome is not None:
        game_finish(game, outcome, final_move_by=player)
    else:
        deadline_reset(game)
    game.version += 1
    game.move_count += 1
    entry_row = Move(
        game=game,
        number=game.move_count,
        seat=seat.index,
        player=player,
        data=rules.move_to_json(move),
        public=entry.public,
        private={str(index): detail for index, detail in entry.private.items()},
        idempotency_key=idempotency_key,
        imported=imported,
    )
    # Every move writes these two rows: by SQL written once (greycircle.runtime.db_rows), as
    # `save()` would write them, in one statement on PostgreSQL.
    row_update_and_insert(game, MOVE_CHANGES, entry_row)
    return entry_row


def game_commit(
    game: Game,
    *,
    moves: Sequence[Move] = (),
    created: bool = False,
    joined: Seat | None = None,
    ended: bool = False,
    cancelled: bool = False,
) -> None:
    """Announce the change just made to the locked `game`, last thing in its transaction: tell
    what happened now (`events.game_news`: the inbox queues the players' notifications as a task
    row of this transaction, so they commit or roll back with the change and no failure after
    the commit can lose them), and publish it once committed (`game_committed`). A move that
    finished the game ended it."""
    ended = ended or (bool(moves) and game.status == GameStatus.FINISHED)
    events.game_news(game=game, created=created, joined=joined, ended=ended, cancelled=cancelled)
    transaction.on_commit(lambda: game_committed(game, moves=moves))


def game_committed(
    game: Game,
    *,
    moves: Sequence[Move] = (),
) -> None:
    """After commit (`game_commit`): wake a computer seat to move, and send everyone who watches
    the game its new envelope (with the change's new log entries `moves`).

    The computer's turn is queued first, so that a failure while publishing never leaves it to
    the stall sweep.
    """
    if game.status == GameStatus.ACTIVE and game.seats.all()[game.to_move].is_computer:
        computer_to_move.send(sender=Game, game_id=game.pk, version=game.version)
    events.game_envelopes_send(game=game, moves=moves)
