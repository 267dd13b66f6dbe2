"""Telling a user of an event: keep it in their inbox (greycircle.notifications.services), then
send it on their personal stream (`ws/me/`) with what it did to the inbox.

The events come from greycircle.notifications.receivers, after the change they tell of is
committed: at once (`notify`), or, for the players of a game change, from the task worker
(`notifications_publish`, the body of tasks.notifications_send).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import DatabaseError

from greycircle.games.events import jsonable, publish, user_group
from greycircle.notifications.actors import actor_id
from greycircle.notifications.services import notification_deliver

logger = logging.getLogger(__name__)


def notify(*, user_id: int, event: str, **data: Any) -> None:
    """Tell one user of an event: keep it in their inbox if it is for the inbox, then send it
    to their personal stream (`ws/me/`) with what it did to the inbox. Nobody is told of what
    they did themselves (`actors.actor_id`)."""
    if user_id == actor_id():
        return
    notifications_publish(news=[{"user_id": user_id, "event": event, "data": data}])


def notifications_publish(*, news: Sequence[Mapping[str, Any]]) -> None:
    """`notify` for several `{"user_id", "event", "data"}` at once: one publish for all."""
    messages = [
        notification_message(user_id=item["user_id"], event=item["event"], data=item["data"])
        for item in news
    ]
    publish([message for message in messages if message is not None])


def notification_message(
    *, user_id: int, event: str, data: Mapping[str, Any]
) -> tuple[str, dict[str, Any]] | None:
    """Keep the notification `event` in `user_id`'s inbox if it is for the inbox, and return the
    message for their personal stream; None if the inbox had newer news, or had it already
    (services.notification_deliver: an old or repeated event is told to nobody).

    The frame: `{"notification": {"event": ..., **data}, "inbox": the notification kept or None,
    "removed": [ids it replaced], "read": [ids it marked read], "unread_count": N}`.
    """
    message: dict[str, Any] = {"notification": jsonable({"event": event, **data})}
    try:
        delivery = notification_deliver(user_id=user_id, event=event, data=data)
    except DatabaseError as error:
        # The database failing (an outage the worker rides out) is one line, not a traceback.
        logger.warning(
            "could not keep the %s notification of user %s: database error: %s",
            event,
            user_id,
            first_line(error),
        )
    except Exception:
        # The change is committed; the event still goes out live, only the inbox misses it.
        logger.exception("could not keep the %s notification of user %s", event, user_id)
    else:
        if not delivery.applied:
            return None
        message.update(jsonable(delivery.frame()))
    return user_group(user_id), {"type": "user.notification", **message}


def first_line(error: BaseException) -> str:
    """What a log line says of a database error: its first line, or its type."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
