"""ChunkKernel: a serial per-chunk kernel fanned out to threads, bit-identical at any count."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from oddslab._jit import jit
from oddslab._kernels import chunks
from oddslab._kernels.chunks import ChunkKernel, thread_count
from oddslab._kernels.rng import new_state, randint
from oddslab._seeding import chunk_seeds


@jit
def _dice_chunk(seed, ntrials, hist, sides):
    st = new_state(seed)
    for _ in range(ntrials):
        hist[0, randint(st, sides)] += 1


DICE = ChunkKernel(_dice_chunk, "dice")


def _batch(c: int):
    seeds = chunk_seeds(7, 0, c)
    ntrials = np.full(c, 5000, dtype=np.int64)
    out = np.zeros((c, 1, 6), dtype=np.int64)
    return seeds, ntrials, out


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_every_chunk_equals_its_serial_run_at_any_thread_count(monkeypatch, threads):
    seeds, ntrials, out = _batch(11)
    monkeypatch.setattr(chunks, "thread_count", lambda: threads)
    DICE(seeds, ntrials, out, np.int64(6))
    for i in range(11):  # chunk i reads seeds[i] and writes out[i] only
        alone = np.zeros((1, 6), dtype=np.int64)
        _dice_chunk(seeds[i], ntrials[i], alone, np.int64(6))
        assert np.array_equal(out[i], alone)
    assert out.sum() == 11 * 5000


def test_chunks_run_on_several_threads(monkeypatch):
    seen: set[str] = set()
    calls = []
    barrier = threading.Barrier(2, timeout=10)

    def chunk(seed, ntrials, hist):
        seen.add(threading.current_thread().name)
        calls.append(1)
        if len(calls) <= 2:
            barrier.wait()  # the first call blocks its thread: the second runs on another

    monkeypatch.setattr(chunks, "thread_count", lambda: 2)
    seeds, ntrials, out = _batch(4)
    ChunkKernel(chunk)(seeds, ntrials, out)
    assert len(seen) == 2


def test_an_error_in_a_chunk_reaches_the_caller_and_stops_the_batch(monkeypatch):
    done = []

    def chunk(seed, ntrials, hist):
        if len(done) == 2:
            raise ValueError("bad chunk")
        done.append(1)

    monkeypatch.setattr(chunks, "thread_count", lambda: 2)
    seeds, ntrials, out = _batch(50)
    with pytest.raises(ValueError, match="bad chunk"):
        ChunkKernel(chunk)(seeds, ntrials, out)
    assert len(done) < 50


def test_chunk_args_are_chunk_zeros_views():
    seeds, ntrials, out = _batch(3)
    args = DICE.chunk_args((seeds, ntrials, out, 4))
    assert args[0] is not seeds and np.array_equal(args[0], seeds[0])
    assert args[1] == ntrials[0] and args[2].shape == (1, 6) and args[3] == 4
    assert repr(DICE) == "ChunkKernel(dice)"


@pytest.mark.parametrize("shape,dtype", [((6,), np.uint64), ((3, 5), np.int64), ((1,), np.int8)])
def test_own_lines_copies_onto_cache_lines_of_its_own(shape, dtype):
    a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    b = chunks.own_lines(a)
    assert np.array_equal(a, b) and b.dtype == a.dtype and b.shape == a.shape
    assert not np.may_share_memory(a, b)
    assert b.flags.c_contiguous and b.flags.writeable and b.flags.aligned
    assert b.ctypes.data % 128 == 0
    base = b.base
    while not isinstance(base, np.ndarray) or base.base is not None:
        base = base.base  # the padded block the copy lives in
    before = b.ctypes.data - base.ctypes.data
    after = base.ctypes.data + base.nbytes - (b.ctypes.data + b.nbytes)
    assert before >= 128 and after >= 128  # no other data on its lines or their pairs
    assert chunks.own_lines(np.zeros((0, 3))).shape == (0, 3)


def test_the_prologues_own_arrays_get_lines_of_their_own_and_shared_ones_do_not():
    got = {}

    def prologue(seed, ntrials, hist, table):
        state = np.zeros(6, dtype=np.uint64)  # made here, written by the chunk: moved
        view = table[1:]  # a view of a batch parameter: kept
        frozen = np.zeros(3)
        frozen.flags.writeable = False  # read-only: kept (a copy would change its type)
        return seed, ntrials, hist, table, state, view, frozen

    def chunk(seed, ntrials, hist, table, state, view, frozen):
        got.update(hist=hist, table=table, state=state, view=view, frozen=frozen)
        hist[0, 0] += ntrials

    seeds, ntrials, out = _batch(1)
    table = np.arange(4, dtype=np.int64)
    ChunkKernel(chunk, prologue=prologue)(seeds, ntrials, out, table)
    assert out[0, 0, 0] == 5000  # the histogram is the batch's own block, not a copy
    assert got["table"] is table and np.may_share_memory(got["view"], table)
    assert got["state"].ctypes.data % 128 == 0 and got["state"].dtype == np.uint64
    assert not got["frozen"].flags.writeable
    kern = ChunkKernel(chunk, prologue=prologue)
    args = kern.chunk_args((seeds, ntrials, out, table))
    assert args[4].ctypes.data % 128 == 0  # compiled for the arrays it will get


@pytest.mark.parametrize("threads", ["1", "2"])
def test_thread_count_follows_numba_num_threads_without_starting_numba_threads(threads):
    code = (
        "from oddslab._kernels.chunks import thread_count\n"
        "from numba.np.ufunc import parallel\n"
        "print(thread_count(), parallel._is_initialized)\n"
    )
    env = {**os.environ, "NUMBA_NUM_THREADS": threads, "PYTHONPATH": os.getcwd()}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == [threads, "False"]


def test_thread_count_honours_set_num_threads_in_this_thread():
    import numba

    def task(result):
        numba.set_num_threads(1)  # per calling thread, as a Dask task does
        result.append(thread_count())

    result: list[int] = []
    t = threading.Thread(target=task, args=(result,))
    t.start()
    t.join(10)
    assert result == [1]
