"""The Dask jobs of ``bench_analysis.py`` (``--only dask_scaling``, ``dask_cpu``,
``dask_overhead``): a 2-worker LocalCluster against in-process, in wall time and in CPU time.
Kept apart so each file stays small; run them through ``bench_analysis.py``."""

from __future__ import annotations

import os
import time

from _common_analysis import SCENARIO
from _common_analysis import analysis_row as _row
from _common_analysis import numba_threads as _threads
from _plain_pair import plain_pair
from _schedule_sim import variant

__all__ = ["dask_scaling", "dask_cpu", "dask_overhead"]


def dask_scaling(quick: bool, smoke: bool = False) -> list[dict]:
    """2-worker LocalCluster vs in-process on the same sweep (big and small cells)."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return [_row("2-worker LocalCluster", float("nan"), "dask not installed: skipped", 0)]
    from oddslab.analysis.distributed import local_cluster
    from oddslab.analysis.sweep import sweep

    rows = []
    t0 = time.perf_counter()
    if not smoke:  # (a smoke run starts one cluster only: the sweep's)
        cluster = local_cluster(2)
        cluster.close()
    start = time.perf_counter() - t0
    configs = (
        [(2, 2_048)] if smoke else [(8, 100_000)] if quick else [(200, 1_000_000), (200, 100_000)]
    )
    for cells, trials in configs:
        vary = {"target.models": list(range(1, cells + 1))}
        t0 = time.perf_counter()
        a = sweep(SCENARIO, vary, trials=trials, seed=3, exact="never")
        local = time.perf_counter() - t0
        import numba

        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            t0 = time.perf_counter()
            sweep(SCENARIO, vary, trials=trials, seed=3, exact="never")
            single = time.perf_counter() - t0
        finally:
            numba.set_num_threads(threads)
        t0 = time.perf_counter()
        b = sweep(SCENARIO, vary, trials=trials, seed=3, workers=2, exact="never")
        remote = time.perf_counter() - t0
        work = remote - start  # the cluster's own start-up is not the cells' work
        same = [r.counts for r in a.results] == [r.counts for r in b.results]
        rows.append(
            _row(
                f"{cells} cells × {trials:,} trials, in-process",
                cells / local,
                "",
                _threads(),
            )
        )
        rows.append(
            _row(
                f"{cells} cells × {trials:,} trials, in-process, 1 numba thread",
                cells / single,
                "the per-core baseline",
                1,
            )
        )
        rows.append(
            _row(
                f"{cells} cells × {trials:,} trials, 2-worker LocalCluster",
                cells / remote,
                f"{local / remote:.2f}× in-process at {_threads()} threads, "
                f"{single / remote:.2f}× at 1 thread (incl. cluster start {start:.1f} s); "
                f"per-worker efficiency {single / (2 * work):.2f} (1-thread in-process time "
                f"over 2 × the cluster's, start excluded); batches sized automatically; "
                f"identical results: {same}",
                1,
            )
        )
    return rows


def _cpu_seconds(t) -> float:
    return float(t[0] + t[1])  # user + system of an os.times() result


def _counts(res) -> list:
    return [r.counts for r in res.results]


def dask_cpu(quick: bool, smoke: bool = False) -> list[dict]:
    """Per-worker efficiency of a 2-worker LocalCluster in wall time *and* in CPU time.

    Wall: the 1-thread in-process sweep's time over 2 × the cluster's (start excluded) — what
    the issue's targets mean, but on a loaded machine the workers' wall time includes other
    people's work. CPU: the in-process sweep's CPU seconds over every CPU second the cluster
    spent (both workers, the scheduler and the client): the share of the cluster's work that
    is the cells' own, which other load does not change much. Each study runs twice on the
    same warm cluster: as shipped and without a task queued on each worker
    (``_schedule_sim.variant``).
    """
    if smoke:  # two clusters and a timed sweep: nothing a smoke run should start
        return []
    try:
        import distributed
    except ImportError:
        return [_row("2-worker LocalCluster (CPU)", float("nan"), "dask not installed: skipped", 0)]
    import numba

    from oddslab.analysis.cells import Cell
    from oddslab.analysis.distributed import local_cluster, run_batch
    from oddslab.analysis.sweep import sweep
    from oddslab.scenario import read_toml

    rows = []
    configs = (
        [(8, 100_000)]
        if quick
        else [(200, 100_000), (1_000, 100_000), (60, 1_000_000), (200, 1_000_000)]
    )
    for cells, trials in configs:
        vary = {"target.models": list(range(1, cells + 1))}
        # the ceiling first: two plain single-threaded processes, no Dask, on the same cells
        pair, pair_kernels = plain_pair(vary["target.models"], trials)
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            sweep(SCENARIO, {"target.models": [1]}, trials=1000, seed=3, exact="never")
            t0, c0 = time.perf_counter(), _cpu_seconds(os.times())
            a = sweep(SCENARIO, vary, trials=trials, seed=3, exact="never", progress=None)
            single, single_cpu = time.perf_counter() - t0, _cpu_seconds(os.times()) - c0
        finally:
            numba.set_num_threads(threads)
        load0 = os.getloadavg()[0]
        cluster = local_cluster(2)
        runs = []
        try:
            with distributed.Client(cluster) as client:
                # every worker loads the kernels first: the steady state is what is measured
                warm = Cell({"warm": 1}, read_toml(SCENARIO), 1, str(SCENARIO)).payload()
                client.run(run_batch, [warm], 1000, None, "never")
                for plan in ("automatic", "unqueued"):
                    before = {k: _cpu_seconds(v) for k, v in client.run(os.times).items()}
                    t0, c0 = time.perf_counter(), _cpu_seconds(os.times())
                    m0 = time.thread_time()  # this thread: the study's own client-side work
                    with variant(plan):
                        b = sweep(SCENARIO, vary, trials=trials, seed=3, exact="never",
                                  progress=None, scheduler=cluster.scheduler_address)  # fmt: skip
                    wall, here = time.perf_counter() - t0, _cpu_seconds(os.times()) - c0
                    main = time.thread_time() - m0
                    after = {k: _cpu_seconds(v) for k, v in client.run(os.times).items()}
                    runs.append(
                        (plan, b, wall, here, main, sum(after[k] - before[k] for k in after))
                    )
        finally:
            cluster.close()
        pair_eff = single / (2 * pair)
        pair_k = pair_kernels / sum(r.elapsed for r in a.results)
        rows.append(
            _row(
                f"{cells} cells × {trials:,} trials, two plain processes at 1 thread (no Dask)",
                cells / pair,
                f"the ceiling of 2 single-threaded workers on this machine: per-process "
                f"efficiency {pair_eff:.2f} (1-thread in-process {single:.1f} s / (2 × "
                f"{pair:.1f} s)); their kernels {pair_k:.2f}× in-process",
                1,
            )
        )
        for plan, b, wall, here, main, workers_cpu in runs:
            eff_wall = single / (2 * wall)
            eff_cpu = single_cpu / (workers_cpu + here)
            extra = (workers_cpu + here - single_cpu) / cells  # CPU s per cell beyond in-process
            # the cells' own kernel time in the workers over in-process: above 1 when the
            # workers' kernels ran slower (other load, two workers on shared cores), not overhead
            kernels = sum(r.elapsed for r in b.results) / sum(r.elapsed for r in a.results)
            rows.append(
                _row(
                    f"{cells} cells × {trials:,} trials, 2-worker LocalCluster, CPU accounting, "
                    f"{plan} batches",
                    cells / wall,
                    f"per-worker efficiency {eff_wall:.2f} in wall time (1-thread in-process "
                    f"{single:.1f} s / (2 × {wall:.1f} s)), {eff_cpu:.2f} in CPU time "
                    f"(in-process {single_cpu:.2f} CPU s / cluster {workers_cpu:.2f} s in workers "
                    f"+ {here:.2f} s scheduler and client, of which {main:.2f} s the study's own "
                    f"thread: cells, packing, results; the rest Dask's scheduler and comms); "
                    f"{pair / wall:.2f} of the two plain processes' rate (Dask's own share); "
                    f"{1e3 * extra:.2f} ms CPU per cell beyond in-process; workers' kernel time "
                    f"{kernels:.2f}× in-process; identical: {_counts(a) == _counts(b)}; 1-min "
                    f"load {load0:.1f} at the start",
                    1,
                )
            )
    return rows + dask_overhead(quick, smoke)  # (run() lists dask_cpu only)


def dask_overhead(quick: bool, smoke: bool = False) -> list[dict]:
    """What a warm 2-worker LocalCluster costs beyond the cells, in CPU: idle (per second, in
    the client's process, which holds the scheduler and nannies, and in the workers) and per
    task (200 cells of 10⁴ trials as 200 tasks and as 2; the difference over 198 tasks)."""
    if smoke:  # a cluster and timed sweeps: nothing a smoke run should start
        return []
    try:
        import distributed
    except ImportError:
        return [_row("2-worker LocalCluster (overhead)", float("nan"), "dask not installed", 0)]
    from oddslab.analysis.distributed import local_cluster
    from oddslab.analysis.sweep import sweep

    cells = 50 if quick else 200
    vary = {"target.models": list(range(1, cells + 1))}
    cluster = local_cluster(2)
    try:
        with distributed.Client(cluster) as client:

            def cpu() -> tuple[float, float]:  # (client's process, workers)
                return _cpu_seconds(os.times()), sum(
                    _cpu_seconds(v) for v in client.run(os.times).values()
                )

            def study(batch: int) -> tuple[float, float]:
                c0, w0 = cpu()
                sweep(SCENARIO, vary, trials=10_000, seed=3, exact="never", progress=None,
                      scheduler=cluster.scheduler_address, batch=batch)  # fmt: skip
                c1, w1 = cpu()
                return c1 - c0, w1 - w0

            study(cells)  # the workers load their kernels
            load0 = os.getloadavg()[0]
            c0, w0 = cpu()
            time.sleep(3.0)
            c1, w1 = cpu()
            idle_c, idle_w = (c1 - c0) / 3.0, (w1 - w0) / 3.0
            many, few = study(1), study(cells // 2)
    finally:
        cluster.close()
    per_c, per_w = ((m - f) / (cells - 2) for m, f in zip(many, few, strict=True))
    return [
        _row(
            "2-worker LocalCluster, idle and per-task CPU (warm, no dashboard)",
            1 / (per_c + per_w),
            f"idle: {1e3 * idle_c:.0f} ms of CPU per second in the client's process (scheduler, "
            f"nannies, client) and {1e3 * idle_w:.0f} ms in the two workers; per task: "
            f"{1e3 * per_c:.1f} ms in the client's process and {1e3 * per_w:.1f} ms in the "
            f"workers ({cells} cells of 10,000 trials as {cells} tasks and as 2); the rate is "
            f"tasks per CPU second; 1-min load {load0:.1f}; CPU times tick every 10 ms",
            1,
        )
    ]
