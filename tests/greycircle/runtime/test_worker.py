"""The task worker is a library seam that knows no game: what it asks of the project is registered
(`WorkerPolicy`, sweeps, timers), and the games register theirs from `GamesConfig.ready()`. Its
loops are tested with the games' policy in tests/games/test_worker.py, tests/games/test_tasks.py
and tests/games/test_clock_loop.py."""

from __future__ import annotations

from datetime import timedelta

from greycircle.games import heartbeats, tasks
from greycircle.games import worker as games_worker
from greycircle.runtime.worker import WorkerPolicy, worker_policy
from tests.greycircle.test_layers import ROOT, import_graph


def test_the_worker_its_sweeps_and_its_timers_import_nothing_of_the_project():
    graph = import_graph(ROOT)
    assert graph["greycircle.runtime.worker"] == {
        "greycircle.runtime.priority",
        "greycircle.runtime.supervision",
        "greycircle.runtime.sweeps",
        "greycircle.runtime.timers",
    }
    assert graph["greycircle.runtime.supervision"] == set()
    assert graph["greycircle.runtime.sweeps"] == set()
    assert graph["greycircle.runtime.timers"] == set()


def test_the_games_register_their_policy():
    policy = worker_policy()
    assert policy is games_worker.POLICY
    assert policy.task_retry is tasks.task_retry
    assert policy.background_slot_free is tasks.background_slot_free
    assert policy.dead_workers_reap is heartbeats.dead_workers_reap


def test_without_a_policy_the_worker_retries_nothing_and_sees_no_background_work():
    policy = WorkerPolicy()
    assert policy.task_retry(object(), delay=1.0) is False
    assert policy.task_is_background(object()) is False
    assert policy.background_slot_free(using="default") is True
    assert policy.dead_workers_reap(dead_after=timedelta(seconds=1)) == []
