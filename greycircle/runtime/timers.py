"""Timers: work that must happen at a known moment, to within a fraction of a second, registered
by the apps (the flag of a live game's clock: greycircle.games.flags).

An app registers each of its timers once, from its `AppConfig.ready()`:

    timer_register(name="clock flags", next_due=next_flag_at, run=flags_fall)

and every worker process (`manage.py games_worker`, or the embedded workers of `manage.py serve`)
runs them in one loop of its own, the clocks' loop (`greycircle.runtime.worker.timers_forever`), so
the worker imports no app. This module imports nothing of the project: any app may import it.

`next_due()` says, cheaply (one indexed query), when the timer is next due: an aware datetime, or
None when nothing is scheduled. The loop calls `run(now=...)` as soon as that moment has passed,
and otherwise sleeps until it, but never longer than GAMES_TIMERS_POLL_SECONDS: a moment set
earlier meanwhile (by another process) is seen within one poll. `run` does everything due by `now`
and must be harmless to call again, and with other workers' loops calling it at the same moment
(each game's end is decided under its row lock). An error in a timer ends that round; the loop
logs it and tries again with backoff, like the worker's other loops.

A worker that lowered its CPU priority (the computers' workers: greycircle.runtime.priority) runs
its timers GAMES_TIMERS_BACKUP_SECONDS behind the clock (`now` is that much earlier), so that the
workers at full priority (the notifications' workers) take the work first, and it takes what they
leave late: a backup for when they fall behind or none runs. Measured at a load average of 6 to 9
on two cores (bench/README.md, "Flag precision"): flags 0.4 s late (p50) with only the computers'
workers (niceness +10) running the loop, 0.01 to 0.2 s with the notifications' workers first; with
one notifications worker the backup's lag set the tail: p99 1.9 s at 0.5 s behind, 0.5 s at 0.15.

Why not the periodic sweeps (greycircle.runtime.sweeps): they run every few seconds at best, and a
flag must fall within a fraction of one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Timer:
    name: str
    next_due: Callable[[], datetime | None]
    run: Callable[..., object]


_timers: dict[str, Timer] = {}


def timer_register(
    *, name: str, next_due: Callable[[], datetime | None], run: Callable[..., object]
) -> None:
    """Have every task worker call `run(now=...)` whenever `next_due()` has passed; registering
    a name again replaces it."""
    _timers[name] = Timer(name=name, next_due=next_due, run=run)


def timers_registered() -> list[Timer]:
    """The registered timers, in the order they were first registered."""
    return list(_timers.values())


# After a run, a timer still due (a moment that came due during the run, or work that failed and
# is still there) is looked at again this soon, and after a second run in a row at the next poll,
# so that one failing piece of work never spins the loop.
DUE_AGAIN_SECONDS = 0.02


class TimerRound:
    """One pass of the clocks' loop over the timers, and how long to sleep after it."""

    def __init__(self, *, now: Callable[[], datetime], poll: Callable[[], float]) -> None:
        self.now = now
        self.poll = poll
        self.ran_last: set[str] = set()
        self.wait = 0.0

    def step(self) -> list[str]:
        """Run every timer that is due; set `wait`, the seconds until the next is. The names of
        those run."""
        poll = self.poll()
        wait = poll
        ran: list[str] = []
        for timer in timers_registered():
            due = timer.next_due()
            now = self.now()
            if due is not None and due <= now:
                timer.run(now=now)
                ran.append(timer.name)
                due = timer.next_due()
            if due is None:
                continue
            left = (due - self.now()).total_seconds()
            if left <= 0:
                left = poll if timer.name in self.ran_last else DUE_AGAIN_SECONDS
            wait = min(wait, left)
        self.ran_last = set(ran)
        self.wait = max(0.0, wait)
        return ran
