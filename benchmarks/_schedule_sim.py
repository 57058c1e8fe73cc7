"""A model of how a study's cells spread over Dask workers: per-worker wall efficiency of the
shipped plan (``oddslab.analysis.dask_plan``) against variants, without a cluster.

Not a benchmark (nothing runs on Dask): :func:`oddslab.analysis.dask_plan.replay` replays
``run_dask``'s plan (two-cell pilot tasks, batches of about a second, and an end predicted
from what each worker holds, one task queued on each worker) on two model workers, each task
costing ``--task-ms`` of worker time on top of its cells and reaching its worker
``--latency-ms`` after the result that freed its place. Cells cost the given time with ±10%
noise ("flat"), rising 0.5–2× or falling 2–0.5× along the study, or log-normal
(σ = 0.5, "noisy"). Variants: "unqueued" (no task queued on a worker: it waits a round trip
between tasks), "full tail" (no balanced end: full-size tasks to the last) and "shrinking
share" (the plan before the predicted end: each last task took the cells left shared over
every task place, down to 0.05 s of work). A measured cluster decides
(``bench_analysis.py --only dask_cpu``); this shows where the plans differ and why.

Run: ``python benchmarks/_schedule_sim.py [--task-ms 7.6] [--latency-ms 5]``
"""

from __future__ import annotations

import argparse
import contextlib
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from oddslab.analysis import dask_plan  # noqa: E402
from oddslab.analysis.dask_plan import Dispatch  # noqa: E402


def _shrinking_share(self, where=None, now=None):
    """:meth:`Dispatch.size` before the predicted end: the cells left shared over every task
    place, down to TAIL_TASK_SECONDS of work."""
    if self.batch is None:
        return 2
    if self.fixed is not None or self.cell_seconds is None:
        return self.batch
    c = self.cell_seconds
    size = min(self.batch, math.ceil(dask_plan.TARGET_TASK_SECONDS / c))
    share = math.ceil(max(self.left, 0) / max(sum(self.places.values()), 1))
    floor = math.ceil(dask_plan.TAIL_TASK_SECONDS / c)
    return max(1, min(size, max(share, floor)))


@contextlib.contextmanager
def variant(name: str):
    """For the time of the block: the variant ``name`` ("unqueued", "full tail",
    "shrinking share"), or the shipped plan for any other name."""
    queued, fill, size = dask_plan.QUEUED_PER_WORKER, dask_plan.fill_batch, Dispatch.size
    if name == "unqueued":
        dask_plan.QUEUED_PER_WORKER = 0
    elif name == "full tail":
        dask_plan.fill_batch = lambda fair, c, size, left, idle: min(size, left)
    elif name == "shrinking share":
        Dispatch.size = _shrinking_share
    try:
        yield
    finally:
        dask_plan.QUEUED_PER_WORKER, dask_plan.fill_batch, Dispatch.size = queued, fill, size


def _costs(cost: float, n: int, shape: str, rnd: random.Random) -> list[float]:
    """``n`` cells of about ``cost`` seconds each, shaped along the study."""
    if shape == "noisy":
        return [cost * rnd.lognormvariate(0, 0.5) for _ in range(n)]
    ramp = {"rising": lambda j: 0.5 + 1.5 * j / n, "falling": lambda j: 2 - 1.5 * j / n}
    scale = ramp.get(shape, lambda j: 1.0)
    return [cost * scale(j) * (1 + 0.1 * rnd.gauss(0, 1)) for j in range(n)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task-ms", type=float, default=7.6, help="CPU time per task (ms)")
    ap.add_argument("--latency-ms", type=float, default=5.0, help="a Dask round trip (ms)")
    ap.add_argument("--runs", type=int, default=50, help="noise draws per case")
    args = ap.parse_args()
    names = ("shipped", "shrinking share", "unqueued", "full tail")
    cases = [(0.0095, 200), (0.095, 60), (0.095, 200), (0.0095, 1000), (0.001, 2000), (0.5, 40)]
    print("| cells | cell cost | costs | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for shape in ("flat", "rising", "falling", "noisy"):
        for cost, n in cases:
            eff = {}
            for name in names:
                total = 0.0
                for seed in range(args.runs):
                    costs = _costs(cost, n, shape, random.Random(seed))
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
