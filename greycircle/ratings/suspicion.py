"""Patterns of rating farming, flagged for staff (`greycircle.moderation.flags`).

A loss is *quick* when the loser made fewer than `QUICK_LOSS_MOVES` moves of their own: resigned,
left or lost at once. Quick losses are what spare accounts feed a rating with, so each finished
game between people that has one (rated or not) looks back `SUSPICION_WINDOW` (7 days) for:

- `quick_losses`: one account losing quickly to the same account `QUICK_LOSSES_TO_ONE` times — a
  pair of accounts with many short decisive games, one of them always giving in;
- `quick_wins`: one account winning `QUICK_WINS` quick games, against any accounts — many spare
  accounts, each used once or twice, which the pair limit does not see.

A flag stays open while the pattern goes on (its count rises) until staff review it. Games with no
quick loss cost nothing here: the look back runs only when the finishing game has one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.db.models import Count
from django.utils import timezone

from greycircle.games.models import Game, GameStatus, Move, Seat
from greycircle.moderation.flags import flag_raise
from greycircle.moderation.models import Flag, FlagKind

QUICK_LOSS_MOVES = 5
SUSPICION_WINDOW = timedelta(days=7)
QUICK_LOSSES_TO_ONE = 3
QUICK_WINS = 10

QuickLoss = tuple[int, int, int]  # (game id, winner's user id, loser's user id)


def _quick_losses(
    *, seats: dict[int, int], winners: Sequence[int], moves: dict[int, int], game_id: int
) -> list[QuickLoss]:
    """The quick losses of one game: `seats` maps seat indexes to people, `moves` people to the
    moves they made."""
    won = {seats[seat] for seat in winners if seat in seats}
    return [
        (game_id, winner, loser)
        for loser in set(seats.values()) - won
        if moves.get(loser, 0) < QUICK_LOSS_MOVES
        for winner in won
    ]


def quick_losses_since(*, winner_ids: Sequence[int], since: Any, excluding: int) -> list[QuickLoss]:
    """The quick losses to any of `winner_ids` in games finished since `since` (but `excluding`),
    in three queries whatever the number of games."""
    games = Game.objects.filter(
        status=GameStatus.FINISHED, finished_at__gte=since, seats__user_id__in=winner_ids
    ).exclude(pk=excluding)
    outcomes = dict(games.values_list("pk", "outcome"))
    seats: dict[int, dict[int, int]] = defaultdict(dict)
    for game_id, index, user_id in Seat.objects.filter(
        game__in=games, user__isnull=False
    ).values_list("game_id", "index", "user_id"):
        seats[game_id][index] = user_id
    moves: dict[int, dict[int, int]] = defaultdict(dict)
    for game_id, player_id, count in (
        Move.objects.filter(game__in=games, imported=False, player__isnull=False)
        .values_list("game_id", "player_id")
        .annotate(count=Count("pk"))
        .order_by()
    ):
        moves[game_id][player_id] = count
    return [
        loss
        for game_id, outcome in outcomes.items()
        for loss in _quick_losses(
            seats=seats[game_id],
            winners=(outcome or {}).get("winners") or [],
            moves=moves[game_id],
            game_id=game_id,
        )
        if loss[1] in winner_ids
    ]


def game_check(*, game: Any, winners: Sequence[int], moves: dict[int, int]) -> list[Flag]:
    """Flag the patterns above that the just finished `game` (locked, between people; `moves`:
    how many each person made) completes or continues. Returns the flags raised."""
    seats = {seat.index: seat.user_id for seat in game.seats.all() if seat.user_id}
    now_losses = _quick_losses(seats=seats, winners=winners, moves=moves, game_id=game.pk)
    if not now_losses:
        return []
    winner_ids = sorted({winner for _, winner, _ in now_losses})
    history = now_losses + quick_losses_since(
        winner_ids=winner_ids, since=timezone.now() - SUSPICION_WINDOW, excluding=game.pk
    )
    names = {seat.user_id: seat.name for seat in game.seats.all() if seat.user_id}
    days = SUSPICION_WINDOW.days
    flags = []
    for _, winner, loser in now_losses:
        losses = sum(1 for loss in history if loss[1:] == (winner, loser))
        if losses >= QUICK_LOSSES_TO_ONE:
            flags.append(
                flag_raise(
                    kind=FlagKind.QUICK_LOSSES,
                    user_id=winner,
                    other_user_id=loser,
                    game=game,
                    games=losses,
                    description=f"{names[loser]} lost quickly (fewer than {QUICK_LOSS_MOVES} "
                    f"moves) to {names[winner]} {losses} times in {days} days.",
                )
            )
    for winner in winner_ids:
        won = {game_id for game_id, w, _ in history if w == winner}
        losers = {loser for _, w, loser in history if w == winner}
        if len(won) >= QUICK_WINS:
            flags.append(
                flag_raise(
                    kind=FlagKind.QUICK_WINS,
                    user_id=winner,
                    game=game,
                    games=len(won),
                    description=f"{names[winner]} won {len(won)} games in {days} days in which "
                    f"the loser made fewer than {QUICK_LOSS_MOVES} moves, against "
                    f"{len(losers)} account{'s' if len(losers) != 1 else ''}.",
                )
            )
    return flags
