"""Reads of games shaped for one viewer. Hidden information is filtered here and in `RULES.view`."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from django.db import models
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from accounts.selectors import block_between, blocked_user_ids
from greycircle.games import abandonment, clocks, registry
from greycircle.games.engine import RecordNotation
from greycircle.games.models import (
    DeadlineNotice,
    Game,
    GameStatus,
    Invitation,
    InvitationStatus,
    Move,
    Seat,
)


class MyGames(models.TextChoices):
    """The lists of a player's games (`GET /games/?list=...`, the site's "My games")."""

    MY_TURN = "my_turn", "Waiting on you"
    THEIR_TURN = "their_turn", "Waiting on others"
    FINISHED = "finished", "Finished"


# Games over for good, in the "finished" list. A withdrawn (cancelled) table never was a game: it
# is left out (`?status=cancelled` still finds it).
FINISHED_STATUSES = (GameStatus.FINISHED, GameStatus.ABORTED)


def seat_index_for(*, game: Game, viewer: Any) -> int | None:
    """The seat `viewer` holds in `game` (seats prefetched), or None for a spectator."""
    if viewer is None or not viewer.is_authenticated:
        return None
    for seat in game.seats.all():
        if seat.user_id == viewer.pk:
            return seat.index
    return None


def seats_json(*, game: Game) -> list[dict[str, Any]]:
    scores = (game.outcome or {}).get("scores")
    return [
        {
            "seat": seat.index,
            "user": seat.user.username if seat.user_id and not seat.user.deleted_at else None,
            "ai_level": seat.ai_level or None,
            "name": seat.name,
            "open": seat.is_open,
            "taken_over": seat.is_taken_over,
            **({"score": scores[seat.index]} if scores else {}),
        }
        for seat in game.seats.all()
    ]


def game_summary_for(*, game: Game, viewer: Any) -> dict[str, Any]:
    """The envelope without state or legal moves: what game lists show."""
    you = seat_index_for(game=game, viewer=viewer)
    return {
        "id": game.pk,
        "kind": game.kind,
        "status": game.status,
        "version": game.version,
        "options": game.options,
        "seats": seats_json(game=game),
        "to_move": game.to_move,
        "you": you,
        "days_per_move": game.days_per_move,
        "speed": game.speed,
        "rated": game.rated,
        "clock": clocks.clock_json(game, now=timezone.now()),
        "move_deadline": game.move_deadline,
        "can_claim": can_claim_for(game=game, seat=you),
        "created_by": _creator_name(game),
        "unlisted": game.unlisted,
        "outcome": game.outcome,
        "move_count": game.move_count,
        "rematch_id": _rematch_id(game),
        "takebacks": takebacks_allowed(game=game),
        "takeback": takeback_offer_of(game=game),
        "created_at": game.created_at,
        "updated_at": game.updated_at,
    }


def game_state_of(*, game: Game) -> Any:
    """The decoded `game.state` (None before the game starts), decoded once per instance and
    state however many views, checks and frames need it."""
    known = game.__dict__.get("_decoded_state")
    if known is not None and known[0] is game.state:
        return known[1]
    state = registry.get(game.kind).rules.decode(game.state) if game.state else None
    game_state_remember(game=game, state=state)
    return state


def game_state_remember(*, game: Game, state: Any) -> None:
    """Note that `state` is `game.state` decoded (the services that just encoded it know it)."""
    game.__dict__["_decoded_state"] = (game.state, state)


def game_view_for_seat(*, game: Game, seat: int | None) -> dict[str, Any]:
    """The full envelope as the holder of `seat` sees it (None = spectator).

    Each view of one version of a game instance is computed once: the change's publish and the
    response of the request that made it share it.
    """
    return _once_per_version(game, seat, lambda: _game_view_for_seat(game=game, seat=seat))


# `_once_per_version`'s key for what every audience's view of a version shares.
_SHARED = "shared"


def _once_per_version(
    game: Game, key: Any, compute: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """`compute()`, remembered on the game instance for its version (and state) under `key`."""
    views = game.__dict__.setdefault("_views", {})
    known = views.get((game.version, key))
    if known is not None and known[0] is game.state:
        return known[1]
    view = compute()
    views[game.version, key] = (game.state, view)
    return view


def _game_shared_view(*, game: Game) -> dict[str, Any]:
    """The envelope's parts that do not depend on the seat (the summary, the invitations)."""
    shared = game_summary_for(game=game, viewer=None)
    shared["invitations"] = invitations_json(game=game)
    return shared


