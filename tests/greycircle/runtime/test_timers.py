"""The apps' timers: registered once from `ready()`, each run by the clocks' loop as soon as it is
due, the loop sleeping until the next one but never longer than a poll."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from greycircle.games import flags
from greycircle.runtime import timers
from greycircle.runtime.timers import DUE_AGAIN_SECONDS, TimerRound, timer_register

POLL = 0.2
START = datetime(2026, 1, 1, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def only_these_timers(monkeypatch):
    """The registry emptied for the test, and the apps' timers back afterwards."""
    monkeypatch.setattr(timers, "_timers", {})


def test_the_games_register_the_clocks_flags_from_ready():
    (timer, *_) = timers.timers_registered()
    assert (timer.name, timer.next_due, timer.run) == (
        "clock flags",
        flags.flag_next_at,
        flags.flags_fall,
    )


def test_a_timer_runs_once_due_and_the_loop_sleeps_until_the_next_but_at_most_a_poll(
    only_these_timers,
):
    clock = Clock()
    due: list[datetime] = [START + timedelta(seconds=5)]
    ran = []

    def run(*, now) -> None:
        ran.append(now)
        due.pop(0)

    timer_register(name="flags", next_due=lambda: due[0] if due else None, run=run)
    round_ = TimerRound(now=clock, poll=lambda: POLL)

    assert round_.step() == []
    assert round_.wait == POLL  # five seconds off: looks again within a poll
    due.insert(0, START + timedelta(seconds=0.05))  # set earlier meanwhile, by another process
    assert round_.step() == []
    assert round_.wait == pytest.approx(0.05)
    clock.now += timedelta(seconds=0.05)
    assert round_.step() == ["flags"]
    assert ran == [START + timedelta(seconds=0.05)]
    assert round_.wait == POLL


def test_a_timer_still_due_after_its_run_is_looked_at_again_soon_then_at_each_poll(
    only_these_timers,
):
    """Work that came due during the run is taken at once; work that keeps failing does not spin
    the loop."""
    clock = Clock()
    ran = []
    timer_register(name="stuck", next_due=lambda: START, run=lambda *, now: ran.append(now))
    round_ = TimerRound(now=clock, poll=lambda: POLL)

    waits = []
    for _ in range(3):
        round_.step()
        waits.append(round_.wait)
    assert waits == [DUE_AGAIN_SECONDS, POLL, POLL]
    assert len(ran) == 3


def test_with_nothing_scheduled_the_loop_polls(only_these_timers):
    timer_register(name="idle", next_due=lambda: None, run=lambda **_: pytest.fail("not due"))
    round_ = TimerRound(now=Clock(), poll=lambda: POLL)
    assert round_.step() == []
    assert round_.wait == POLL
