"""The notifications' task, run by `manage.py games_worker` from the database queue: the news of
one change (greycircle.notifications.receivers) kept in each player's inbox and told to their
streams by a worker, not by the request that made the change.

Queued here and done in greycircle.notifications.delivery, so that the module that queues the task
and the one that does its work never import each other. (The e-mail task is in
greycircle.notifications.mail_tasks.)
"""

from __future__ import annotations

from typing import Any

from django_tasks import task

from greycircle.notifications import delivery
from greycircle.runtime.worker import workers_wake

# A queue of their own: besides the workers that run every queue (where notifications come after
# the computers' turns, so that under load a game goes on before its players' inboxes are kept),
# the queue's own workers (`manage.py games_worker --queue-name notifications`; one thread of the
# embedded site) run nothing else, so a notification never waits behind computers that keep
# every other worker busy: with one queue, "your turn" waited up to 580 s (issue 21).
NOTIFICATIONS_QUEUE = "notifications"
NOTIFICATIONS_PRIORITY = -1


@task(priority=NOTIFICATIONS_PRIORITY, queue_name=NOTIFICATIONS_QUEUE)
def notifications_send(news: list[dict[str, Any]]) -> None:
    """Keep each notification of one change in its player's inbox and tell their streams."""
    delivery.notifications_publish(news=news)


def notifications_enqueue(*, news: list[dict[str, Any]]) -> None:
    """Queue the notifications of one change: `{"user_id", "event", "data"}` each, JSON only."""
    notifications_send.enqueue(news)
    # This process's task workers (the embedded site's), if it runs any, claim it now rather than
    # at their next poll; those of other processes are woken by the database (PostgreSQL's
    # NOTIFY) or poll.
    workers_wake()
