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

# Below the computers' turns (priority 0), above background work: a game goes on before its players'
# inboxes are kept. Under more load than the workers can take, notifications lag (the game pages
# still update at once, through their own sockets) rather than starve the computers' turns, as
# they did with the priority the other way round (bench/README.md, "Under load"). Not retried
# when its worker dies (greycircle.games.tasks.task_retry: it is not background work).
NOTIFICATIONS_PRIORITY = -1


@task(priority=NOTIFICATIONS_PRIORITY)
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
