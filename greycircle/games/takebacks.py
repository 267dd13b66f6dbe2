"""Takebacks: in a casual game between two people, a player asks to take back their last move
and the other accepts or declines it (issue 22's casual comforts).

- What is undone: the asker's last move, and the opponent's moves after it if there are any, so
  that it is the asker's turn again (as on lichess). The state is rebuilt by replaying the moves
  that remain from the start (the engine is pure: same seed, same moves, same state) and the
  moves undone leave the log.
- Where: only in a game that is not rated (`Game.rated`), between exactly two people (never
  against a computer: a takeback is a consent between players), of a kind whose rules have no
  hidden information (`GameKind.takebacks`; Circles). Undoing a King's Corner draw would show a
  card for nothing, and the order of the stock with it.
- One request at a time, and one per seat and move number (`Game.takeback_asked`): declined, it
  is not asked again until somebody moves. Any move cancels a request (it holds only at the move
  count it was made at: `selectors.takeback_offer_of`); so does the asker, by declining it.
- A live game's clocks: no time is given back for the moves undone (nor their increments taken
  away). The seat whose clock runs pays for its stretch up to the takeback, as if it had moved,
  and the asker's clock starts at once. A takeback accepted after the running seat's flag fell
  ends the game on time instead (`time_up`).

Asking and declining change only the request: the game's new version goes to its sockets and
nobody is notified (the open page shows it). Accepting is a change of the game like a move (the
asker is told it is their turn again).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from django.db import models, transaction
from django.utils import timezone

from greycircle.games import clocks, flags, registry, selectors
from greycircle.games.changes import deadline_reset, game_commit, game_committed, game_lock, seat_of
from greycircle.games.errors import GameInvalid, GamePermissionDenied
from greycircle.games.models import Game, GameStatus, Seat

if TYPE_CHECKING:
    from accounts.models import User


class TakebackAction(models.TextChoices):
    """What `POST /api/v1/games/{id}/takeback/` does."""

    OFFER = "offer", "Ask to take back my last move"
    ACCEPT = "accept", "Accept the other player's request"
    DECLINE = "decline", "Decline the other player's request, or withdraw mine"


def takeback_offer(*, game_id: int, user: User) -> Game:
    """`user` asks to take back their last move (and the opponent's reply, if any)."""
    with transaction.atomic():
        game = game_lock(game_id)
        seat = seat_of(game, user)
        _check_takebacks(game)
        if selectors.takeback_offer_of(game=game) is not None:
            raise GameInvalid("takeback_pending", "A takeback is already waiting for an answer.")
        if game.takeback_asked.get(str(seat.index)) == game.move_count:
            raise GameInvalid(
                "takeback_already_asked",
                "You already asked to take back this move: ask again after the next move.",
            )
        undone = _moves_to_undo(game, seat=seat)
        game.takeback_offer = {"seat": seat.index, "move_count": game.move_count, "moves": undone}
        game.takeback_asked = {**game.takeback_asked, str(seat.index): game.move_count}
        _request_changed(game)
    return game


def takeback_accept(*, game_id: int, user: User, now: datetime | None = None) -> Game:
    """The opponent of the asker accepts: the moves are undone, and it is the asker's turn."""
    now = now or timezone.now()
    with transaction.atomic():
        game = game_lock(game_id)
        seat = seat_of(game, user)
        offer = _pending(game)
        if offer["seat"] == seat.index:
            raise GamePermissionDenied(
                "not_your_offer", "You asked for this takeback: the other player answers it."
            )
        flagged = flags.flag_is_due(game, now=now)
        if flagged:
            flags.flag_fall(game, now=now)
        else:
            _take_back(game, moves=offer["moves"], now=now)
            game_commit(game)
    if flagged:
        # Raised once the game's end is committed: the flag fell, nothing was taken back.
        raise GameInvalid("time_up", "The time of the player to move ran out first.")
    return game


def takeback_decline(*, game_id: int, user: User) -> Game:
    """The opponent declines the request, or its asker withdraws it."""
    with transaction.atomic():
        game = game_lock(game_id)
        seat_of(game, user)
        _pending(game)
        game.takeback_offer = None
        _request_changed(game)
    return game


# --- internals ------------------------------------------------------------------------------


def _check_takebacks(game: Game) -> None:
    """Refuse a takeback in a game that allows none (`selectors.takebacks_allowed`), saying why."""
    if game.status != GameStatus.ACTIVE:
        raise GameInvalid("game_not_active", "Only a game in play has moves to take back.")
    if game.rated:
        raise GameInvalid("rated_game", "Moves of a rated game cannot be taken back.")
    if not registry.get(game.kind).takebacks:
        raise GameInvalid(
            "no_takebacks",
            f"{registry.get(game.kind).title} has hidden information: its moves cannot be taken "
            "back.",
        )
    if not selectors.takebacks_allowed(game=game):
        raise GameInvalid(
            "not_two_people", "Moves can be taken back only in a game between two people."
        )


def _moves_to_undo(game: Game, *, seat: Seat) -> int:
    """How many moves the takeback `seat` asks for undoes: from its last move to the end."""
    last = (
        game.moves.filter(seat=seat.index).order_by("-number").values_list("number", flat=True)
    ).first()
    if last is None:
        raise GameInvalid("nothing_to_take_back", "You have not moved yet.")
    return game.move_count - last + 1


def _pending(game: Game) -> dict[str, int]:
    offer = selectors.takeback_offer_of(game=game)
    if offer is None:
        raise GameInvalid("no_offer", "No takeback is waiting for an answer.")
    return offer


def _request_changed(game: Game) -> None:
    """Save the request (asked, declined or withdrawn) as a new version, and send it to the
    game's sockets once committed, with no notification: nothing was played."""
    game.version += 1
    game.save(update_fields=["takeback_offer", "takeback_asked", "version", "updated_at"])
    transaction.on_commit(lambda: game_committed(game))


def _take_back(game: Game, *, moves: int, now: datetime) -> None:
    """Undo the last `moves` of the locked `game`: replay the others from its seed."""
    rules = registry.get(game.kind).rules
    kept = game.move_count - moves
    state = rules.new_game(len(game.seats.all()), seed=game.seed, options=game.options)
    for data in (
        game.moves.filter(number__lte=kept).order_by("number").values_list("data", flat=True)
    ):
        state = rules.play(state, rules.parse_move(data))
    game.moves.filter(number__gt=kept).delete()
    if game.clock_initial_ms is not None and game.to_move is not None:
        # The running seat pays for its stretch so far, with no increment: nothing is refunded.
        clocks.clock_charge(game, seat=game.to_move, turn_over=False, arrived_at=now, now=now)
    game.state = rules.encode(state)
    selectors.game_state_remember(game=game, state=state)
    game.to_move = rules.to_move(state)
    game.move_count = kept
    clocks.clock_restart(game, now=now)
    deadline_reset(game)
    game.takeback_offer = None
    game.version += 1
    game.save()
