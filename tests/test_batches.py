"""oddslab._batches: the batches of a run, and how they are grouped into kernel calls."""

from __future__ import annotations

import pytest
from test_engine import SC, _digest

from oddslab import engine, simulate
from oddslab._batches import BATCH_CHUNKS, fixed_batches, kernel_calls, precision_batches
from oddslab.engine import CHUNK_TRIALS


@pytest.mark.parametrize("n_chunks", [1, 2, 3, 7, 16, 40, 100])
@pytest.mark.parametrize("threads", [1, 2, 3, 4, 8, 16, 64])
@pytest.mark.parametrize("schedule", [precision_batches, fixed_batches])
def test_calls_cover_the_batches_in_order_with_every_thread_busy(n_chunks, threads, schedule):
    batches = schedule(n_chunks)
    calls = kernel_calls(batches, threads)
    assert [b for call in calls for b in call] == batches  # whole batches, in order
    for call in calls:
        size = call[-1][1] - call[0][0]
        assert size <= BATCH_CHUNKS  # the engine's buffer holds one call
        nxt = batches[batches.index(call[-1]) + 1] if call[-1] != batches[-1] else None
        if nxt is not None and nxt[1] - call[0][0] <= BATCH_CHUNKS:
            assert size >= threads  # grown as far as the thread count asks


def test_the_first_precision_batches_share_a_call_on_two_threads():
    assert kernel_calls(precision_batches(40), 2)[:3] == [[(0, 1), (1, 2)], [(2, 4)], [(4, 8)]]
    assert kernel_calls(precision_batches(40), 1)[:2] == [[(0, 1)], [(1, 2)]]


@pytest.mark.parametrize("precision", [0.02, 0.006, 0.003])
def test_a_precision_run_gives_one_result_whatever_the_grouping(precision, monkeypatch):
    results = []
    for threads in (1, 2, 3, 8, 16):
        monkeypatch.setattr(engine, "thread_count", lambda t=threads: t)
        out = simulate(SC, precision=precision, seed=11)
        results.append((out.trials, _digest(out), out.half_width))
    assert len(set(results)) == 1, results
    trials = results[0][0]
    if precision == 0.02:
        assert trials == CHUNK_TRIALS  # stopped at the first chunk, the second one dropped
    assert trials in {CHUNK_TRIALS * stop for _, stop in precision_batches(10_000)}
