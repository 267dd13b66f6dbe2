"""What each event tells its recipient in the inbox: the kind, the words and the link.

Every text is written for the person who reads it ("bob invites you to play Circles", "You won
against bob at Circles"). Games are named by their kind's title from the registry, never by
importing a game app. Events that are not for the inbox (a player joined a table, an unknown
event) have no draft.

Games against computers only (one person at the table) keep no "your turn" or "game over" in the
inbox: that person is playing on the game's page, which says so already, and the computer answers
within seconds, so the inbox would fill with a notification for every move. Their draft is
`quiet`: kept hidden, never pushed nor mailed, only so that the game's version order and
at-most-once apply to these events too (greycircle.notifications.services).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.urls import reverse

from greycircle.games import registry
from greycircle.games.models import Game, GameStatus, Seat
from greycircle.games.results import ABORT_NO_FIRST_MOVE, ABORT_STAFF
from greycircle.notifications.models import NotificationKind


@dataclass(frozen=True)
class Draft:
    """A notification to keep: its kind, text (for the recipient), link and game."""

    kind: str
    text: str
    link: str
    game_id: int | None = None
    quiet: bool = False
    """True: for no channel, kept hidden only to order the game's events (see the module)."""
    coalesce: bool = False
    """True: an unread notification of the same kind and link is refreshed rather than another
    kept (a friend's messages: one unread notification per conversation)."""


# Events of the invitations a player sent, as their kind says the answer.
INVITATION_ANSWERS = {
    "invitation_accepted": "{player} accepted your invitation to play {title}",
    "invitation_declined": "{player} declined your invitation to play {title}",
    "invitation_expired": "{player} did not answer your invitation to play {title} in time",
}
# In the inbox only for games between people, quiet otherwise (see the module docstring).
BETWEEN_PEOPLE_ONLY = {"your_turn", "game_over"}
# The events whose notification is about a game (the others need none loaded).
GAME_EVENTS = frozenset(
    {"invitation", *INVITATION_ANSWERS, "your_turn", "reminder", "time_running_out", "game_over"}
)


# Checks, by event, of news that may be out of date when the task worker delivers it, registered
# by the app above the platform that sends the event (greycircle.conversations: a message its
# recipient read on the open thread before the worker came to it is no news). A check takes the
# recipient's id and the event's data; True: out of date, nothing is kept.
_OUT_OF_DATE: dict[str, Callable[[int, Mapping[str, Any]], bool]] = {}


def out_of_date_check_register(
    *, event: str, check: Callable[[int, Mapping[str, Any]], bool]
) -> None:
    _OUT_OF_DATE[event] = check


def game_title(kind: str) -> str:
    try:
        return registry.get(kind).title
    except registry.UnknownKind:
        return kind


def names(words: Sequence[str]) -> str:
    """The names joined: "bob", "bob and carol", "bob, carol and dave"."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def _seat_of(seats: list[Seat], user_id: int) -> Seat | None:
    return next((seat for seat in seats if seat.user_id == user_id), None)


def _others(seats: list[Seat], user_id: int, *, leaving_out: Sequence[str] = ()) -> str:
    """The names at the table but the recipient's (and `leaving_out`), open seats left out."""
    return names(
        [
            seat.name
            for seat in seats
            if seat.user_id != user_id and not seat.is_open and seat.name not in leaving_out
        ]
    )


def _people(seats: list[Seat]) -> int:
    return sum(1 for seat in seats if seat.user_id is not None)


def moderation_notice_text(data: Mapping[str, Any]) -> str:
    """A sanction imposed or lifted (greycircle.moderation.signals), told to its player: the
    moderators' notice and, for a mute or bar, when it ends."""
    text = f"From the moderators: {data.get('notice') or ''}".strip()
    until = data.get("until")
    if until:
        ends = datetime.fromisoformat(str(until)).astimezone(UTC)
        text += f" (until {ends:%Y-%m-%d %H:%M} UTC)"
    return text


