"""The plan of a study's Dask tasks (no cluster): batch sizes, the shrinking end, and which
worker gets each task, replayed on a model of single-threaded workers."""

from __future__ import annotations

import random

import pytest

from oddslab.analysis import dask_plan
from oddslab.analysis.dask_plan import (
    TAIL_TASK_SECONDS,
    TARGET_TASK_SECONDS,
    Dispatch,
    plan_batch,
    replay,
    tail_batch,
)


def test_batches_are_sized_from_the_cost_of_a_cell():
    assert plan_batch(0.005, 10_000, 2) == round(TARGET_TASK_SECONDS / 0.005)
    assert plan_batch(2.0, 10_000, 2) == 1  # big cells: one per task
    assert plan_batch(1e-4, 80, 2) == 20  # few cells: still 2 tasks per worker
    assert plan_batch(1e-9, 10**7, 100) == 2_000  # capped


def test_the_last_tasks_shrink_so_the_workers_finish_together():
    # 60 cells of 0.1 s on 2 single-threaded workers (4 places: each runs one, queues one),
    # 6 per task: full tasks while more than 20 cells are unsent, then the rest shared over the
    # places, down to 0.05 s of work (here: one cell)
    sizes, left = [], 56
    while left > 0:
        sizes.append(tail_batch(6, left, 4, 0.1))
        left -= sizes[-1]
    assert sizes == [6] * 6 + [5, 4, 3, 2, 2] + [1] * 4
    assert tail_batch(24, 10, 4, 0.001) == 24  # a tail smaller than 0.05 s of work: one task
    assert tail_batch(24, 30, 4, 0.001) == 24


def _costs(n, cost, shape, seed=1):
    rng = random.Random(seed)
    if shape == "flat":
        return [cost * rng.uniform(0.9, 1.1) for _ in range(n)]
    return [cost * (0.5 + 1.5 * i / n) * rng.uniform(0.9, 1.1) for i in range(n)]  # rising


CASES = [(200, 0.095), (60, 0.095), (200, 0.0095), (1_000, 0.0095), (2_000, 0.001)]


@pytest.mark.parametrize("shape", ["flat", "rising"])
@pytest.mark.parametrize(("n", "cost"), CASES)
def test_every_cell_runs_once_no_worker_waits_and_the_end_is_balanced(n, cost, shape):
    costs = _costs(n, cost, shape)
    ends, idle, sent = replay(costs)
    assert sent == list(range(n))  # every cell once, in order
    # a worker always holds its next task: it never waits for the client's round trip
    assert max(idle.values()) == 0.0
    # the workers end within one small last task of each other (a cell, or the 0.05 s floor)
    spread = max(ends.values()) - min(ends.values())
    assert spread <= max(max(costs[-10:]), TAIL_TASK_SECONDS) * 1.1 + 0.004


def test_without_the_shrinking_end_the_workers_end_apart(monkeypatch):
    """The balance test can fail: full-size last tasks leave one worker idle for long."""
    monkeypatch.setattr(dask_plan, "tail_batch", lambda size, *a: size)
    costs = _costs(200, 0.095, "flat")
    ends, _, _ = replay(costs)
    assert max(ends.values()) - min(ends.values()) > 2 * max(costs)


def test_without_a_queued_task_a_worker_waits_for_each_round_trip(monkeypatch):
    """The waiting test can fail: with no task queued on the worker, each costs a trip."""
    monkeypatch.setattr(dask_plan, "QUEUED_PER_WORKER", 0)
    _, idle, _ = replay(_costs(200, 0.095, "flat"))
    assert min(idle.values()) > 0.01


def test_the_pilot_tasks_size_the_batches():
    plan = Dispatch(200, {"a": 1, "b": 1})
    assert plan.pilot and plan.batch is None
    assert plan.room() == ["a", "a", "b", "b"]  # one running and one queued on each
    assert plan.size() == 2
    for i, where in enumerate(plan.room()):
        plan.sent(f"t{i}", where, 2)
    assert plan.room() == []
    assert plan.finished("t0", "a", [0.5, 0.0995]) is False
    assert plan.cell_seconds == pytest.approx(0.1)
    assert plan.batch == plan_batch(0.1, 192, 2) == 10
    assert plan.room() == ["a"]
    # a small study: one cell per task, no pilot
    small = Dispatch(20, {"a": 1, "b": 1})
    assert not small.pilot and small.batch == 1 and small.size() == 1
    # a fixed batch is kept to the end
    fixed = Dispatch(200, {"a": 1}, batch=7)
    fixed.sent("t", "a", 195)
    assert fixed.size() == 7


def test_workers_that_join_get_tasks_and_workers_that_leave_none():
    plan = Dispatch(500, {"a": 1, "b": 4})
    assert plan.threads == 5
    assert plan.room().count("b") == 5  # four running, one queued
    plan.sent("t1", "a", 2)
    plan.sent("t2", "b", 2)
    # t1 came back from b: a is likely gone, so the caller asks for the workers again
    assert plan.finished("t1", "b", [0.01]) is True
    plan.workers({"b": 4, "c": 1})
    assert set(plan.places) == {"b", "c"} and plan.threads == 5
    assert "a" not in plan.room() and plan.room().count("c") == 2
    plan.sent("t3", "a", 2)  # (sent to a worker that left before the client knew)
    assert plan.finished("t3", "c", [0.01]) is True  # its place is not counted twice
    assert plan.finished("t2", "b", [0.01]) is False
