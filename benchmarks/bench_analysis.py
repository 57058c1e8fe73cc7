"""Benchmark: the analysis layer's overheads and scaling (issue 14, "Speed").

Jobs (rows with unit "cells"):

1. **Per-cell overhead.** A sweep of 10⁶-trial generic cells in-process against the same
   number of direct ``oddslab.simulate`` calls: the overhead (building and validating cell
   dicts, hashing seeds, storing results) as a share of a cell. Also the fixed cost of one
   cell, from a sweep of 1-trial cells.
2. **Dask scaling.** A 200-cell sweep of 10⁶ trials each on a 2-worker LocalCluster
   (1 thread per worker) against in-process (numba's 2 threads), and the same with 10⁵-trial
   cells, where the per-cell overhead shows. Cluster start-up is timed separately.
   ``dask_cpu``: the per-worker efficiency in wall time and in CPU time (every CPU second
   of the workers, scheduler and client against the in-process run's), which a loaded
   machine does not distort as much. ``dask_overhead``: what the cluster costs in CPU while
   idle (per second) and per task.
3. **Matchup.** A 20 × 20 matrix of invented generic units, exact (``--exact auto``) and
   simulated with every headline to ±0.5 percentage points (``precision=0.005``).
4. **A big study.** 10⁵ one-trial cells streamed into a store, then the tidy frame, in a
   fresh process: time per cell and peak memory per cell. ``big_matchup``: a 320 × 320
   matchup (102,400 one-trial cells) the same way, then its CSV, long table and matrix
   (``_big_matchup.py``). ``big_matchup_cli``: the ``oddslab matchup`` command on that
   matchup, client memory and time of each output in a fresh process (``_big_matchup_cli.py``).

Every simulated study passes ``exact="never"`` (generic cells would otherwise be exact).

``--quick`` (the smoke test) runs far fewer and smaller cells. Timings depend on the machine
and its load: measure on a quiet machine (``benchmarks/run_all.py`` records the load average).

Run: ``python benchmarks/bench_analysis.py [--quick] [--markdown PATH]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _big_matchup import big_matchup  # noqa: E402
from _big_matchup_cli import big_matchup_cli  # noqa: E402
from _common import fmt_rate, markdown_table  # noqa: E402
from _common_analysis import ROOT, SCENARIO  # noqa: E402  (shared with the Dask jobs)
from _common_analysis import analysis_row as _row  # noqa: E402
from _common_analysis import numba_threads as _threads  # noqa: E402
from _dask_jobs import dask_cpu, dask_overhead, dask_scaling  # noqa: E402, F401


def per_cell_overhead(quick: bool, smoke: bool = False) -> list[dict]:
    """Sweep cells vs direct simulate calls of the same trials; fixed cost per cell."""
    from dataclasses import replace

    import oddslab
    from oddslab.analysis.sweep import sweep

    trials = 2_048 if smoke else 200_000 if quick else 1_000_000
    n = 2 if smoke else 3 if quick else 8
    values = list(range(1, n + 1))
    sweep(SCENARIO, {"attacker.weapons.0.models": [1]}, trials=1000, seed=1, exact="never")
    sc = oddslab.load(SCENARIO)
    t0 = time.perf_counter()
    c0 = time.process_time()
    for v in values:
        w = replace(sc.weapons[0], models=v)
        oddslab.simulate(replace(sc, weapons=(w,)), trials=trials, seed=v)
    direct, direct_cpu = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter()
    c0 = time.process_time()
    sweep(SCENARIO, {"attacker.weapons.0.models": values}, trials=trials, seed=1, exact="never")
    swept, swept_cpu = time.perf_counter() - t0, time.process_time() - c0
    tiny = 5 if smoke else 50 if quick else 200
    t0 = time.perf_counter()
    sweep(SCENARIO, {"target.models": list(range(1, tiny + 1))}, trials=1, seed=1, exact="never")
    fixed = (time.perf_counter() - t0) / tiny
    t0 = time.perf_counter()
    for m in range(1, tiny + 1):
        oddslab.simulate(replace(sc, target=replace(sc.target, models=m)), trials=1, seed=m)
    engine_fixed = (time.perf_counter() - t0) / tiny
    over = (swept_cpu - direct_cpu) / direct_cpu
    th = _threads()
    return [
        _row(
            f"sweep of {n} cells × {trials:,} trials, in-process",
            n / swept,
            f"overhead vs direct simulate: {100 * over:+.1f}% CPU "
            f"({swept:.2f} s vs {direct:.2f} s wall)",
            th,
        ),
        _row(
            f"sweep of {tiny} one-trial cells (fixed cost per cell)",
            1 / fixed,
            f"{1e3 * fixed:.1f} ms per cell, of which {1e3 * (fixed - engine_fixed):.1f} ms is "
            f"the analysis layer (dicts, validation, seeds, results) and the rest one "
            f"1-trial simulate() (kernel launch)",
            th,
        ),
    ]


def matchup_20x20(quick: bool, smoke: bool = False) -> list[dict]:
    """A 20 × 20 generic matchup (every headline to ±0.5 pp) from a generated library."""
    from oddslab.analysis.matchup import matchup

    n = 2 if smoke else 4 if quick else 20
    precision = 0.05 if smoke else 0.005
    lines = ['ruleset = "generic"', 'description = "generated benchmark units (invented)"']
    for i in range(n):
        lines += [
            f"[units.att{i}]",
            f"points = {50 + 5 * i}",
            f"[[units.att{i}.weapons]]",
            f"models = {3 + i % 7}",
            f"attacks = {1 + i % 3}",
            f"skill = {2 + i % 4}",
            f"strength = {3 + i % 6}",
            f"ap = {i % 3}",
            f"damage = {1 + i % 2}",
        ]
    for j in range(n):
        lines += [
            f"[units.tgt{j}]",
            "points = 100",
            f"models = {1 + j % 10}",
            f"toughness = {3 + j % 5}",
            f"wounds = {1 + j % 3}",
            f"save = {2 + j % 5}",
        ]
    lines += [
        "[matchup.template]",
        'ruleset = "generic"',
        "[matchup.template.attacker]",
        'use = "{attacker}"',
        "[matchup.template.target]",
        'use = "{target}"',
    ]
    with tempfile.TemporaryDirectory() as tmp:
        lib = Path(tmp) / "bench.toml"
        lib.write_text("\n".join(lines) + "\n")
        matchup(f"{lib}:att0", f"{lib}:tgt0", trials=1000, exact="never")  # warm-up
        t0 = time.perf_counter()
        res = matchup(
            f"{lib}:att*",
            f"{lib}:tgt*",
            precision=precision,
            trials=10_000_000,
            seed=1,
            exact="never",
        )
        t0e, c0e = time.perf_counter(), time.process_time()
        ex = matchup(f"{lib}:att*", f"{lib}:tgt*", seed=1)
        exact_wall, exact_cpu = time.perf_counter() - t0e, time.process_time() - c0e
        wall = time.perf_counter() - t0
    cells = n * n
    worst = max(
        max(
            (hi - lo) / 2
            for lo, hi in [(r.ci_low, r.ci_high) for r in o.probabilities().itertuples()]
        )
        for o in res.outcomes
    )
    trials = sum(o.trials for o in res.outcomes)
    return [
        _row(
            f"{n}×{n} generic matchup, exact (--exact auto)",
            cells / exact_wall,
            f"{exact_wall:.2f} s wall, {exact_cpu:.2f} s CPU; every cell exact: "
            f"{all(o.exact for o in ex.outcomes)}",
            _threads(),
        ),
        _row(
            f"{n}×{n} generic matchup, every headline ±{100 * precision:g} pp",
            cells / wall,
            f"{wall:.1f} s wall, {trials:,} trials in all; widest 95% half-width "
            f"{100 * worst:.2f} pp",
            _threads(),
        ),
    ]


def _big_child(cells: int) -> None:
    """In a fresh process: one sweep of ``cells`` one-trial cells streamed into a store, then
    its tidy frame; prints JSON (seconds, frame seconds, peak and base RSS in kB)."""
    import json
    import resource

    import pandas  # noqa: F401  (its import, ~50 MB, is not the study's memory)

    from oddslab.analysis.sweep import sweep

    sweep(SCENARIO, {"target.models": [1]}, trials=1, seed=1, exact="never")  # warm-up
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # 5 × 5 × 4 × 20 × 50 = 100,000 small cells (quick: 2 × 1 × 1 × 20 × 50 = 2,000)
    big = cells >= 100_000
    vary = {
        "target.save": list(range(2, 7)) if big else [3, 4] if cells >= 2_000 else [3],
        "target.toughness": list(range(3, 8)) if big else [4],
        "attacker.weapons.0.strength": list(range(3, 7)) if big else [4],
        "target.models": list(range(1, 21)),
        "attacker.weapons.0.models": list(range(1, 51)) if cells >= 2_000 else [1],
    }
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        res = sweep(SCENARIO, vary, trials=1, seed=1, exact="never", store=Path(tmp) / "s.sqlite",
                    progress=None)  # fmt: skip
        ran = time.perf_counter() - t0
        run_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        res.to_csv(Path(tmp) / "s.csv")  # chunk by chunk: never the whole frame
        csv_s = time.perf_counter() - t0
        csv_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        frame = res.frame()
        framed = time.perf_counter() - t0
        size = (Path(tmp) / "s.sqlite").stat().st_size
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"cells": len(res.cells), "rows": len(frame), "run_s": ran,
                      "frame_s": framed, "csv_s": csv_s, "peak_kb": peak, "base_kb": base,
                      "run_peak_kb": run_peak, "csv_peak_kb": csv_peak,
                      "store_bytes": size}))  # fmt: skip


def big_study(quick: bool, smoke: bool = False) -> list[dict]:
    """A sweep of 10⁵ one-trial cells end to end (in a fresh process): time and memory."""
    import json
    import subprocess

    cells = 20 if smoke else 2_000 if quick else 100_000
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, __file__, "--big-child", str(cells)], env=env,
                         capture_output=True, text=True, check=True, timeout=3600)  # fmt: skip
    d = json.loads(out.stdout.strip().splitlines()[-1])
    n = d["cells"]
    mb = {k: (d[k] - d["base_kb"]) / 1024 for k in ("run_peak_kb", "csv_peak_kb", "peak_kb")}
    return [
        _row(
            f"sweep of {n:,} one-trial cells, streamed to a store, then its CSV and tidy frame",
            n / (d["run_s"] + d["frame_s"]),
            f"{1e3 * d['run_s'] / n:.2f} ms per cell to run (validation, build, run, store); "
            f"peak memory while running {mb['run_peak_kb']:.0f} MB above the warm process "
            f"({1024 * mb['run_peak_kb'] / n:.2f} kB per cell); CSV written chunk by chunk "
            f"{1e3 * d['csv_s'] / n:.2f} ms per cell, peak then {mb['csv_peak_kb']:.0f} MB; "
            f"the whole tidy frame in memory ({d['rows']:,} rows) "
            f"{1e3 * d['frame_s'] / n:.2f} ms per cell, peak {mb['peak_kb']:.0f} MB; "
            f"store {d['store_bytes'] / n / 1024:.1f} kB per cell",
            _threads(),
        )
    ]


def run(quick: bool = False, smoke: bool = False) -> list[dict]:
    """Every analysis benchmark row (see the module docstring); ``smoke``: each on a tiny size."""
    jobs = (
        per_cell_overhead,
        dask_scaling,
        dask_cpu,
        matchup_20x20,
        big_study,
        big_matchup,
        big_matchup_cli,
    )
    return [row for job in jobs for row in job(quick or smoke, smoke)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="few, small cells")
    ap.add_argument("--smoke", action="store_true", help="each row on a tiny size (the tests' run)")
    ap.add_argument("--markdown", type=Path, help="also write the table here")
    ap.add_argument("--only", help="run only this job function (e.g. big_study)")
    ap.add_argument("--big-child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.big_child:
        _big_child(args.big_child)
        return 0
    quick = args.quick or args.smoke
    rows = globals()[args.only](quick, args.smoke) if args.only else run(args.quick, args.smoke)
    table = markdown_table(
        ["job", "cells/s", "threads", "note"],
        [[r["job"], fmt_rate(r["oddslab_per_s"]), r["threads"], r["note"]] for r in rows],
    )
    load = os.getloadavg()[0]
    text = (
        f"## Analysis layer ({'quick' if args.quick else 'full'} run; 1-min load average "
        f"{load:.1f} on {os.cpu_count()} CPUs)\n\n{table}\n"
    )
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
