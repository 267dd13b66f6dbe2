"""Live updates, sent only after the change they describe has been committed.

Each game has one channel group per audience (each seat, and spectators); a view is computed once
per audience, so no group message ever carries what another audience may not see. Each user has a
personal group for notifications (`ws/me/`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DatabaseError

from greycircle.games import registry, selectors
from greycircle.games.models import Game, GameStatus, Invitation, InvitationStatus, Seat
from greycircle.outages import REDIS_ERRORS, Outage

logger = logging.getLogger(__name__)


def game_group(game_id: int, seat: int | None) -> str:
    audience = "spectators" if seat is None else f"seat{seat}"
    return f"game.{game_id}.{audience}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def jsonable(payload: dict[str, Any]) -> dict[str, Any]:
    # Channel layers serialise with msgpack: send dates and decimals as the JSON strings DRF sends.
    return json.loads(json.dumps(payload, cls=DjangoJSONEncoder))


# Publishing never holds up the request or task that made the change for longer than this.
PUBLISH_TIMEOUT = 2.0
publishing = Outage(
    "live updates (publishing)",
    consequence="changes are not sent to sockets until it is back; clients catch up by version "
    "when their sockets reconnect",
)


async def _group_send(layer: Any, group: str, message: dict[str, Any]) -> None:
    await asyncio.wait_for(layer.group_send(group, message), timeout=PUBLISH_TIMEOUT)


def _send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    if publishing.skip():
        # Redis failed a moment ago: don't make every publish of this change wait on it again.
        return
    try:
        async_to_sync(_group_send)(layer, group, message)
    except REDIS_ERRORS as error:
        # The change is committed; a client that missed this update catches up by version (its
        # socket is closed with 4503 when its server loses Redis, and reconnects).
        publishing.failed(error)
    except Exception:
        logger.exception("could not publish to %s", group)
    else:
        publishing.succeeded()


def game_changed(
    *,
    game: Game,
    created: bool = False,
    joined: Seat | None = None,
    ended: bool = False,
    cancelled: bool = False,
) -> None:
    """Send each audience its new envelope, and notify the players whom the change concerns."""
    game_envelopes_send(game=game)
    about = {"game": game.pk, "kind": game.kind, "version": game.version}
    seats = list(game.seats.all())
    invitations = (
        {
            invitation.seat: invitation
            for invitation in game.invitations.filter(status=InvitationStatus.PENDING)
        }
        if created
        else {}
    )
    for seat in seats:
        if seat.user_id is None:
            continue
        if created and seat.index != 0:
            invitation = invitations.get(seat.index)
            extra = (
                {"invitation": invitation.pk, "expires_at": invitation.expires_at}
                if invitation is not None
                else {}
            )
            notify(user_id=seat.user_id, event="invitation", by=seats[0].name, **about, **extra)
        if joined is not None and seat.index != joined.index:
            notify(user_id=seat.user_id, event="player_joined", player=joined.name, **about)
        if game.status == GameStatus.ACTIVE and game.to_move == seat.index and seat.is_person:
            notify(user_id=seat.user_id, event="your_turn", **about)
        if ended:
            notify(user_id=seat.user_id, event="game_over", outcome=game.outcome, **about)
        if cancelled and seat.user_id != game.created_by_id:
            notify(user_id=seat.user_id, event="game_withdrawn", by=seats[0].name, **about)


def game_envelopes_send(*, game: Game) -> None:
    """Send each audience of `game` its new envelope (and nobody a notification)."""
    rules = registry.get(game.kind).rules
    state = rules.decode(game.state) if game.state else None
    for seat in selectors.game_audiences(game=game):
        envelope = selectors.game_view_for_seat(game=game, seat=seat, state=state)
        _send(game_group(game.pk, seat), {"type": "game.envelope", "envelope": jsonable(envelope)})


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
    to their personal stream (`ws/me/`) with what it did to the inbox.

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
            str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__,
        )
    except Exception:
        # The change is committed; the event still goes out live, only the inbox misses it.
        logger.exception("could not keep the %s notification of user %s", event, user_id)
    else:
        message.update(jsonable(delivery.frame()))
    _send(user_group(user_id), {"type": "user.notification", **message})


def unread_changed(*, user_id: int, unread_count: int, read: list[int]) -> None:
    """Tell a user's streams that notifications were marked read (`read`: their ids)."""
    _send(
        user_group(user_id),
        {"type": "user.unread", "unread_count": unread_count, "read": list(read)},
    )
