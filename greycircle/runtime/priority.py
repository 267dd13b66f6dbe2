"""How a task worker yields the CPU: the niceness of a worker of the computers' turns.

A queue of its own (greycircle.runtime.worker) keeps notifications from waiting *behind* computer
turns, not *beside* them: Linux's scheduler (CFS) shares a busy core among runnable threads by
weight, 1024 for each at niceness 0, so a notifications worker gets one share among the computers'
workers, the servers and everything else. Measured at a load average of 14 on 2 cores
(bench/README.md, "Notifications under the soak"): p99 from a move's commit to the inbox 96 s with
every worker at niceness 0, 6.9 s with the computers' workers at niceness 10 (weight 110). So a
worker that runs the "default" queue (the computers' turns) lowers its own priority by
`NICE_COMPUTER_TURNS` (`niceness_default`, `niceness_lower`; `manage.py games_worker --nice N`),
and a worker of other queues alone keeps its own. It never raises it (that needs privileges). The
embedded site does not do it for its worker threads, though Linux keeps a niceness per thread: the
threads of one process run Python one at a time (the GIL), so a lower-priority thread would not
leave its web threads more CPU, and when it is descheduled while holding the GIL (or SQLite's write
lock) the web threads wait for it: a priority inversion. Elsewhere than Linux, `os.nice` would
lower the whole server.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

# How much a worker that runs the computers' turns lowers its priority: at 10 its weight is 110
# against the notifications worker's 1024 (0).
NICE_COMPUTER_TURNS = 10


def niceness_default(*, queue_names: Sequence[str]) -> int:
    """The niceness increment of a worker of `queue_names`: `NICE_COMPUTER_TURNS` if it runs the
    "default" queue (the computers' turns; "*" is every queue), else 0."""
    return NICE_COMPUTER_TURNS if {"default", "*"} & set(queue_names) else 0


def niceness_lower(*, by: int) -> int | None:
    """Lower this process's CPU priority by `by` (0 or more); the niceness now, or None where
    the system has no `os.nice` (Windows: nothing changes). Call it from the main thread before
    any other starts: Linux keeps a niceness per thread, and new threads inherit their creator's."""
    global _lowered_by
    if by < 0:
        raise ValueError("a worker never raises its priority")
    if not hasattr(os, "nice"):
        return None
    niceness = os.nice(by)
    _lowered_by += by
    return niceness


_lowered_by = 0


def niceness_lowered() -> int:
    """How much this process lowered its priority (`niceness_lower`): its loops that must be on
    time then leave the work to workers that did not (greycircle.runtime.timers)."""
    return _lowered_by
