"""A model of how a study's cells spread over Dask workers: per-worker wall efficiency of the
automatic batches (``oddslab.analysis.dask_run``) against plain ones, without a cluster.

Not a benchmark (nothing runs on Dask): it replays ``run_dask``'s plan (two-cell pilot tasks,
batches from :func:`plan_batch`, :func:`tail_batch` for the last tasks, a window of
``TASKS_PER_WORKER`` tasks in flight per worker) with Dask's queue as first in, first out and
each task costing ``--task-ms`` of worker time on top of its cells. Cells cost the given time
with ±10% noise ("flat") or rising 0.5–2× along the study ("rising"). "plain": no shrinking
last tasks and 4 tasks per worker in the plan (the batches before issue 33's last step).
A measured cluster decides (``bench_analysis.py --only dask_cpu`` runs both plans); this
shows where the two can differ and why.

Run: ``python benchmarks/_schedule_sim.py [--task-ms 8]``
"""

from __future__ import annotations

import argparse
import heapq
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from oddslab.analysis import dask_run  # noqa: E402


def makespan(costs: list[float], workers: int, task_s: float, plain: bool) -> float:
    """Seconds until the last worker finishes ``costs`` (one entry per cell, in order)."""
    balance = 4 if plain else dask_run.BALANCE_TASKS
    window = dask_run.TASKS_PER_WORKER * workers
    n, i, inflight, size, est = len(costs), 0, 0, None, 0.0
    queue: list[list[float]] = []
    running: list[tuple[float, int, list[float]]] = []
    busy = [0.0] * workers
    now = end = 0.0

    def take(k: int) -> list[float]:
        nonlocal i
        group = costs[i : i + k]
        i += len(group)
        return group

    for _ in range(workers):  # the pilot: two cells per worker
        queue.append(take(2))
        inflight += 1
    while queue or running:
        for w in range(workers):
            if busy[w] <= now and queue:
                group = queue.pop(0)
                busy[w] = now + sum(group) + task_s
                heapq.heappush(running, (busy[w], w, group))
        now, w, group = heapq.heappop(running)
        inflight -= 1
        end = max(end, now)
        if size is None:  # the first pilot task sizes the batches
            est = group[-1] + 0.5e-3
            shipped, dask_run.BALANCE_TASKS = dask_run.BALANCE_TASKS, balance
            try:
                size = dask_run.plan_batch(est, max(n - i, 1), workers)
            finally:
                dask_run.BALANCE_TASKS = shipped
        while i < n and inflight < window:
            k = size if plain else dask_run.tail_batch(size, n - i, workers, est)
            queue.append(take(k))
            inflight += 1
    return end


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task-ms", type=float, default=8.0, help="worker time per task (ms)")
    ap.add_argument("--runs", type=int, default=100, help="noise draws per case")
    args = ap.parse_args()
    cases = [(0.0095, 200), (0.095, 60), (0.095, 200), (0.0095, 1000), (0.001, 2000)]
    print("| cells | cell cost | costs | plain | automatic |\n|---|---|---|---|---|")
    for shape in ("flat", "rising"):
        for cost, n in cases:
            eff = {}
            for plain in (True, False):
                total = 0.0
                for seed in range(args.runs):
                    rnd = random.Random(seed)
                    ramp = [(0.5 + 1.5 * j / n) if shape == "rising" else 1.0 for j in range(n)]
                    costs = [cost * r * (1 + 0.1 * rnd.gauss(0, 1)) for r in ramp]
                    span = makespan(costs, 2, args.task_ms / 1e3, plain)
                    total += sum(costs) / (2 * span)
                eff[plain] = total / args.runs
            print(f"| {n:,} | {1e3 * cost:g} ms | {shape} | {eff[True]:.3f} | {eff[False]:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