def _game_view_for_seat(*, game: Game, seat: int | None) -> dict[str, Any]:
    rules = registry.get(game.kind).rules
    # Every audience's envelope holds the same seats, options and invitations: read-only.
    envelope = dict(_once_per_version(game, _SHARED, lambda: _game_shared_view(game=game)))
    envelope["you"] = seat
    envelope["can_claim"] = can_claim_for(game=game, seat=seat)
    # The players pass an unlisted game's link on; spectators came with it already.
    envelope["link_key"] = game.link_key if seat is not None and game.unlisted else None
    state = game_state_of(game=game)
    if state is not None:
        envelope["state"] = rules.view(state, seat)
        envelope["legal_moves"] = (
            [rules.move_to_json(move) for move in rules.legal_moves(state)]
            if seat is not None
            and game.status == GameStatus.ACTIVE
            and game.to_move == seat
            and not game.seats.all()[seat].is_computer  # taken over: the computer plays it
            else []
        )
    else:
        envelope["state"] = None
        envelope["legal_moves"] = []
    return envelope


def takeover_level_for(*, game: Game) -> str | None:
    """The level of the computer that takes over the seat of a player out of time in `game`, or
    None when the others may claim the win instead: only in kinds whose rules allow a takeover
    (`GameKind.takeover_level`), and only with three or more seats."""
    try:
        level = registry.get(game.kind).takeover_level
    except registry.UnknownKind:
        return None
    return level if level and len(game.seats.all()) >= 3 else None


def can_claim_for(*, game: Game, seat: int | None, now: datetime | None = None) -> bool:
    """Whether the player at `seat` may claim the win now (greycircle.games.deadlines): the game
    is in play, another person is to move and has run out of time, and no computer is to take
    over their seat. `game_claim_win` checks the same under the game's lock.

    In a live game: another person abandoned it (greycircle.games.abandonment), once the clocks'
    loop announced it (`deadline_notice`), so that only those envelopes read presence."""
    if seat is not None and game.clock_initial_ms is not None:
        if game.deadline_notice != DeadlineNotice.EXPIRED or not game.seats.all()[seat].is_person:
            return False
        if not abandonment.abandonable(game, takeover=takeover_level_for(game=game) is not None):
            return False
        gone = abandonment.seats_abandoned(game, now=now or timezone.now())
        return bool(gone) and seat not in gone
    if seat is None or game.status != GameStatus.ACTIVE or game.move_deadline is None:
        return False
    if game.to_move in (None, seat) or not game.seats.all()[seat].is_person:
        return False
    if game.move_deadline > (now or timezone.now()):
        return False
    return takeover_level_for(game=game) is None


def takebacks_allowed(*, game: Game) -> bool:
    """Whether moves of `game` may be taken back with the opponent's consent
    (greycircle.games.takebacks): a casual game of a kind without hidden information
    (`GameKind.takebacks`), between two people (no computer, and no seat taken over)."""
    if game.rated:
        return False
    try:
        if not registry.get(game.kind).takebacks:
            return False
    except registry.UnknownKind:
        return False
    seats = game.seats.all()
    return len(seats) == 2 and all(seat.is_person for seat in seats)


def takeback_offer_of(*, game: Game) -> dict[str, int] | None:
    """The takeback waiting for an answer in `game`: `{"seat": the asker's, "moves": how many
    it undoes}`; None if none. An offer lapses as soon as anything is played (or the game ends),
    so it holds only while the game is in play at the move count it was made at."""
    offer = game.takeback_offer
    if not offer or game.status != GameStatus.ACTIVE or offer["move_count"] != game.move_count:
        return None
    return {"seat": offer["seat"], "moves": offer["moves"]}


