"""Who is told what: the inbox's receivers of what happened on the platform
(greycircle.games.signals) and between friends (accounts.signals.friend_news), connected in the
app's `ready()`.

Each runs as its signal is sent, in the request or task that made the change and inside its
transaction, and queues the notifications it causes as one task row in that transaction
(tasks.notifications_send), an outbox: they commit or roll back with the change, and none is lost
to a failure after the commit; the task worker keeps them in the inbox and tells the players'
streams (greycircle.notifications.delivery). Nobody is told of what they did themselves: the
actor (actors.actor_id) is left out here, while the request is still at hand, not in the worker.
"""

from __future__ import annotations

import uuid
from typing import Any

from greycircle.games.models import GameStatus, InvitationStatus
from greycircle.games.signals import GameFacts, InvitationFacts, SeatInvitationFacts
from greycircle.notifications import tasks
from greycircle.notifications.actors import actor_id

# A game's news that no inbox row keeps, so that the version order of the recipient's
# notification about the game has nothing to tell a second delivery by (a task run again after
# its worker lost the database): a `key` has each applied at most once, as _enqueue's do.
UNKEPT_GAME_EVENTS = frozenset({"player_joined", "game_withdrawn"})


def game_change_news(
    *,
    game: GameFacts,
    created: bool,
    invitations: list[SeatInvitationFacts],
    joined: int | None,
    ended: bool,
    cancelled: bool,
    actor: int | None,
) -> list[dict[str, Any]]:
    """The notifications of one game change (`signals.game_changed`'s arguments), as
    `{"user_id", "event", "data"}` each (JSON): for the players whom it concerns, all but `actor`
    (the user who made it, whose pages follow the game on its sockets)."""
    about = {"game": game["game"], "kind": game["kind"], "version": game["version"]}
    seats = game["seats"]
    # The seat of whoever started the game: a rematch seats its asker anywhere.
    creator = next((seat for seat in seats if seat["user_id"] == game["created_by"]), seats[0])
    pending = {invitation["seat"]: invitation for invitation in invitations}
    joined_seat = next((seat for seat in seats if seat["index"] == joined), None)
    news: list[dict[str, Any]] = []

    def tell(user_id: int, event: str, **data: Any) -> None:
        item = {"user_id": user_id, "event": event, "data": data}
        if event in UNKEPT_GAME_EVENTS:
            item["key"] = uuid.uuid4().hex
        news.append(item)

    for seat in seats:
        user_id = seat["user_id"]
        if user_id is None or user_id == actor:
            continue
        if created and user_id != game["created_by"]:
            invitation = pending.get(seat["index"])
            extra = (
                {"invitation": invitation["invitation"], "expires_at": invitation["expires_at"]}
                if invitation is not None
                else {}
            )
            tell(user_id, "invitation", by=creator["name"], **about, **extra)
        if joined_seat is not None and seat["index"] != joined_seat["index"]:
            tell(user_id, "player_joined", player=joined_seat["name"], **about)
        if (
            game["status"] == GameStatus.ACTIVE
            and game["to_move"] == seat["index"]
            and seat["is_person"]
            # In a live game only a first turn, whose limit is short, is told: after it the
            # player is at the board, and a notification for every move would be noise.
            and (not game["live"] or seat["first_turn"])
        ):
            tell(user_id, "your_turn", **about)
        if ended:
            tell(user_id, "game_over", outcome=game["outcome"], **about)
        if cancelled and user_id != game["created_by"]:
            tell(user_id, "game_withdrawn", by=creator["name"], **about)
    return news


def game_changed_received(
    sender: Any,
    *,
    game: GameFacts,
    created: bool,
    invitations: list[SeatInvitationFacts],
    joined: int | None,
    ended: bool,
    cancelled: bool,
    **kwargs: Any,
) -> None:
    """Queue the notifications of a game change (`game_change_news`) as one task, in the change's
    transaction: should the queueing fail, so does the change (its request answers with the
    database's error and changes nothing), rather than commit without its notifications."""
    news = game_change_news(
        game=game,
        created=created,
        invitations=invitations,
        joined=joined,
        ended=ended,
        cancelled=cancelled,
        actor=actor_id(),
    )
    if news:
        tasks.notifications_enqueue(news=news)


def invitation_changed_received(sender: Any, *, invitation: InvitationFacts, **kwargs: Any) -> None:
    """Queue, in the answer's transaction, the inviter's news of how their invitation was answered
    (`invitation_accepted`, `_declined`, `_expired`), or the invitee's that it was withdrawn
    (`invitation_cancelled`)."""
    about = {
        "invitation": invitation["invitation"],
        "game": invitation["game"],
        "kind": invitation["kind"],
        "version": invitation["version"],
        "status": invitation["status"],
    }
    if invitation["status"] == InvitationStatus.CANCELLED:
        _enqueue(
            user_id=invitation["invitee_id"],
            event="invitation_cancelled",
            data={"by": invitation["inviter"], **about},
        )
    elif invitation["inviter_id"] is not None:
        _enqueue(
            user_id=invitation["inviter_id"],
            event=f"invitation_{invitation['status']}",
            data={"player": invitation["invitee"], **about},
        )


def news_received(
    sender: Any, *, user_id: int, event: str, data: dict[str, Any], **kwargs: Any
) -> None:
    """Queue one user's news of an event (`signals.game_news`, `accounts.signals.friend_news`) in
    the transaction of the change it tells of."""
    _enqueue(user_id=user_id, event=event, data=data)


def _enqueue(*, user_id: int, event: str, data: dict[str, Any]) -> None:
    """Queue one notification, unless it is for the user who made the change, with a `key` of
    its own: nothing else tells two of these events apart, and the key has it applied at most
    once however often its task runs (greycircle.notifications.delivery)."""
    if user_id != actor_id():
        item = {"user_id": user_id, "event": event, "data": data, "key": uuid.uuid4().hex}
        tasks.notifications_enqueue(news=[item])
