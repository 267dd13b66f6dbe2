"""The games' periodic sweeps, registered with the task worker (`greycircle.runtime.sweeps`) by
`GamesConfig.ready()`: each runs every half GAMES_AI_STALL_SECONDS in every worker process, and
is one cheap indexed query when there is nothing to do."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings

from greycircle.games import deadlines, heartbeats, invitations, tasks
from greycircle.runtime.worker import dead_after

logger = logging.getLogger(__name__)


def stall_period() -> timedelta:
    return timedelta(seconds=float(settings.GAMES_AI_STALL_SECONDS))


def sweep_period() -> timedelta:
    return stall_period() / 2


def stalled_turns_recover() -> None:
    """The last resort: fail the tasks running on workers never seen, and queue again every
    computer turn that has waited GAMES_AI_STALL_SECONDS."""
    stalled_for = stall_period()
    heartbeats.unattended_tasks_fail(running_for=stalled_for, dead_after=dead_after())
    if requeued := tasks.ai_turns_recover(stalled_for=stalled_for):
        logger.warning("re-queued stalled computer turns in games %s", requeued)


def invitations_expire() -> None:
    """Expire the invitations to games that have waited GAMES_INVITATION_DAYS for an answer."""
    if expired := invitations.invitations_expire():
        logger.info("expired invitations %s", expired)


def deadlines_check() -> None:
    """The time per move of games between people: reminders, claimable wins, takeovers."""
    if checked := deadlines.deadlines_check():
        logger.info(
            "deadlines: reminded in games %s, win claimable in %s, seats taken over in %s",
            checked.reminded,
            checked.claimable,
            checked.taken_over,
        )