def turn_waits_for(*, game: Game, seat: int | None) -> bool:
    """Whether `game` waits on the person at `seat` (a game list's "Your turn"): the game is in
    play, `seat` is to move, and no computer has taken the seat over (then it plays, not them)."""
    return (
        seat is not None
        and game.status == GameStatus.ACTIVE
        and game.to_move == seat
        and game.seats.all()[seat].is_person
    )


def summary_waits_for_viewer(*, summary: Mapping[str, Any]) -> bool:
    """`turn_waits_for` on a game list's entry (`game_summary_for`): whether the game waits on
    the viewer it was summarised for."""
    you = summary["you"]
    return (
        you is not None
        and summary["status"] == GameStatus.ACTIVE
        and summary["to_move"] == you
        and not summary["seats"][you]["taken_over"]
    )


def invitations_json(*, game: Game) -> list[dict[str, Any]]:
    """The game's invitations that still matter to its page: one per seat, the latest (pending,
    accepted, or how it ended)."""
    if game.status not in (GameStatus.OPEN, GameStatus.CANCELLED):
        return []
    latest: dict[int, dict[str, Any]] = {}
    for invitation in game.invitations.select_related("invitee").order_by("created_at", "pk"):
        latest[invitation.seat] = {
            "id": invitation.pk,
            "seat": invitation.seat,
            "user": invitation.invitee.username,
            "status": invitation.status,
            "expires_at": invitation.expires_at,
        }
    return [latest[index] for index in sorted(latest)]


def invitations_for(*, user: Any, direction: str | None = None) -> QuerySet[Invitation]:
    """`user`'s pending invitations to games, newest first: sent to them (`incoming`), sent by
    them (`outgoing`), or both."""
    invitations = Invitation.objects.filter(status=InvitationStatus.PENDING)
    if direction == "incoming":
        invitations = invitations.filter(invitee=user)
    elif direction == "outgoing":
        invitations = invitations.filter(inviter=user)
    else:
        invitations = invitations.filter(Q(invitee=user) | Q(inviter=user))
    return invitations.select_related("game", "invitee", "inviter").order_by("-created_at", "-pk")


def game_view_for(*, game: Game, viewer: Any) -> dict[str, Any]:
    """The envelope `viewer` may see: their own seat's view, or the spectators' view."""
    return game_view_for_seat(game=game, seat=seat_index_for(game=game, viewer=viewer))


def game_audiences(*, game: Game) -> list[int | None]:
    """Everybody who can watch a game, grouped by what they may see: each seat, then spectators."""
    return [seat.index for seat in game.seats.all()] + [None]


def moves_for(*, game: Game, viewer: Any, after: int = 0) -> list[dict[str, Any]]:
    """The move log as `viewer` may see it (public entries plus their own seat's private
    detail), from the entry after number `after` on."""
    seat = seat_index_for(game=game, viewer=viewer)
    moves = game.moves.order_by("number")
    if after:
        moves = moves.filter(number__gt=after)
    return [move_entry_for_seat(move=move, seat=seat) for move in moves]


# Part of every envelope's ETag: a new envelope shape (a deploy) invalidates what clients keep.
ENVELOPE_FORMAT = 2


def game_etag_for(*, game: Game, viewer: Any) -> str:
    """The ETag of the envelope `viewer` gets (`game_view_for`), without building it.

    Everything an envelope shows changes the game row (its version or `updated_at`), except what
    depends on who asks and when: the viewer's seat, whether they may claim the win now, the
    players' names (an account renamed or deleted) and a rematch (a row of its own).
    """
    seat = seat_index_for(game=game, viewer=viewer)
    players = [
        (entry["user"], entry["name"], entry["taken_over"]) for entry in seats_json(game=game)
    ]
    validator = repr(
        (
            ENVELOPE_FORMAT,
            game.pk,
            game.version,
            game.updated_at.isoformat(),
            seat,
            can_claim_for(game=game, seat=seat),
            _rematch_id(game),
            players,
        )
    )
    return f'"{hashlib.blake2b(validator.encode(), digest_size=12).hexdigest()}"'


