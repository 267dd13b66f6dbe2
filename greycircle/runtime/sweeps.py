"""Periodic sweeps: work that every task worker does now and then, registered by the apps.

An app registers each of its sweeps once, from its `AppConfig.ready()`:

    sweep_register(name="expired invitations", run=invitations_sweep, every=half_stall_period)

and every worker process (`manage.py games_worker`, or the embedded worker of `manage.py serve`)
runs them in one loop of its own (`greycircle.runtime.worker`), so the worker imports no app. This
module imports nothing of the project: any app may import it.

`run` takes no argument and logs what it did; its result is ignored. An error in one sweep ends
that round (the loop logs it and tries again with backoff); each sweep must therefore be cheap
when there is nothing to do and harmless to run again. `every` is called each time it is needed
(settings may change under tests); the sweeps due together run in the order they were registered.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta


@dataclass(frozen=True)
class Sweep:
    name: str
    run: Callable[[], object]
    every: Callable[[], timedelta]


_sweeps: dict[str, Sweep] = {}


def sweep_register(*, name: str, run: Callable[[], object], every: Callable[[], timedelta]) -> None:
    """Have every task worker call `run` every `every()`; registering a name again replaces it."""
    _sweeps[name] = Sweep(name=name, run=run, every=every)


def sweeps_registered() -> list[Sweep]:
    """The registered sweeps, in the order they were first registered."""
    return list(_sweeps.values())


# With nothing registered, the loop looks again after this long (a sweep registered late).
IDLE_SECONDS = 60.0
# A wait may end a hair before the due time (float arithmetic on the clock): still due.
DUE_SLACK_SECONDS = 0.001


class SweepSchedule:
    """When each sweep is next due, on the monotonic clock: `every()` after the end of the round
    that last ran it, the first time `every()` after the schedule was made."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.started = clock()
        self.ran_at: dict[str, float] = {}

    def _next(self, sweep: Sweep) -> float:
        return self.ran_at.get(sweep.name, self.started) + sweep.every().total_seconds()

    def due(self) -> list[Sweep]:
        now = self.clock()
        return [
            sweep for sweep in sweeps_registered() if self._next(sweep) <= now + DUE_SLACK_SECONDS
        ]

    def ran(self, sweeps: list[Sweep]) -> None:
        """Record the end of a round that ran `sweeps`."""
        now = self.clock()
        for sweep in sweeps:
            self.ran_at[sweep.name] = now

    def wait(self) -> float:
        """Seconds until the next sweep is due."""
        sweeps = sweeps_registered()
        if not sweeps:
            return IDLE_SECONDS
        return max(0.0, min(map(self._next, sweeps)) - self.clock())


def sweeps_round(schedule: SweepSchedule) -> list[Sweep]:
    """Run the sweeps that are due, in order; the sweeps run (none recorded if one raised)."""
    due = schedule.due()
    for sweep in due:
        sweep.run()
    schedule.ran(due)
    return due
