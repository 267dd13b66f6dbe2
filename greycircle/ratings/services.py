"""Rating finished games between people.

A game moves its players' rating at its kind and speed (`Game.speed`: live and correspondence
are rated apart). It is rated only when it was meant to be and really played, so that spare
accounts cannot farm a rating:

- it is not casual (`Game.rated`);
- at least two people sat at it (games against computers are not rated);
- every person made at least `rated_min_moves(kind)` moves of their own (2; King's Corner 3,
  where ending a turn is a move of its own), so a game resigned or left at once counts for
  nobody;
- no two of its people already have `PAIR_RATED_GAMES` rated games of the kind (at any speed)
  against each other in the last `PAIR_WINDOW` (24 hours); beyond it the game is played but unrated.

Whether it was rated, and why not, is kept in the game's outcome (`outcome["rating"]`, typed by
`serializers.GameRatingSerializer`), so the players see it. Every finished game between people is
also checked for the patterns of farming (`suspicion`), rated or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from itertools import combinations
from typing import Any

from django.db.models import Count
from django.utils import timezone

from greycircle.games.models import Move
from greycircle.ratings import glicko2, suspicion
from greycircle.ratings.models import PlayerRating, RatingChange, UnratedReason

RATED_MIN_MOVES = 2
# Kinds that need more: a King's Corner turn may be no more than ending it (drawing a card).
RATED_MIN_MOVES_BY_KIND = {"kingscorner": 3}
PAIR_RATED_GAMES = 5
PAIR_WINDOW = timedelta(hours=24)


def rated_min_moves(kind: str) -> int:
    """How many moves each person must make of a game of `kind` for it to be rated."""
    return RATED_MIN_MOVES_BY_KIND.get(kind, RATED_MIN_MOVES)


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


def moves_by_person(*, game: Any, final_move_by: int | None = None) -> dict[int, int]:
    """How many moves each person seated at `game` made themselves (not their computer
    stand-in, not moves imported from a record), counting `final_move_by`'s move that is
    finishing the game and is not stored yet."""
    counts = {seat.user_id: 0 for seat in game.seats.all() if seat.user_id}
    for player_id, moves in (
        Move.objects.filter(game=game, imported=False, player_id__in=counts)
        .values_list("player_id")
        .annotate(moves=Count("pk"))
        .order_by()
    ):
        counts[player_id] = moves
    if final_move_by in counts:
        counts[final_move_by] += 1
    return counts


def pair_rated_games(*, kind: str, user_ids: Sequence[int], since: Any) -> int:
    """How many games of `kind` rated since `since` both users played, at either speed: a pair
    farming a rating gets no more games a day by alternating speeds."""
    first, second = user_ids
    both = RatingChange.objects.filter(user_id=second, kind=kind, created_at__gte=since)
    return RatingChange.objects.filter(
        user_id=first, kind=kind, created_at__gte=since, game_id__in=both.values("game_id")
    ).count()


def _unrated(reason: UnratedReason, detail: str) -> dict[str, Any]:
    return {"rated": False, "reason": reason.value, "detail": detail, "changes": []}


def _verdict(*, game: Any, user_ids: Sequence[int], moves: dict[int, int]) -> dict[str, Any] | None:
    """Why `game` is not rated (its outcome's `rating`), or None: it is."""
    if not game.rated:
        return _unrated(UnratedReason.CASUAL, "Not rated: a casual game.")
    if len(user_ids) < 2:
        return _unrated(UnratedReason.COMPUTERS, "Not rated: only games between people are rated.")
    needed = rated_min_moves(game.kind)
    if min(moves.values()) < needed:
        return _unrated(
            UnratedReason.TOO_SHORT,
            f"Not rated: a game is rated once every player has made {needed} moves.",
        )
    since = timezone.now() - PAIR_WINDOW
    # In seat order, as the players see them.
    names = {seat.user_id: seat.name for seat in game.seats.all() if seat.user_id}
    for pair in combinations(names, 2):
        if pair_rated_games(kind=game.kind, user_ids=pair, since=since) >= PAIR_RATED_GAMES:
            first, second = (names[user_id] for user_id in pair)
            return _unrated(
                UnratedReason.PAIR_LIMIT,
                f"Not rated: {first} and {second} have played {PAIR_RATED_GAMES} rated games "
                "against each other in the last 24 hours, the most that count.",
            )
    return None


def ratings_record(
    *, game: Any, winners: Sequence[int], final_move_by: int | None = None
) -> dict[str, Any]:
    """Rate the locked, just finished `game` if it qualifies (the module's rules); the verdict
    for its outcome's `rating`: rated or not, why not, and each seat's rating before and after.

    `final_move_by` is the person whose move (not stored yet) finished the game, if one did.
    Called in the transaction that finishes the game, so a game is rated exactly once (and a
    rating change row per player makes it visible twice never). Each player's rating moves by one
    Glicko-2 period made of their pairwise results, computed from everyone's rating before the
    game. Rows are locked in user order, so two games ending at once never deadlock.
    """
    seat_users = {seat.index: seat.user_id for seat in game.seats.all() if seat.user_id}
    user_ids = sorted(set(seat_users.values()))
    moves = moves_by_person(game=game, final_move_by=final_move_by)
    if len(user_ids) >= 2:
        suspicion.game_check(game=game, winners=winners, moves=moves)
    unrated = _verdict(game=game, user_ids=user_ids, moves=moves)
    if unrated is not None:
        return unrated
    speed = game.speed
    PlayerRating.objects.bulk_create(
        [PlayerRating(user_id=user_id, kind=game.kind, speed=speed) for user_id in user_ids],
        ignore_conflicts=True,
    )
    locked = {
        rating.user_id: rating
        for rating in PlayerRating.objects.select_for_update()
        .filter(kind=game.kind, speed=speed, user_id__in=user_ids)
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
                speed=speed,
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
    RatingChange.objects.bulk_create(changes)
    seat_of = {user_id: seat for seat, user_id in seat_users.items()}
    return {
        "rated": True,
        "reason": None,
        "detail": "Rated.",
        "changes": [
            {
                "seat": seat_of[change.user_id],
                "before": round(change.rating_before),
                "after": round(change.rating_after),
            }
            for change in sorted(changes, key=lambda change: seat_of[change.user_id])
        ],
    }