def move_entry_for_seat(*, move: Move, seat: int | None) -> dict[str, Any]:
    entry = {**move.public}
    if seat is not None:
        entry.update(move.private.get(str(seat), {}))
    return {
        "number": move.number,
        "seat": move.seat,
        "at": move.created_at,
        "imported": move.imported,
        **entry,
    }


def games_for_user(
    *,
    user: Any,
    kind: str | None = None,
    status: str | None = None,
    which: str | None = None,
    changed_since: datetime | None = None,
) -> QuerySet[Game]:
    """`user`'s games, newest first: all of them, or one of the `MyGames` lists.

    - `my_turn`: in play, and `user`'s seat is to move; or waiting for `user` to answer an
      invitation to it;
    - `their_turn`: waiting on somebody else: in play with another seat to move, or waiting for
      players to join or to answer;
    - `finished`: over (finished or aborted), the most recently ended first.

    Three queries a page whatever its size: the count, the games, their seats and users.
    """
    mine = Seat.objects.filter(game=OuterRef("pk"), user=user)
    games = Game.objects.filter(Exists(mine))
    if kind:
        games = games.filter(kind=kind)
    if status:
        games = games.filter(status=status)
    if changed_since is not None:
        games = games.filter(updated_at__gte=changed_since)
    # A seat taken over by a computer is not waiting on its player.
    my_move = Exists(mine.filter(index=OuterRef("to_move"), ai_level=""))
    my_answer = Exists(
        Invitation.objects.filter(
            game=OuterRef("pk"), invitee=user, status=InvitationStatus.PENDING
        )
    )
    ordering = ["-updated_at", "-pk"]
    if which == MyGames.MY_TURN:
        games = games.filter(
            Q(my_move, status=GameStatus.ACTIVE) | Q(my_answer, status=GameStatus.OPEN)
        )
    elif which == MyGames.THEIR_TURN:
        games = games.filter(
            Q(status=GameStatus.OPEN) & ~my_answer | Q(status=GameStatus.ACTIVE) & ~my_move
        )
    elif which == MyGames.FINISHED:
        games = games.filter(status__in=FINISHED_STATUSES)
        ordering = ["-finished_at", "-pk"]
    return _listed(games).order_by(*ordering)


def games_open(*, viewer: Any, kind: str | None = None) -> QuerySet[Game]:
    """Games waiting for players that `viewer` could join (unlisted ones are never listed, nor
    games of someone on the other side of a block with `viewer`)."""
    games = _unblocked(
        Game.objects.filter(status=GameStatus.OPEN, unlisted=False).exclude(
            Exists(Seat.objects.filter(game=OuterRef("pk"), user=viewer))
        ),
        viewer=viewer,
    )
    if kind:
        games = games.filter(kind=kind)
    return _listed(games).order_by("-created_at", "-pk")


def games_live(*, viewer: Any = None, kind: str | None = None) -> QuerySet[Game]:
    """Games in play between at least two people, that anyone may watch; the liveliest first.

    Unlisted games are never listed; games against computers only are not "between people";
    `viewer` does not see the games of someone on the other side of a block with them.
    """
    games = _unblocked(Game.objects.filter(status=GameStatus.ACTIVE, unlisted=False), viewer=viewer)
    if kind:
        games = games.filter(kind=kind)
    games = games.alias(
        people=Count("seats", filter=Q(seats__user__isnull=False), distinct=True)
    ).filter(people__gte=2)
    return _listed(games).order_by("-updated_at", "-pk")


def _unblocked(games: QuerySet[Game], *, viewer: Any) -> QuerySet[Game]:
    """`games` without those where someone seated has a block with `viewer`, either way."""
    if viewer is None or not viewer.is_authenticated:
        return games
    blocked_seat = Seat.objects.filter(
        Q(game=OuterRef("pk")), block_between(user=viewer, other=OuterRef("user_id"))
    )
    return games.exclude(Exists(blocked_seat))


