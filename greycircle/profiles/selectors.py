"""A player's public profile: statistics per game kind, head-to-head, recent games; and what the
viewer may do about the player there (befriend, invite, block), from how the two stand.

Statistics count finished games only (not aborted or withdrawn ones). From a player's side a game
is won when they are its only winner, tied when nobody won or they shared the win, lost otherwise
(greycircle.games.results.seat_result, which the game lists word results with too).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from accounts.models import User
from accounts.selectors import (
    are_friends,
    friend_requests_of,
    has_blocked,
    is_blocked_between,
    username_key,
    users_by_username,
)
from greycircle.games import registry, selectors
from greycircle.games.models import GameSpeed, GameStatus, Seat
from greycircle.games.results import seat_result
from greycircle.presence import user_is_online
from greycircle.ratings.selectors import ratings_of

RECENT_GAMES = 10


def profile_user_for(*, username: str, viewer: Any) -> User | None:
    """The active user called `username`, unless a block stands between them and `viewer`:
    then, as for nobody, None (a blocked user sees nothing, not even that the profile exists)."""
    user = users_by_username(usernames=[username]).get(username_key(username))
    if user is None or not user.is_active:
        return None
    if viewer.is_authenticated and viewer.pk != user.pk and is_blocked_between(a=viewer, b=user):
        return None
    return user


def profile_blocked_by(*, username: str, viewer: Any) -> User | None:
    """The active user called `username` if `viewer` blocked them (whose profile `viewer` then
    sees only to lift the block), else None."""
    user = users_by_username(usernames=[username]).get(username_key(username))
    if user is None or not user.is_active or not viewer.is_authenticated or user.pk == viewer.pk:
        return None
    return user if has_blocked(blocker=viewer, blocked=user) else None


class Standing:
    """How the viewer of a profile stands with its player."""

    SELF = "self"
    BLOCKED = "blocked"  # the viewer blocked them
    FRIENDS = "friends"
    REQUEST_SENT = "request_sent"  # the viewer asked them, no answer yet
    REQUEST_RECEIVED = "request_received"  # they asked the viewer
    NONE = "none"


@dataclass(frozen=True)
class Relationship:
    """`standing` (a `Standing`), the pending friend request between them if any, and what the
    viewer may do: ask to be friends (neither is a guest: accounts.friends refuses guests),
    invite them to a game (as `services.game_create` allows: neither a guest, and friends or a
    player who takes invitations from anyone), block them."""

    standing: str
    request_id: int | None = None
    can_befriend: bool = False
    can_invite: bool = False
    can_block: bool = False


def profile_relationship_for(*, user: User, viewer: Any) -> Relationship:
    """How `viewer` stands with `user` (a profile `profile_user_for` or `profile_blocked_by`
    let them see), and what they may do about it. The services stay the authority: each action
    is checked again when it is asked for."""
    if not viewer.is_authenticated or viewer.pk == user.pk:
        return Relationship(standing=Standing.SELF)
    if has_blocked(blocker=viewer, blocked=user):
        return Relationship(standing=Standing.BLOCKED)
    guests = viewer.is_guest or user.is_guest
    if are_friends(user=viewer, other=user):
        return Relationship(standing=Standing.FRIENDS, can_invite=not guests, can_block=True)
    invitable = not guests and user.accept_invitations_from_anyone
    pending = (
        friend_requests_of(user=viewer)
        .filter(Q(from_user=user) | Q(to_user=user))
        .values_list("pk", "from_user_id")
        .first()
    )
    if pending is not None:
        request_id, sender = pending
        standing = Standing.REQUEST_SENT if sender == viewer.pk else Standing.REQUEST_RECEIVED
        return Relationship(
            standing=standing,
            request_id=request_id,
            # Asking someone who asked you accepts their request (accounts.friends).
            can_befriend=standing == Standing.REQUEST_RECEIVED and not guests,
            can_invite=invitable,
            can_block=True,
        )
    return Relationship(
        standing=Standing.NONE, can_befriend=not guests, can_invite=invitable, can_block=True
    )


def _tally() -> dict[str, int]:
    return {"played": 0, "won": 0, "lost": 0, "tied": 0}


def _count(tally: dict[str, int], result: str) -> None:
    tally["played"] += 1
    tally[result] += 1


def profile_statistics(*, user: User, viewer: Any) -> list[dict[str, Any]]:
    """Per game kind `user` has finished games of: all games, against people, against the
    computer by level (the strongest computer at the table), head-to-head with `viewer` (from
    `viewer`'s side; None when `viewer` is `user` or signed out), and the ratings: one per speed
    they have rated games at (correspondence, then live: the two are rated apart).

    Two queries for the games whatever their number, one for the ratings.
    """
    mine = list(
        Seat.objects.filter(user=user, game__status=GameStatus.FINISHED).values_list(
            "game_id", "index", "game__kind", "game__outcome"
        )
    )
    others: dict[int, list[tuple[int, int | None, str]]] = defaultdict(list)
    for game_id, index, other_user, ai_level in (
        Seat.objects.filter(game_id__in=[row[0] for row in mine])
        .exclude(user=user)
        .values_list("game_id", "index", "user_id", "ai_level")
    ):
        others[game_id].append((index, other_user, ai_level))
    rivals = viewer.is_authenticated and viewer.pk != user.pk
    kinds: dict[str, dict[str, Any]] = {}
    for game_id, index, kind, outcome in mine:
        stats = kinds.setdefault(
            kind,
            {
                "all": _tally(),
                "against_people": _tally(),
                "against_computer": defaultdict(_tally),
                "head_to_head": _tally() if rivals else None,
            },
        )
        outcome = outcome or {}
        result = seat_result(seat=index, outcome=outcome)
        _count(stats["all"], result)
        seated = others[game_id]
        if any(other is not None for _, other, _ in seated):
            _count(stats["against_people"], result)
        else:
            strongest = _strongest(kind, [level for _, _, level in seated])
            _count(stats["against_computer"][strongest], result)
        for other_index, other, _ in seated:
            if rivals and other == viewer.pk:
                _count(stats["head_to_head"], seat_result(seat=other_index, outcome=outcome))
    ratings = ratings_of(user=user)
    return [
        {
            "kind": kind,
            "title": _title(kind),
            "all": stats["all"],
            "against_people": stats["against_people"],
            "against_computer": [
                {"level": level, **tally}
                for level, tally in sorted(
                    stats["against_computer"].items(), key=lambda item: _level_rank(kind, item[0])
                )
            ],
            "head_to_head": stats["head_to_head"],
            "ratings": [
                _rating_json(speed, ratings[kind, speed])
                for speed in GameSpeed
                if (kind, speed) in ratings
            ],
        }
        for kind, stats in sorted(kinds.items())
    ]


def _levels(kind: str) -> tuple[str, ...]:
    try:
        return registry.get(kind).ai_levels
    except registry.UnknownKind:
        return ()


def _level_rank(kind: str, level: str) -> int:
    """Computer levels are registered weakest first; a level no longer offered sorts last."""
    levels = _levels(kind)
    return levels.index(level) if level in levels else len(levels)


def _strongest(kind: str, levels: list[str]) -> str:
    return max(levels, key=lambda level: _level_rank(kind, level))


def _title(kind: str) -> str:
    try:
        return registry.get(kind).title
    except registry.UnknownKind:
        return kind


def _rating_json(speed: GameSpeed, rating: Any) -> dict[str, Any]:
    return {
        "speed": speed.value,
        "rating": round(rating.rating),
        "deviation": round(rating.deviation),
        "provisional": rating.provisional,
        "games": rating.games,
    }


def profile_recent_games(*, user: User, viewer: Any) -> list[dict[str, Any]]:
    """`user`'s latest games in play or finished, as `viewer` may list them: an unlisted game only
    if `viewer` plays in it too."""
    games = selectors.games_for_user(user=user).filter(
        status__in=(GameStatus.ACTIVE, GameStatus.FINISHED)
    )
    if not (viewer.is_authenticated and viewer.pk == user.pk):
        shared = Q(seats__user=viewer) if viewer.is_authenticated else Q(pk__in=[])
        games = games.filter(Q(unlisted=False) | shared).distinct()
    return [selectors.game_summary_for(game=game, viewer=viewer) for game in games[:RECENT_GAMES]]


def profile_for(*, user: User, viewer: Any) -> dict[str, Any]:
    """Everything a profile shows, in the shape of `ProfileSerializer`."""
    return {
        "username": user.username,
        "joined": user.date_joined,
        "online": user_is_online(user_id=user.pk),
        "statistics": profile_statistics(user=user, viewer=viewer),
        "recent_games": profile_recent_games(user=user, viewer=viewer),
    }
