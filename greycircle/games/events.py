"""Live updates, sent only after the change they describe has been committed.

Each game has one channel group per audience (each seat, and spectators); a view is computed once
per audience, so no group message ever carries what another audience may not see. Each user has a
personal group for notifications (`ws/me/`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import DatabaseError
from rest_framework.utils.encoders import JSONEncoder

from greycircle.games import selectors
from greycircle.games.models import Game, GameStatus, Invitation, InvitationStatus, Move, Seat
from greycircle.notifications.actors import actor_id
from greycircle.outages import REDIS_ERRORS, Outage

logger = logging.getLogger(__name__)


def game_group(game_id: int, seat: int | None) -> str:
    audience = "spectators" if seat is None else f"seat{seat}"
    return f"game.{game_id}.{audience}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def user_sockets_group(user_id: int) -> str:
    """Every socket of one user, of whatever kind (to close them all: `user_sockets_close`)."""
    return f"sockets.{user_id}"


# Close codes of `user_sockets_close` (greycircle.games.consumers says what each means).
ACCOUNT_DEACTIVATED = 4403
ACCOUNT_DELETED = 4401


def user_sockets_close(*, user_id: int, code: int) -> None:
    """Close every socket of `user_id` now, on every server: their account was deactivated
    (`ACCOUNT_DEACTIVATED`) or deleted (`ACCOUNT_DELETED`). Call it once the change is committed;
    a reconnect is refused, since the account can no longer sign in."""
    publish([(user_sockets_group(user_id), {"type": "user.closed", "code": code})])


def jsonable(payload: dict[str, Any]) -> dict[str, Any]:
    # Channel layers serialise with msgpack: send dates and decimals as the JSON strings the REST
    # API sends (DRF's encoder: full microseconds), so a frame and a response agree.
    return json.loads(json.dumps(payload, cls=JSONEncoder))


# Publishing never holds up the request or task that made the change for longer than this.
PUBLISH_TIMEOUT = 2.0
publishing = Outage(
    "live updates (publishing)",
    consequence="changes are not sent to sockets until it is back; clients catch up by version "
    "when their sockets reconnect",
)


async def _group_send_many(layer: Any, messages: list[tuple[str, dict[str, Any]]]) -> None:
    await asyncio.wait_for(layer.group_send_many(messages), timeout=PUBLISH_TIMEOUT)


def publish(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send every `(group, message)` of one change in one call to the channel layer
    (greycircle.runtime.channels: one pipeline to Redis for all of them)."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    if publishing.skip():
        # Redis failed a moment ago: don't make every change wait on it again.
        return
    try:
        send_sync = getattr(layer, "group_send_many_sync", None)
        if send_sync is not None:
            send_sync(messages)
        else:
            async_to_sync(_group_send_many)(layer, messages)
    except REDIS_ERRORS as error:
        # The change is committed; a client that missed this update catches up by version (its
        # socket is closed with 4503 when its server loses Redis, and reconnects).
        publishing.failed(error)
    except Exception:
        logger.exception("could not publish to %s", ", ".join(group for group, _ in messages))
    else:
        publishing.succeeded()


def game_changed(
    *,
    game: Game,
    moves: Sequence[Move] = (),
    created: bool = False,
    joined: Seat | None = None,
    ended: bool = False,
    cancelled: bool = False,
) -> None:
    """Send each audience its new envelope (with the log entries `moves` this change added) in
    one publish, and queue the notifications of the players whom the change concerns — all but
    the player who made it (`actors.actor_id`), whose pages follow the game on its sockets.

    The inbox is kept by the task worker (`notifications_send`), which then tells each player's
    stream: the request that made the change only publishes and queues one task.
    """
    game_envelopes_send(game=game, moves=moves)
    about = {"game": game.pk, "kind": game.kind, "version": game.version}
    seats = list(game.seats.all())
    actor = actor_id()
    # The seat of whoever started the game: a rematch seats its asker anywhere.
    creator = next((seat for seat in seats if seat.user_id == game.created_by_id), seats[0])
    invitations = (
        {
            invitation.seat: invitation
            for invitation in game.invitations.filter(status=InvitationStatus.PENDING)
        }
        if created
        else {}
    )
    news: list[dict[str, Any]] = []

    def tell(user_id: int, event: str, **data: Any) -> None:
        news.append({"user_id": user_id, "event": event, "data": data})

    for seat in seats:
        if seat.user_id is None or seat.user_id == actor:
            continue
        if created and seat.user_id != game.created_by_id:
            invitation = invitations.get(seat.index)
            extra = (
                {"invitation": invitation.pk, "expires_at": invitation.expires_at}
                if invitation is not None
                else {}
            )
            tell(seat.user_id, "invitation", by=creator.name, **about, **extra)
        if joined is not None and seat.index != joined.index:
            tell(seat.user_id, "player_joined", player=joined.name, **about)
        if game.status == GameStatus.ACTIVE and game.to_move == seat.index and seat.is_person:
            tell(seat.user_id, "your_turn", **about)
        if ended:
            tell(seat.user_id, "game_over", outcome=game.outcome, **about)
        if cancelled and seat.user_id != game.created_by_id:
            tell(seat.user_id, "game_withdrawn", by=creator.name, **about)
    if news:
        # Imported here: the tasks module runs services, which publish through this module.
        from greycircle.games import tasks

        try:
            tasks.notifications_enqueue(news=jsonable({"news": news})["news"])
        except DatabaseError as error:
            # The change is committed and its frames are out: only the inbox misses it.
            logger.warning(
                "could not queue the notifications of game %s: database error: %s",
                game.pk,
                _first_line(error),
            )


def game_envelopes_send(*, game: Game, moves: Sequence[Move] = ()) -> None:
    """Send each audience of `game` its new envelope and its view of the log entries `moves`, all
    in one publish (and nobody a notification)."""
    messages = []
    for seat in selectors.game_audiences(game=game):
        frame = {
            "type": "game",
            "envelope": selectors.game_view_for_seat(game=game, seat=seat),
            # The log entries the change added, as this audience may see them: clients extend
            # their log without fetching it (`GET .../moves/?after=N` on a gap).
            "moves": [selectors.move_entry_for_seat(move=move, seat=seat) for move in moves],
        }
        messages.append(
            (game_group(game.pk, seat), {"type": "game.envelope", "frame": frame_text(frame)})
        )
    publish(messages)


def frame_text(frame: dict[str, Any]) -> str:
    """A socket frame as the JSON text sent (dates and decimals as the REST API writes them)."""
    return json.dumps(frame, cls=JSONEncoder, separators=(",", ":"))


def invitation_answered(*, invitation: Invitation, game: Game) -> None:
    """Tell the inviter how their invitation was answered (`invitation_accepted`, `_declined`,
    `_expired`), or the invitee that it was withdrawn (`invitation_cancelled`)."""
    about = {
        "invitation": invitation.pk,
        "game": game.pk,
        "kind": game.kind,
        "version": game.version,
        "status": invitation.status,
    }
    if invitation.status == InvitationStatus.CANCELLED:
        by = invitation.inviter.username if invitation.inviter_id else None
        notify(user_id=invitation.invitee_id, event="invitation_cancelled", by=by, **about)
    elif invitation.inviter_id is not None:
        notify(
            user_id=invitation.inviter_id,
            event=f"invitation_{invitation.status}",
            player=invitation.invitee.username,
            **about,
        )


def game_poked(*, game: Game, by: Any, target: Any) -> None:
    notify(user_id=target.pk, event="reminder", game=game.pk, kind=game.kind, by=by.username)


def notify(*, user_id: int, event: str, **data: Any) -> None:
    """Tell one user of an event: keep it in their inbox if it is for the inbox, then send it
    to their personal stream (`ws/me/`) with what it did to the inbox. Nobody is told of what
    they did themselves (`actors.actor_id`)."""
    if user_id == actor_id():
        return
    publish([notification_message(user_id=user_id, event=event, data=data)])


def notifications_publish(*, news: Sequence[Mapping[str, Any]]) -> None:
    """`notify` for several `{"user_id", "event", "data"}` at once: one publish for all."""
    publish(
        [
            notification_message(user_id=item["user_id"], event=item["event"], data=item["data"])
            for item in news
        ]
    )


def notification_message(
    *, user_id: int, event: str, data: Mapping[str, Any]
) -> tuple[str, dict[str, Any]]:
    """Keep the notification `event` in `user_id`'s inbox if it is for the inbox, and return the
    message for their personal stream.

    The frame: `{"notification": {"event": ..., **data}, "inbox": the notification kept or None,
    "removed": [ids it replaced], "read": [ids it marked read], "unread_count": N}`.
    """
    # Imported here: notifications build on the game platform (and publish through this module).
    from greycircle.notifications.services import notification_deliver

    message: dict[str, Any] = {"notification": jsonable({"event": event, **data})}
    try:
        delivery = notification_deliver(user_id=user_id, event=event, data=data)
    except DatabaseError as error:
        # The database failing (an outage the worker rides out) is one line, not a traceback.
        logger.warning(
            "could not keep the %s notification of user %s: database error: %s",
            event,
            user_id,
            _first_line(error),
        )
    except Exception:
        # The change is committed; the event still goes out live, only the inbox misses it.
        logger.exception("could not keep the %s notification of user %s", event, user_id)
    else:
        message.update(jsonable(delivery.frame()))
    return user_group(user_id), {"type": "user.notification", **message}


def unread_changed(*, user_id: int, unread_count: int, read: list[int]) -> None:
    """Tell a user's streams that notifications were marked read (`read`: their ids)."""
    publish(
        [
            (
                user_group(user_id),
                {"type": "user.unread", "unread_count": unread_count, "read": list(read)},
            )
        ]
    )


def _first_line(error: BaseException) -> str:
    """What a log line says of a database error: its first line, or its type."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
