"""Telling users of events: keep each in their inbox (greycircle.notifications.services), then
send it on their personal stream (`ws/me/`) with what it did to the inbox.

The events were queued by greycircle.notifications.receivers in the transaction of the change
they tell of; the task worker delivers them (`notifications_publish`, the body of
tasks.notifications_send), after that change is committed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import DatabaseError

from greycircle.games.events import jsonable, publish, user_group
from greycircle.notifications.services import notification_deliver

logger = logging.getLogger(__name__)


def notifications_publish(*, news: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Keep and tell each of several `{"user_id", "event", "data"}`, with one publish for all.

    Returns those that failed on a database error, neither kept nor told: the caller tries them
    again (tasks.notifications_send; each is applied at most once, services.notification_deliver).
    """
    messages = []
    failed = []
    for item in news:
        try:
            message = notification_message(
                user_id=item["user_id"], event=item["event"], data=item["data"]
            )
        except DatabaseError:
            failed.append(item)
        else:
            if message is not None:
                messages.append(message)
    publish(messages)
    return failed


def notification_message(
    *, user_id: int, event: str, data: Mapping[str, Any]
) -> tuple[str, dict[str, Any]] | None:
    """Keep the notification `event` in `user_id`'s inbox if it is for the inbox, and return the
    message for their personal stream; None if the inbox had newer news, or had it already
    (services.notification_deliver: an old or repeated event is told to nobody). A database
    error is raised: the event is to be delivered again, not told without its inbox.

    The frame: `{"notification": {"event": ..., **data}, "inbox": the notification kept or None,
    "removed": [ids it replaced], "read": [ids it marked read], "unread_count": N}`.
    """
    message: dict[str, Any] = {"notification": jsonable({"event": event, **data})}
    try:
        delivery = notification_deliver(user_id=user_id, event=event, data=data)
    except DatabaseError:
        raise
    except Exception:
        # A bug, not an outage: trying again would fail again. The event still goes out live,
        # only the inbox misses it.
        logger.exception("could not keep the %s notification of user %s", event, user_id)
    else:
        if not delivery.applied:
            return None
        message.update(jsonable(delivery.frame()))
    return user_group(user_id), {"type": "user.notification", **message}