def game_over_text(game: Game, seats: list[Seat], *, recipient_id: int) -> str:
    """How `game` ended, for the player `recipient_id`: won, lost, tied, shared, aborted (a
    first move not made in time) or stopped by the staff."""
    title = game_title(game.kind)
    against = _others(seats, recipient_id)
    outcome = game.outcome or {}
    mine = _seat_of(seats, recipient_id)
    me = mine.index if mine is not None else None
    if game.status == GameStatus.ABORTED or "winners" not in outcome:
        reason, late = outcome.get("reason"), outcome.get("seat")
        if reason == ABORT_NO_FIRST_MOVE:
            who = "you" if late == me else names([s.name for s in seats if s.index == late])
            return (
                f"Your game of {title} against {against} was aborted: {who or 'a player'} did "
                "not make a first move in time"
            )
        if reason == ABORT_STAFF:
            return f"Your game of {title} against {against} was stopped by the staff"
        return f"Your game of {title} against {against} was aborted"
    name_of = {seat.index: seat.name for seat in seats}
    winners: list[int] = list(outcome["winners"])
    resigned = [seat for seat in seats if seat.index not in winners]
    by_resignation = outcome.get("reason") == "resignation" and len(resigned) == 1
    if by_resignation and resigned[0].index == me:
        return f"You resigned your game of {title} against {against}"
    why = f": {resigned[0].name} resigned" if by_resignation else ""
    if not winners:
        return f"Tied with {against} at {title}"
    if me in winners:
        partners = [name_of[index] for index in winners if index != me]
        if partners:
            return f"You shared the win with {names(partners)} at {title}{why}"
        return f"You won against {against} at {title}{why}"
    return f"You lost to {names([name_of[index] for index in winners])} at {title}{why}"


def draft_for(
    *,
    recipient_id: int,
    event: str,
    data: Mapping[str, Any],
    game: Game | None = None,
    seats: Sequence[Seat] = (),
) -> Draft | None:
    """The notification `event` leaves in the inbox of `recipient_id`, or None.

    `game` is the game the event is about, if any (needed for GAME_EVENTS), `seats` its seats.
    """
    by = str(data.get("by") or "Someone")
    friends = reverse("friends")
    if event == "friend_request":
        return Draft(NotificationKind.FRIEND_REQUEST, f"{by} wants to be your friend", friends)
    if event == "friend_accepted":
        text = f"{by} accepted your friend request"
        return Draft(NotificationKind.FRIEND_ACCEPTED, text, friends)
    if event in _OUT_OF_DATE and _OUT_OF_DATE[event](recipient_id, data):
        return None
    if event == "message":
        # Never the message itself: it may be mailed or pushed, and staff may yet hide it.
        link = reverse("messages-thread", args=[by])
        return Draft(NotificationKind.MESSAGE, f"{by} sent you a message", link, coalesce=True)
    if event == "moderation_notice":
        # The notice as the moderators wrote it for the player, never their reason.
        return Draft(NotificationKind.MODERATION_NOTICE, moderation_notice_text(data), "/")
    if event == "report_handled":
        # Never what was done, nor to whom beyond the name they reported (reports.resolution).
        text = f"Thank you: the moderators have looked at your report about {data.get('name')}"
        return Draft(NotificationKind.REPORT_HANDLED, text, reverse("inbox"))
    if game is None or event not in GAME_EVENTS:
        return None
    seats = list(seats)
    quiet = event in BETWEEN_PEOPLE_ONLY and _people(seats) < 2
    title = game_title(game.kind)
    link = reverse("game", args=[game.pk])

    def draft(kind: str, text: str) -> Draft:
        return Draft(kind, text, link, game.pk, quiet=quiet)

    if event == "invitation":
        others = _others(seats, recipient_id, leaving_out=[by])
        with_others = f" with {others}" if others else ""
        return draft(NotificationKind.INVITATION, f"{by} invites you to play {title}{with_others}")
    if event in INVITATION_ANSWERS:
        player = str(data.get("player") or "Someone")
        text = INVITATION_ANSWERS[event].format(player=player, title=title)
        return draft(NotificationKind.INVITATION_ANSWERED, text)
    against = _others(seats, recipient_id)
    if event == "your_turn":
        return draft(NotificationKind.YOUR_TURN, f"It is your turn in {title} against {against}")
    if event == "reminder":
        return draft(NotificationKind.REMINDER, f"{by} reminds you it is your turn in {title}")
    if event == "time_running_out":
        return draft(
            NotificationKind.TIME_RUNNING_OUT,
            f"Your time to move in {title} against {against} is nearly up",
        )
    if event == "game_over":
        text = game_over_text(game, seats, recipient_id=recipient_id)
        return draft(NotificationKind.GAME_OVER, text)
    return None
