"""What happened on the game platform, for whoever follows it (the inbox:
greycircle.notifications.receivers, connected in its app's `ready()`).

greycircle.games.events sends each signal synchronously, in the request or task that made the
change, so that the actor of the change (greycircle.notifications.actors) is still the request's
user: inside the change's transaction (changes.game_commit for `game_changed`; a receiver that
writes rows, such as the inbox's task, writes them in that transaction, and one that raises undoes
the change).

The arguments are plain JSON values, no model instances (dates are ISO strings, as the REST API
writes them): what a receiver is given is all it needs, and can be kept as it is.
"""

from __future__ import annotations

from typing import Any, TypedDict

from django.dispatch import Signal


class SeatFacts(TypedDict):
    index: int
    user_id: int | None
    name: str
    is_person: bool
    # A live game's seat still in its first turn, which has a limit of its own
    # (greycircle.games.clocks); False in a correspondence game.
    first_turn: bool


class GameFacts(TypedDict):
    """A game as a change left it."""

    game: int
    kind: str
    version: int
    status: str
    to_move: int | None
    outcome: Any  # the game's result (JSON), or None while it is not over
    created_by: int | None
    # A live game's players are at the board, its clocks running: no "your turn" for each move.
    live: bool
    seats: list[SeatFacts]


class SeatInvitationFacts(TypedDict):
    """A pending invitation to a seat of a game just set up."""

    seat: int
    invitation: int
    expires_at: str


class InvitationFacts(TypedDict):
    """An invitation just answered (accepted, declined, expired) or withdrawn (cancelled)."""

    invitation: int
    status: str
    game: int
    kind: str
    version: int
    inviter_id: int | None  # None: the inviter's account is gone
    inviter: str | None
    invitee_id: int
    invitee: str


game_changed = Signal()
"""A game changed (sent inside the change's transaction, before its frames are published).
Arguments: `game` (GameFacts), `created` (the game was just set up), `invitations` (list of
SeatInvitationFacts: the pending ones, when `created`), `joined` (the index of the seat just
taken, or None), `ended` (the change finished the game), `cancelled` (the game
was withdrawn before it started)."""

invitation_changed = Signal()
"""An invitation was answered or withdrawn. Argument: `invitation` (InvitationFacts)."""

game_news = Signal()
"""One player is to be told of something about a game (a reminder from another player, their
time running out, a win they can claim, a computer taking over their seat). Arguments: `user_id`,
`event` (the event's name, as `ws/me/` sends it) and `data` (its JSON fields)."""
