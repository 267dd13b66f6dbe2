"""Rating finished games between people."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from greycircle.ratings import glicko2
from greycircle.ratings.models import PlayerRating, RatingChange


def pairwise_results(
    *, players: Sequence[int], winners: Sequence[int]
) -> dict[int, list[tuple[int, float]]]:
    """Each of `players` (seat indexes) against each other: (opponent seat, score).

    A game of several players counts as a game against each other player: a winner beats every
    player who did not win; two winners (a shared win), or two who did not win, draw.
    """
    won = set(winners)
    return {
        seat: [
            (other, 0.5 if (seat in won) == (other in won) else (1.0 if seat in won else 0.0))
            for other in players
            if other != seat
        ]
        for seat in players
    }


def ratings_record(*, game: Any, winners: Sequence[int]) -> list[RatingChange]:
    """Rate the locked, just finished `game` if at least two people played it.

    Called in the transaction that finishes the game, so a game is rated exactly once (and a
    rating change row per player makes it visible twice never). Each player's rating moves by one
    Glicko-2 period made of their pairwise results, computed from everyone's rating before the
    game. Rows are locked in user order, so two games ending at once never deadlock.
    """
    seat_users = {seat.index: seat.user_id for seat in game.seats.all() if seat.user_id}
    if len(set(seat_users.values())) < 2:
        return []
    user_ids = sorted(set(seat_users.values()))
    PlayerRating.objects.bulk_create(
        [PlayerRating(user_id=user_id, kind=game.kind) for user_id in user_ids],
        ignore_conflicts=True,
    )
    locked = {
        rating.user_id: rating
        for rating in PlayerRating.objects.select_for_update()
        .filter(kind=game.kind, user_id__in=user_ids)
        .order_by("user_id")
    }
    before = {seat: locked[user_id].as_glicko() for seat, user_id in seat_users.items()}
    results = pairwise_results(players=list(seat_users), winners=winners)
    changes = []
    for seat, user_id in seat_users.items():
        after = glicko2.rate(
            before[seat],
            [glicko2.Result(before[other], score) for other, score in results[seat]],
        )
        rating = locked[user_id]
        changes.append(
            RatingChange(
                game=game,
                user_id=user_id,
                kind=game.kind,
                rating_before=rating.rating,
                rating_after=after.r,
                deviation_after=after.rd,
            )
        )
        rating.rating, rating.deviation, rating.volatility = after.r, after.rd, after.sigma
        rating.games += 1
    PlayerRating.objects.bulk_update(
        locked.values(), ["rating", "deviation", "volatility", "games", "updated_at"]
    )
    return RatingChange.objects.bulk_create(changes)
