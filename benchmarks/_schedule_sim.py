"""A model of how a study's cells spread over Dask workers: per-worker wall efficiency of the
shipped plan (``oddslab.analysis.dask_plan``) against variants, without a cluster.

Not a benchmark (nothing runs on Dask): :func:`oddslab.analysis.dask_plan.replay` replays
``run_dask``'s plan (two-cell pilot tasks, batches of about a second that shrink at the end,
one task queued on each worker) on two model workers, each task costing ``--task-ms`` of
worker time on top of its cells and reaching its worker ``--latency-ms`` after the result
that freed its place. Cells cost the given time with ±10% noise ("flat") or rising 0.5–2×
along the study ("rising"). Variants: "unqueued" (no task queued on a worker: it waits a
round trip between tasks) and "full tail" (no shrinking last tasks). A measured cluster
decides (``bench_analysis.py --only dask_cpu``); this shows where the plans differ and why.

Run: ``python benchmarks/_schedule_sim.py [--task-ms 4] [--latency-ms 4]``
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from oddslab.analysis import dask_plan  # noqa: E402


@contextlib.contextmanager
def variant(name: str):
    """For the time of the block: the variant ``name`` ("unqueued", "full tail"), or the
    shipped plan for any other name."""
    queued, tail = dask_plan.QUEUED_PER_WORKER, dask_plan.tail_batch
    if name == "unqueued":
        dask_plan.QUEUED_PER_WORKER = 0
    elif name == "full tail":
        dask_plan.tail_batch = lambda size, *a: size
    try:
        yield
    finally:
        dask_plan.QUEUED_PER_WORKER, dask_plan.tail_batch = queued, tail


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task-ms", type=float, default=4.0, help="worker time per task (ms)")
    ap.add_argument("--latency-ms", type=float, default=4.0, help="a Dask round trip (ms)")
    ap.add_argument("--runs", type=int, default=50, help="noise draws per case")
    args = ap.parse_args()
    names = ("shipped", "unqueued", "full tail")
    cases = [(0.0095, 200), (0.095, 60), (0.095, 200), (0.0095, 1000), (0.001, 2000)]
    print("| cells | cell cost | costs | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for shape in ("flat", "rising"):
        for cost, n in cases:
            eff = {}
            for name in names:
                total = 0.0
                for seed in range(args.runs):
                    rnd = random.Random(seed)
                    ramp = [(0.5 + 1.5 * j / n) if shape == "rising" else 1.0 for j in range(n)]
                    costs = [cost * r * (1 + 0.1 * rnd.gauss(0, 1)) for r in ramp]
                    with variant(name):
                        ends, _, _ = dask_plan.replay(
                            costs, 2, args.task_ms / 1e3, args.latency_ms / 1e3
                        )
                    total += sum(costs) / (2 * max(ends.values()))
                eff[name] = total / args.runs
            row = " | ".join(f"{eff[k]:.3f}" for k in names)
            print(f"| {n:,} | {1e3 * cost:g} ms | {shape} | {row} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
