"""The Dask jobs of ``bench_analysis.py`` (``--only dask_scaling``, ``dask_cpu``,
``dask_overhead``): a 2-worker LocalCluster against in-process, in wall time and in CPU time.
Kept apart so each file stays small; run them through ``bench_analysis.py``."""

from __future__ import annotations

import itertools
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


#: Rounds of each study in ``dask_cpu`` (1 with ``--quick``): this VM's speed drifts by several
#: percent from one minute to the next, so a row is the median of five.
ROUNDS = 5


def _single(vary: dict, trials: int):
    """The per-core reference: the sweep in this process at one numba thread. Returns (wall
    s, CPU s, result)."""
    import numba

    from oddslab.analysis.sweep import sweep

    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        t0, c0 = time.perf_counter(), _cpu_seconds(os.times())
        res = sweep(SCENARIO, vary, trials=trials, seed=3, exact="never", progress=None)
        return time.perf_counter() - t0, _cpu_seconds(os.times()) - c0, res
    finally:
        numba.set_num_threads(threads)


def _one_task_each(client, values: list[int], trials: int) -> float:
    """Dask's own floor: each worker runs its share of the cells (interleaved, as the plain
    pair's) as one task, an in-process sweep inside the worker, so there is one task
    boundary per worker and no batching. Wall time (s) until both are back."""
    from oddslab.analysis.sweep import sweep

    workers = sorted(client.nthreads())
    t0 = time.perf_counter()
    futures = [
        client.submit(
            sweep,
            SCENARIO,
            {"target.models": values[i :: len(workers)]},
            trials=trials,
            seed=3,
            exact="never",
            progress=None,
            workers=[w],
            allow_other_workers=False,
            pure=False,
        )  # fmt: skip
        for i, w in enumerate(workers)
    ]
    client.gather(futures)
    return time.perf_counter() - t0


def _median(xs: list[float]) -> str:
    """``median (min–max)`` of ratios, or the one value."""
    import statistics

    if len(xs) == 1:
        return f"{xs[0]:.3f}"
    return f"{statistics.median(xs):.3f} ({min(xs):.3f}–{max(xs):.3f})"


