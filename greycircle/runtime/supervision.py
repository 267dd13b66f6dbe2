"""Loops that outlive every error: a step run again and again, each failure logged in one line
and followed by a pause that doubles (`Backoff`), the database connections dropped so the next
attempt opens fresh ones. The task worker's loops (greycircle.runtime.worker) and the tasks that
retry themselves (greycircle.notifications.tasks) are built on them."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from django.conf import settings
from django.db import Error, connections

logger = logging.getLogger(__name__)


# --- retrying --------------------------------------------------------------------------------


def backoff_delay(*, failures: int) -> float:
    """The pause after `failures` failures in a row (`Backoff`), for tasks that retry themselves."""
    first = float(settings.GAMES_WORKER_RETRY_SECONDS)
    most = float(settings.GAMES_WORKER_RETRY_MAX_SECONDS)
    return min(most, first * 2 ** min(failures, 30))


class Backoff:
    """Pauses between attempts: GAMES_WORKER_RETRY_SECONDS, doubling up to
    GAMES_WORKER_RETRY_MAX_SECONDS, and back to the start after a success."""

    def __init__(self) -> None:
        self.failures = 0

    def next_delay(self) -> float:
        delay = backoff_delay(failures=self.failures)
        self.failures += 1
        return delay

    def succeeded(self) -> bool:
        """Reset; True if this ends a run of failures."""
        failed, self.failures = self.failures, 0
        return failed > 0


try:  # the listener's own connection raises psycopg's errors, not Django's
    from psycopg import Error as PsycopgError

    DATABASE_ERRORS: tuple[type[BaseException], ...] = (Error, PsycopgError)
except ImportError:  # pragma: no cover - SQLite-only installs
    DATABASE_ERRORS = (Error,)


def failure_log(what: str, error: BaseException, *, delay: float, failures: int) -> None:
    """One line per failure; a traceback only for an unexpected error's first occurrence."""
    summary = (str(error).strip().splitlines() or [""])[0]
    if isinstance(error, DATABASE_ERRORS):
        logger.warning(
            "%s: database error (%s: %s); retrying in %.1f s",
            what,
            type(error).__name__,
            summary,
            delay,
        )
    else:
        logger.error(
            "%s: %s: %s; retrying in %.1f s",
            what,
            type(error).__name__,
            summary,
            delay,
            exc_info=failures == 1,
        )


def connections_drop() -> None:
    """Close this thread's database connections, so that the next query opens a fresh one."""
    for connection in connections.all(initialized_only=True):
        try:
            connection.close()
        except Exception:  # a broken connection may fail even to close; it is dropped anyway
            connection.connection = None


def supervised_forever(
    what: str, step: Callable[[], None], *, interval: Callable[[], float], stop: threading.Event
) -> None:
    """Call `step` every `interval()` seconds until `stop`, retrying with backoff on errors."""
    backoff = Backoff()
    try:
        while not stop.is_set():
            try:
                step()
            except Exception as error:
                delay = backoff.next_delay()
                failure_log(what, error, delay=delay, failures=backoff.failures)
                connections_drop()
                stop.wait(delay)
                continue
            if backoff.succeeded():
                logger.warning("%s: working again", what)
            stop.wait(interval())
    finally:
        connections.close_all()
