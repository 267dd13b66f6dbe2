"""The notifications' task, run by `manage.py games_worker` from the database queue: the news of
one change (greycircle.notifications.receivers) kept in each player's inbox and told to their
streams by a worker, not by the request that made the change.

Queued here and done in greycircle.notifications.delivery, so that the module that queues the task
and the one that does its work never import each other. (The e-mail task is in
greycircle.notifications.mail_tasks.)
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.utils import timezone
from django_tasks import task

from greycircle.notifications import delivery
from greycircle.runtime.supervision import backoff_delay
from greycircle.runtime.worker import workers_wake

logger = logging.getLogger(__name__)

# A queue of their own: besides the workers that run every queue (where notifications come after
# the computers' turns, so that under load a game goes on before its players' inboxes are kept),
# the queue's own workers (`manage.py games_worker --queue-name notifications`; one thread of the
# embedded site) run nothing else, so a notification never waits behind computers that keep
# every other worker busy: with one queue, "your turn" waited up to 580 s (issue 21).
NOTIFICATIONS_QUEUE = "notifications"
NOTIFICATIONS_PRIORITY = -1


NOTIFICATIONS_ATTEMPTS = 8
"""Attempts at delivering one notification that fails on a database error, the pauses between
them doubling from GAMES_WORKER_RETRY_SECONDS up to GAMES_WORKER_RETRY_MAX_SECONDS (0.5 s to
10 s by default: about 35 s in all, through a database restart)."""


@task(priority=NOTIFICATIONS_PRIORITY, queue_name=NOTIFICATIONS_QUEUE)
def notifications_send(news: list[dict[str, Any]], attempt: int = 0) -> None:
    """Keep each notification of one change in its player's inbox and tell their streams; queue
    again, after a pause, those that failed on a database error (`attempt`: how many attempts
    came before this one).

    Safe to run twice (services.notification_deliver applies each event at most once): should
    the queueing itself fail (the database is down), the task fails on that error and the worker
    queues it again once the database is back (greycircle.games.tasks.task_retry)."""
    if attempt >= NOTIFICATIONS_ATTEMPTS:
        logger.error(
            "gave up on %d notifications after %d attempts (database errors): %s",
            len(news),
            attempt,
            ", ".join(f"{item['event']} for user {item['user_id']}" for item in news),
        )
        return
    failed = delivery.notifications_publish(news=news)
    if not failed:
        return
    delay = backoff_delay(failures=attempt)
    notifications_send.using(run_after=timezone.now() + timedelta(seconds=delay)).enqueue(
        failed, attempt=attempt + 1
    )
    logger.warning(
        "%d of %d notifications failed on a database error (attempt %d of %d); again in %.1f s",
        len(failed),
        len(news),
        attempt + 1,
        NOTIFICATIONS_ATTEMPTS,
        delay,
    )


def notifications_enqueue(*, news: list[dict[str, Any]]) -> None:
    """Queue the notifications of one change: `{"user_id", "event", "data"}` each (and a `key`,
    for an event no game version tells apart from another: greycircle.notifications.delivery),
    JSON only."""
    notifications_send.enqueue(news)
    # This process's task workers (the embedded site's), if it runs any, claim it now rather than
    # at their next poll; those of other processes are woken by the database (PostgreSQL's
    # NOTIFY) or poll.
    workers_wake()