def dask_cpu(quick: bool, smoke: bool = False) -> list[dict]:
    """Per-worker efficiency of a 2-worker LocalCluster in wall time *and* in CPU time, in
    rounds that pair each Dask study with the in-process runs on either side of it.

    Wall: the 1-thread in-process sweep's time over 2 × the cluster's (start excluded): what
    the issue's targets mean. This VM's speed drifts by a few percent from one minute to the
    next, so the in-process reference is run again after every round and each round's
    studies are set against the mean of the runs before and after it; a row gives the median
    over the rounds and their range. CPU: the in-process sweep's CPU seconds over every CPU
    second the cluster spent (both workers, the scheduler and the client): the share of the
    cluster's work that is the cells' own, which other load does not change much.

    Each round runs, on one warm cluster: the study as shipped ("automatic"), without a task
    queued on each worker ("unqueued", ``_schedule_sim.variant``), with the end of the plan
    before the predicted one ("shrinking share": the last tasks took the cells left shared
    over every task place), and as one task per worker
    (``_one_task_each``: what Dask costs at all, with no batching). The two plain processes
    without Dask (``_plain_pair``) give the machine's ceiling.
    """
    if smoke:  # two clusters and a timed sweep: nothing a smoke run should start
        return []
    try:
        import distributed
    except ImportError:
        return [_row("2-worker LocalCluster (CPU)", float("nan"), "dask not installed: skipped", 0)]
    from oddslab.analysis.cells import Cell
    from oddslab.analysis.distributed import local_cluster, run_batch
    from oddslab.analysis.sweep import sweep
    from oddslab.scenario import read_toml

    rows = []
    rounds = 1 if quick else ROUNDS
    configs = (
        [(8, 100_000)]
        if quick
        else [(200, 100_000), (1_000, 100_000), (60, 1_000_000), (200, 1_000_000)]
    )
    for cells, trials in configs:
        values = list(range(1, cells + 1))
        vary = {"target.models": values}
        # the ceiling first: two plain single-threaded processes, no Dask, on the same cells
        pair, pair_kernels = plain_pair(values, trials)
        load0 = os.getloadavg()[0]
        cluster = local_cluster(2)
        plans = ("automatic", "shrinking share", "unqueued")
        runs: dict[str, list] = {p: [] for p in (*plans, "one task per worker")}
        try:
            with distributed.Client(cluster) as client:
                # every worker loads the kernels first: the steady state is what is measured
                warm = Cell({"warm": 1}, read_toml(SCENARIO), 1, str(SCENARIO)).payload()
                client.run(run_batch, [warm], 1000, None, "never")
                _single({"target.models": [1]}, 1000)  # and this process
                singles = [_single(vary, trials)]
                for _ in range(rounds):
                    for plan in plans:
                        before = {k: _cpu_seconds(v) for k, v in client.run(os.times).items()}
                        t0, c0 = time.perf_counter(), _cpu_seconds(os.times())
                        m0 = time.thread_time()  # this thread: the study's own client work
                        with variant(plan):
                            b = sweep(SCENARIO, vary, trials=trials, seed=3, exact="never",
                                      progress=None, scheduler=cluster.scheduler_address)  # fmt: skip
                        wall, here = time.perf_counter() - t0, _cpu_seconds(os.times()) - c0
                        main = time.thread_time() - m0
                        after = {k: _cpu_seconds(v) for k, v in client.run(os.times).items()}
                        workers = sum(after[k] - before[k] for k in after)
                        runs[plan].append((b, wall, here, main, workers))
                    runs["one task per worker"].append(
                        (None, _one_task_each(client, values, trials), 0.0, 0.0, 0.0)
                    )
                    singles.append(_single(vary, trials))
        finally:
            cluster.close()
        # each round against the mean of the in-process runs before and after it
        ref = [((s[0] + t[0]) / 2, (s[1] + t[1]) / 2) for s, t in itertools.pairwise(singles)]
        a = singles[0][2]
        single = sum(r[0] for r in ref) / len(ref)
        rows.append(
            _row(
                f"{cells} cells × {trials:,} trials, two plain processes at 1 thread (no Dask)",
                cells / pair,
                f"the ceiling of 2 single-threaded workers on this machine: per-process "
                f"efficiency {single / (2 * pair):.2f} (1-thread in-process {single:.1f} s, "
                f"the rounds' mean / (2 × {pair:.1f} s)); their kernels "
                f"{pair_kernels / sum(r.elapsed for r in a.results):.2f}× in-process",
                1,
            )
        )
        for plan, rs in runs.items():
            eff_wall = [s / (2 * r[1]) for (s, _), r in zip(ref, rs, strict=True)]
            walls = [r[1] for r in rs]
            note = (
                f"per-worker efficiency in wall time, median of {len(rs)} rounds (range): "
                f"{_median(eff_wall)} (each round's 1-thread in-process time, the mean of the "
                f"runs before and after it, {min(s for s, _ in ref):.1f}–"
                f"{max(s for s, _ in ref):.1f} s, over 2 × the cluster's "
                f"{min(walls):.1f}–{max(walls):.1f} s)"
            )
            if plan != "one task per worker":
                eff_cpu = [c / (r[4] + r[2]) for (_, c), r in zip(ref, rs, strict=True)]
                extra = [(r[4] + r[2] - c) / cells for (_, c), r in zip(ref, rs, strict=True)]
                # the cells' own kernel time in the workers over in-process: above 1 when the
                # workers' kernels ran slower (other load, the cluster's own CPU on the same
                # cores), not overhead
                kernels = [
                    sum(x.elapsed for x in r[0].results) / sum(x.elapsed for x in a.results)
                    for r in rs
                ]
                same = all(_counts(a) == _counts(r[0]) for r in rs)
                note += (
                    f"; in CPU time {_median(eff_cpu)} (cluster: workers "
                    f"{min(r[4] for r in rs):.2f}–{max(r[4] for r in rs):.2f} s + scheduler and "
                    f"client {min(r[2] for r in rs):.2f}–{max(r[2] for r in rs):.2f} s, of which "
                    f"the study's own thread {min(r[3] for r in rs):.2f}–"
                    f"{max(r[3] for r in rs):.2f} s); "
                    f"{1e3 * min(extra):.2f}–{1e3 * max(extra):.2f} ms CPU per cell beyond "
                    f"in-process; workers' kernel time {min(kernels):.2f}–{max(kernels):.2f}× "
                    f"in-process; identical: {same}"
                )
            rows.append(
                _row(
                    f"{cells} cells × {trials:,} trials, 2-worker LocalCluster, {plan}",
                    cells / (sum(walls) / len(walls)),
                    f"{note}; {pair / (sum(walls) / len(walls)):.2f} of the two plain processes' "
                    f"rate; 1-min load {load0:.1f} at the start",
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
