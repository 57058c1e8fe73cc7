"""The plan of a study's Dask tasks (no cluster): batch sizes, the predicted end, and which
worker gets each task, replayed on a model of single-threaded workers."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from oddslab.analysis import dask_plan
from oddslab.analysis.dask_plan import (
    FILL_SHARE,
    TAIL_TASK_SECONDS,
    TARGET_TASK_SECONDS,
    Dispatch,
    fill_batch,
    plan_batch,
    replay,
)


def test_batches_are_sized_from_the_cost_of_a_cell():
    assert plan_batch(0.005, 10_000, 2) == round(TARGET_TASK_SECONDS / 0.005)
    assert plan_batch(2.0, 10_000, 2) == 1  # big cells: one per task
    assert plan_batch(1e-4, 80, 2) == 20  # few cells: still 2 tasks per worker
    assert plan_batch(1e-9, 10**7, 100) == 2_000  # capped


def test_a_task_takes_a_share_of_its_workers_part_and_the_last_one_all_of_it():
    # 1 s of work still due to this worker, cells of 10 ms: 60% now (60 cells), the rest later
    assert fill_batch(1.0, 0.01, 1_000, 1_000, idle=False) == round(FILL_SHARE * 100) == 60
    assert fill_batch(1.0, 0.01, 25, 1_000, idle=False) == 25  # at most the planned batch
    assert fill_batch(1.0, 0.01, 1_000, 7, idle=False) == 7  # and the cells left
    # under twice TAIL_TASK_SECONDS due: its last task, all of it
    part = 1.9 * TAIL_TASK_SECONDS
    assert fill_batch(part, 0.01, 1_000, 1_000, idle=False) == round(part / 0.01)
    # whole cells, rounded: a 0.09-s cell for 0.1 s due, none for 0.04 s due
    assert fill_batch(0.1, 0.09, 10, 10, idle=False) == 1
    assert fill_batch(0.04, 0.09, 10, 10, idle=False) == 0
    assert fill_batch(0.3, 0.9, 10, 10, idle=False) == 0  # not in the share either
    # a worker that holds more than its part gets nothing if a cell costs more than
    # TAIL_TASK_SECONDS, unless it holds nothing at all; one cheap cell otherwise
    assert fill_batch(-0.5, 0.2, 100, 100, idle=False) == 0
    assert fill_batch(-0.5, 0.2, 100, 100, idle=True) == 1
    assert fill_batch(-0.5, 0.01, 100, 100, idle=False) == 1


def test_the_plan_predicts_each_workers_end_from_what_it_holds():
    plan = Dispatch(1_000, {"a": 1, "b": 1})
    plan.cell_seconds, plan.batch = 0.01, 100
    plan.sent("t1", "a", 100, now=0.0)  # a: 1 s of work from t = 0
    plan.sent("t2", "a", 50, now=0.0)  # and 0.5 s queued
    plan.sent("t3", "b", 10, now=0.0)  # b: 0.1 s
    assert plan.busy("a", 0.4) == pytest.approx(1.1)
    assert plan.busy("b", 0.4) == 0.0  # (predicted done: nothing left to count)
    assert plan.busy("a", 1.2) == pytest.approx(0.5)  # at least its queued task
    # 840 cells left: 8.4 s, plus a's 1.1 s, shared: each should end 4.75 s from now
    assert plan.fair("b", 0.4) == pytest.approx(4.75)
    assert plan.fair("a", 0.4) == pytest.approx(4.75 - 1.1)
    # a worker's first result sets when its running task began
    plan.finished("t1", "a", [0.01] * 100, now=1.05, wall=1.05)
    assert plan.cell_seconds == pytest.approx(0.0105)  # the workers' time, not the kernels'
    assert plan.busy("a", 1.05) == pytest.approx(50 * 0.0105)


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


def test_the_predicted_end_needs_fewer_tasks_than_a_shrinking_share(monkeypatch):
    """200 cells of 10 ms on 2 workers: 15-16 tasks when each of the last took the cells left
    shared over the 4 task places (the plan before the predicted end), 10-12 now."""
    tasks = []
    sent = Dispatch.sent
    monkeypatch.setattr(Dispatch, "sent", lambda self, *a: tasks.append(a) or sent(self, *a))
    replay(_costs(200, 0.0095, "flat"))
    assert len(tasks) <= 12

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from _schedule_sim import variant  # the plan before, as the model compares it

    tasks.clear()
    with variant("shrinking share"):
        replay(_costs(200, 0.0095, "flat"))
    assert len(tasks) >= 15


def test_the_workers_are_given_tasks_in_turn():
    plan = Dispatch(200, {"a": 1, "b": 1})
    assert plan.room() == ["a", "b", "a", "b"]
    # a fixed batch of half the study: one task each (it was both to the first worker)
    ends, _, _ = replay([0.01] * 200, batch=100)
    assert min(ends.values()) > 0.9


def test_without_the_predicted_end_the_workers_end_apart(monkeypatch):
    """The balance test can fail: full-size last tasks leave one worker idle for long."""
    monkeypatch.setattr(dask_plan, "fill_batch", lambda fair, c, size, left, idle: min(size, left))
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
    assert plan.room() == ["a", "b", "a", "b"]  # one running and one queued on each
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
