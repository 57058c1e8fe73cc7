"""Two plain processes (no Dask), each running half of a sweep's cells at one numba thread,
started together: what the two vCPUs give two independent single-threaded workers, the
ceiling a 2-worker cluster can reach on this machine. Used by ``_dask_jobs.dask_cpu``."""

from __future__ import annotations

import multiprocessing as mp
import time

from _common_analysis import SCENARIO

__all__ = ["plain_pair"]


def _half(values: list[int], trials: int, barrier, results) -> None:
    """One process: warm its kernels, wait for the other, run its cells, report (wall s,
    the cells' own kernel s)."""
    import numba

    from oddslab.analysis.sweep import sweep

    numba.set_num_threads(1)
    sweep(SCENARIO, {"target.models": [1]}, trials=1000, seed=3, exact="never", progress=None)
    barrier.wait()
    t0 = time.perf_counter()
    res = sweep(
        SCENARIO, {"target.models": values}, trials=trials, seed=3, exact="never", progress=None
    )
    results.put((time.perf_counter() - t0, sum(r.elapsed for r in res.results)))


def plain_pair(values: list[int], trials: int) -> tuple[float, float]:
    """Wall time (s) until both halves finished, from the moment both were ready, and the
    cells' summed kernel time (s) in the two processes. The halves interleave the cells
    (``values[0::2]``, ``values[1::2]``) so each gets a like share of big and small ones."""
    ctx = mp.get_context("spawn")  # a fresh interpreter each, as a Dask worker is
    barrier, results = ctx.Barrier(3), ctx.Queue()
    procs = [
        ctx.Process(target=_half, args=(values[i::2], trials, barrier, results)) for i in (0, 1)
    ]
    for p in procs:
        p.start()
    try:
        barrier.wait(timeout=300)
        t0 = time.perf_counter()
        outs = [results.get(timeout=600) for _ in procs]
        wall = time.perf_counter() - t0
    finally:
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.kill()
    return wall, sum(o[1] for o in outs)
