"""Telling users of events: keep each in their inbox (greycircle.notifications.services), then
send it on their personal stream (`ws/me/`) with what it did to the inbox.

The events were queued by greycircle.notifications.receivers in the transaction of the change
they tell of; the task worker delivers them (`notifications_publish`, the body of
tasks.notifications_send), after that change is committed: at least once, since a task may run
again (retried after a failure past its deliveries, or a dead worker's task queued again), and
applied at most once. An event about a game carries the game's version, by which the inbox
drops one it has already applied (services.notification_deliver: a game against computers keeps a
hidden row for it, so that its events are ordered too); the others (friends' news, an
answer to an invitation, a reminder, which may repeat at one version) carry a `key`, whose
receipt (models.DeliveryReceipt) is written in the transaction that delivers the event: a second
delivery finds it, and changes and tells nothing. The game's news that keeps nothing (a player
joined, a game withdrawn) has neither: told twice, it only has the open pages fetch again what
they show.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from greycircle.games.events import jsonable, publish, user_group
from greycircle.notifications.models import DeliveryReceipt
from greycircle.notifications.services import notification_deliver

logger = logging.getLogger(__name__)


def notifications_publish(*, news: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Keep and tell each of several `{"user_id", "event", "data"}` (and `key`, for some: see the
    module), with one publish for all.

    Returns those that failed on a database error, neither kept nor told: the caller tries them
    again (tasks.notifications_send; each is applied at most once, see the module).
    """
    messages = []
    failed = []
    for item in news:
        try:
            message = notification_message(
                user_id=item["user_id"], event=item["event"], data=item["data"], key=item.get("key")
            )
        except DatabaseError:
            failed.append(item)
        else:
            if message is not None:
                messages.append(message)
    publish(messages)
    return failed


def notification_message(
    *, user_id: int, event: str, data: Mapping[str, Any], key: str | None = None
) -> tuple[str, dict[str, Any]] | None:
    """Keep the notification `event` in `user_id`'s inbox if it is for the inbox, and return the
    message for their personal stream; None if the inbox had newer news, or had it already
    (services.notification_deliver), or the event of `key` was delivered already (see the
    module): an old or repeated event is told to nobody. A database error is raised: the event is
    to be delivered again, not told without its inbox.

    The frame: `{"notification": {"event": ..., **data}, "inbox": the notification kept or None,
    "removed": [ids it replaced], "read": [ids it marked read], "unread_count": N}`.
    """
    message: dict[str, Any] = {"notification": jsonable({"event": event, **data})}
    # With a key, its receipt and the delivery commit together (an event without one needs no
    # transaction beyond the delivery's own: the path of every move's news).
    with transaction.atomic() if key is not None else contextlib.nullcontext():
        if key is not None and not _receipt_written(key):
            return None
        try:
            delivery = notification_deliver(user_id=user_id, event=event, data=data)
        except DatabaseError:
            raise
        except Exception:
            # A bug, not an outage: trying again would fail again. The event still goes out
            # live, only the inbox misses it.
            logger.exception("could not keep the %s notification of user %s", event, user_id)
        else:
            if not delivery.applied:
                return None
            message.update(jsonable(delivery.frame()))
    return user_group(user_id), {"type": "user.notification", **message}


# Longer than any task can run again: its retries after database errors end within a minute
# (tasks.NOTIFICATIONS_ATTEMPTS), a dead worker's task is queued again within minutes.
RECEIPTS_KEPT = timedelta(days=1)
RECEIPTS_SWEEP_EVERY = timedelta(hours=1)


def _receipt_written(key: str) -> bool:
    """Write the receipt of the event `key` in the current transaction; False if it was
    delivered already. (Two workers delivering it at once: the second waits for the first's
    transaction, on PostgreSQL, then finds its receipt.)"""
    try:
        with transaction.atomic():
            DeliveryReceipt.objects.create(key=key)
    except IntegrityError:
        return False
    return True


def delivery_receipts_prune() -> int:
    """Remove the receipts older than `RECEIPTS_KEPT` (a sweep of every task worker); how many."""
    deleted, _ = DeliveryReceipt.objects.filter(
        delivered_at__lt=timezone.now() - RECEIPTS_KEPT
    ).delete()
    return deleted