def _listed(games: QuerySet[Game]) -> QuerySet[Game]:
    """What a list shows of each game, fetched with the page rather than once per game."""
    return games.with_seats().select_related("rematch")


def game_get(*, game_id: int) -> Game | None:
    """The game with its seats attached, or None; views shape it for each viewer. (Its rematch
    is read only if it is over: `_rematch_id`.) Check `game_visible_to` before showing it."""
    return Game.objects.get_with_seats(game_id)


def game_visible_to(*, game: Game, viewer: Any, key: str = "") -> bool:
    """Whether `viewer` may see `game` (seats attached) at all, given the `key` of the link they
    followed (`?key=`; "" for none).

    Its players (invited ones included) always may, and staff. Anyone else: not an unlisted game
    without its link key (ids are sequential, so an id alone proves nothing), and not a game in
    which someone has a block with them, either way round (as profiles hide across a block).
    Every read of a game by id asks this; refused, it answers as if there were no such game.
    """
    if seat_index_for(game=game, viewer=viewer) is not None:
        return True
    if viewer is not None and viewer.is_authenticated and viewer.is_staff:
        return True
    if game.unlisted and not link_key_matches(game=game, key=key):
        return False
    if viewer is None or not viewer.is_authenticated:
        return True
    people = {seat.user_id for seat in game.seats.all() if seat.user_id is not None}
    return not people & blocked_user_ids(user=viewer)


def link_key_matches(*, game: Game, key: str) -> bool:
    """Whether `key` is `game`'s link key (compared in constant time)."""
    return _key_matches(game.link_key, key)


def _key_matches(link_key: str, key: str) -> bool:
    return bool(key) and bool(link_key) and hmac.compare_digest(key, link_key)


def game_audience_for(*, game_id: int, viewer: Any, key: str = "") -> tuple[int | None] | None:
    """(the seat `viewer` holds in the game, or None for a spectator), or None if there is no
    such game or `viewer` may not see it (`game_visible_to`). One query: what a socket that
    opens needs before it joins its audience."""
    seats = Seat.objects.filter(game=OuterRef("pk"))
    seat = seats.filter(user_id=viewer.pk).order_by("index")
    blocked = seats.filter(block_between(user=viewer, other=OuterRef("user_id")))
    found = (
        Game.objects.filter(pk=game_id)
        .values_list(Subquery(seat.values("index")[:1]), "unlisted", "link_key", Exists(blocked))
        .first()
    )
    if found is None:
        return None
    index, unlisted, link_key, across_block = found
    if index is not None or viewer.is_staff:
        return (index,)
    if unlisted and not _key_matches(link_key, key):
        return None
    return None if across_block else (None,)


def _creator_name(game: Game) -> str | None:
    """The username of the player who started the game (always seated), from its seats."""
    for seat in game.seats.all():
        if seat.user_id is not None and seat.user_id == game.created_by_id:
            return None if seat.user.deleted_at else seat.user.username
    return None


def _rematch_id(game: Game) -> int | None:
    if game.status not in FINISHED_STATUSES:
        return None  # only a game that is over has a rematch: spare the query
    try:
        return game.rematch.pk
    except Game.rematch.RelatedObjectDoesNotExist:
        return None


def game_record_for(*, game: Game) -> str | None:
    """The game's moves in its kind's record notation; None if the kind has none."""
    rules = registry.get(game.kind).rules
    if not isinstance(rules, RecordNotation):
        return None
    if not game.state:
        return ""
    return rules.record(rules.decode(game.state))


def game_replay(*, game: Game) -> dict[str, Any]:
    """The encoded state reached by replaying the move log from the game's seed."""
    rules = registry.get(game.kind).rules
    state = rules.new_game(game.seats.count(), seed=game.seed, options=game.options)
    for logged in game.moves.order_by("number").values_list("data", flat=True):
        state = rules.play(state, rules.parse_move(logged))
    return rules.encode(state)
