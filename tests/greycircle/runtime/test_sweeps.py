"""The apps' periodic sweeps: registered once from `ready()`, each run by the worker's sweep loop
as it falls due, in the order registered."""

from __future__ import annotations

from datetime import timedelta

import pytest

from greycircle.runtime import sweeps
from greycircle.runtime.sweeps import SweepSchedule, sweep_register, sweeps_registered, sweeps_round


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def only_these_sweeps(monkeypatch):
    """The registry emptied for the test, and the apps' sweeps back afterwards."""
    monkeypatch.setattr(sweeps, "_sweeps", {})


def test_the_apps_register_their_sweeps_from_ready():
    assert [sweep.name for sweep in sweeps_registered()] == [
        "stalled computer turns",
        "expired invitations",
        "move deadlines",
        "abandoned live games",
        "daily digests",
        "notification receipts",
        "idle guests",
        "lobby pairing",
    ]


def test_each_sweep_runs_when_due_in_the_order_registered(only_these_sweeps):
    ran = []
    sweep_register(
        name="often", run=lambda: ran.append("often"), every=lambda: timedelta(seconds=10)
    )
    sweep_register(
        name="rarely", run=lambda: ran.append("rarely"), every=lambda: timedelta(seconds=30)
    )
    sweep_register(
        name="also often", run=lambda: ran.append("also"), every=lambda: timedelta(seconds=10)
    )
    clock = Clock()
    schedule = SweepSchedule(clock=clock)

    assert sweeps_round(schedule) == []
    assert schedule.wait() == 10
    seen = []
    for _ in range(3):
        clock.now += schedule.wait()
        ran.clear()
        sweeps_round(schedule)
        seen.append(list(ran))

    assert seen == [["often", "also"], ["often", "also"], ["often", "rarely", "also"]]
    assert schedule.wait() == 10


def test_a_failed_round_leaves_all_its_sweeps_due(only_these_sweeps):
    ran = []

    def broken() -> None:
        raise RuntimeError("broken")

    sweep_register(
        name="first", run=lambda: ran.append("first"), every=lambda: timedelta(seconds=5)
    )
    sweep_register(name="broken", run=broken, every=lambda: timedelta(seconds=5))
    clock = Clock()
    schedule = SweepSchedule(clock=clock)
    clock.now += 5

    with pytest.raises(RuntimeError):
        sweeps_round(schedule)
    assert [sweep.name for sweep in schedule.due()] == ["first", "broken"]
    assert ran == ["first"]


def test_registering_a_name_again_replaces_the_sweep(only_these_sweeps):
    sweep_register(name="one", run=lambda: "old", every=lambda: timedelta(seconds=5))
    sweep_register(name="two", run=lambda: None, every=lambda: timedelta(seconds=5))
    sweep_register(name="one", run=lambda: "new", every=lambda: timedelta(seconds=5))

    assert [(sweep.name, sweep.run()) for sweep in sweeps_registered()] == [
        ("one", "new"),
        ("two", None),
    ]


def test_with_no_sweep_the_loop_looks_again_later(only_these_sweeps):
    assert SweepSchedule().wait() == sweeps.IDLE_SECONDS
