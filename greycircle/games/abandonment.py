"""Abandoned live games: a person whose sockets have all been gone for a while lets the others claim
the win.

A live game is played with the game's page open (or any page of the site: presence counts a
user's sockets, greycircle.presence). A seated person past their first turn whose sockets have all
been gone for GAMES_CLOCK_ABANDON_SECONDS (30 by default) has *abandoned* the game: every other
person at the table may claim the win (`deadlines.game_claim_win`, reason `timeout`; the envelope's
`can_claim`), whoever is to move. Coming back before anybody claims undoes it.

Not in these games, where the clock decides alone:
- a seat's first turn: its own limit aborts the game (greycircle.games.flags);
- fewer than two people (against computers nobody is there to claim);
- kinds whose rules let a computer take a seat over, with three or more seats (King's Corner):
  the absent player's clock runs out on their turn and the computer takes the seat, as on any
  flag; taking a seat at once after half a minute of a dropped connection would be harsher than
  the clock, and the others wait at most that player's time, once.

The others' pages learn it without reloading: a sweep (`deadlines.abandonments_check`, every
second in every worker) records in `Game.deadline_notice` that the claim was announced and
bumps the game's version once when a player's gone-time passes (the envelope's `can_claim` turns
true; `win_claimable` to the others), and once more should they come back. A live game has no
time per move, so its `deadline_notice` is free for this.

Reading presence is one cache round trip for any number of games; `can_claim_for` reads it only
for a game whose claim was announced, so envelopes of games where everybody is there cost none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from django.conf import settings

from greycircle import presence
from greycircle.games.models import Game, GameStatus


def abandon_after_seconds() -> float:
    return float(settings.GAMES_CLOCK_ABANDON_SECONDS)


def abandonable(game: Game, *, takeover: bool) -> bool:
    """Whether a person may abandon `game` (see the module); `takeover`: whether a computer
    would take an absent player's seat over in it (`selectors.takeover_level_for`)."""
    return (
        game.clock_initial_ms is not None
        and game.status == GameStatus.ACTIVE
        and not takeover
        and sum(seat.is_person for seat in game.seats.all()) >= 2
    )


def users_of(games: Iterable[Game]) -> set[int]:
    """The users seated as people in `games`, whose presence says who abandoned them."""
    return {seat.user_id for game in games for seat in game.seats.all() if seat.is_person}


def seats_abandoned(
    game: Game, *, now: datetime, gone_since: Mapping[int, float] | None = None
) -> list[int]:
    """The seats of people past their first turn in the abandonable `game` gone for
    GAMES_CLOCK_ABANDON_SECONDS at `now`; `gone_since` as `presence.users_gone_since` gives it
    (read now if not given)."""
    if gone_since is None:
        gone_since = presence.users_gone_since(users_of([game]), now=now.timestamp())
    return [
        seat.index
        for seat in game.seats.all()
        if seat.is_person
        and seat_abandoned(
            moved=game.clock_moved[seat.index], gone_since=gone_since.get(seat.user_id), now=now
        )
    ]


def seat_abandoned(*, moved: bool, gone_since: float | None, now: datetime) -> bool:
    """Whether a person's seat is abandoned at `now`: past its first turn (`moved`), its user
    gone since `gone_since` (None: there) for GAMES_CLOCK_ABANDON_SECONDS."""
    return (
        moved and gone_since is not None and gone_since <= now.timestamp() - abandon_after_seconds()
    )


def claim_opens_at(game: Game, *, claimant: int, gone_since: Mapping[int, float]) -> float | None:
    """When (seconds since the epoch) `claimant` may first claim the win in `game` from the
    people gone now, if none has been gone long enough yet; None if everybody else is there."""
    moments = [
        gone_since[seat.user_id] + abandon_after_seconds()
        for seat in game.seats.all()
        if seat.is_person
        and seat.index != claimant
        and game.clock_moved[seat.index]
        and seat.user_id in gone_since
    ]
    return min(moments, default=None)
