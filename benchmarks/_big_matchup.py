"""The ``big_matchup`` job of ``bench_analysis.py``: a ~10⁵-cell matchup end to end.

A fresh process writes a library of ``n`` invented generic attackers (one weapon each) and
``n`` targets, runs the ``n × n`` matchup of one-trial cells (``exact="never"``) into a store
(every pair validated first, then made again as it runs, each result streamed to the store),
then writes its long table as CSV chunk by chunk, builds the whole table in memory and the
matrix. It prints JSON: seconds of each step and the peak RSS (``ru_maxrss``) after each,
with the warm process's as the base (pandas imported and one cell run before it is taken).

Run alone: ``python benchmarks/bench_analysis.py --only big_matchup`` (320 × 320 = 102,400
cells; ``--quick``: 45 × 45 = 2,025, still above the 1,000-cell threshold of streaming).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def write_library(path: Path, n: int) -> Path:
    """``n`` attackers ``a0..`` and ``n`` targets ``t0..`` (generic), with a template."""
    lines = ['ruleset = "generic"', 'description = "generated benchmark units (invented)"']
    for i in range(n):
        lines += [f"[units.a{i}]", f"points = {40 + i % 50}", f"models = {1 + i % 7}",
                  f"attacks = {1 + i % 3}", f"skill = {2 + i % 4}", f"strength = {3 + i % 6}",
                  f"ap = {i % 3}", f"damage = {1 + i % 2}"]  # fmt: skip
    for j in range(n):
        lines += [f"[units.t{j}]", "points = 100", f"models = {1 + j % 10}",
                  f"toughness = {3 + j % 5}", f"wounds = {1 + j % 3}", f"save = {2 + j % 5}"]  # fmt: skip
    lines += ["[matchup.template]", 'ruleset = "generic"', "[[matchup.template.attacker.weapons]]",
              'use = "{attacker}"', "[matchup.template.target]", 'use = "{target}"']  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path


def measure(n: int) -> dict:
    """The ``n × n`` matchup end to end in this process (see the module docstring)."""
    import resource

    import pandas  # noqa: F401  (its import, ~50 MB, is not the study's memory)

    from oddslab.analysis.matchup import matchup

    def rss() -> int:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    with tempfile.TemporaryDirectory() as tmp:
        lib = write_library(Path(tmp) / "big.toml", n)
        matchup(f"{lib}:a0", f"{lib}:t0", trials=1, exact="never", progress=None)  # warm-up
        out: dict = {"base_kb": rss()}
        t0, c0 = time.perf_counter(), time.process_time()
        res = matchup(f"{lib}:a*", f"{lib}:t*", trials=1, seed=1, exact="never",
                      store=Path(tmp) / "m.sqlite", progress=None)  # fmt: skip
        out.update(run_s=time.perf_counter() - t0, run_cpu_s=time.process_time() - c0,
                   run_peak_kb=rss(), cells=len(res.cells))  # fmt: skip
        t0 = time.perf_counter()
        res.to_csv(Path(tmp) / "m.csv")  # chunk by chunk: never the whole table
        out.update(csv_s=time.perf_counter() - t0, csv_peak_kb=rss())
        t0 = time.perf_counter()
        tab = res.table()
        out.update(table_s=time.perf_counter() - t0, rows=len(tab), table_peak_kb=rss())
        del tab
        t0 = time.perf_counter()
        grid = res.matrix()
        out.update(matrix_s=time.perf_counter() - t0, shape=list(grid.shape), peak_kb=rss())
        out["store_bytes"] = (Path(tmp) / "m.sqlite").stat().st_size
        out["load"] = os.getloadavg()[0]
    return out


def big_matchup(quick: bool, smoke: bool = False) -> list[dict]:
    """A matchup of ~10⁵ one-trial generic cells end to end: time and memory per cell."""
    from bench_analysis import _row, _threads

    n = 4 if smoke else 45 if quick else 320
    if smoke:  # in this process: the smoke run checks the row, not the figures
        d = measure(n)
    else:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([sys.executable, __file__, str(n)], env=env, capture_output=True,
                              text=True, check=True, timeout=7200)  # fmt: skip
        d = json.loads(proc.stdout.strip().splitlines()[-1])
    cells = d["cells"]
    mb = {k: max(d[k] - d["base_kb"], 0) / 1024
          for k in ("run_peak_kb", "csv_peak_kb", "table_peak_kb", "peak_kb")}  # fmt: skip
    end = d["run_s"] + d["table_s"]
    return [
        _row(
            f"{n} × {n} matchup of one-trial generic cells ({cells:,} cells), streamed to a "
            "store, then its CSV, long table and matrix",
            cells / end,
            f"{1e3 * d['run_s'] / cells:.2f} ms per cell to run (validation, build, run, store, "
            f"default metric; {1e3 * d['run_cpu_s'] / cells:.2f} ms CPU); peak memory while "
            f"running {mb['run_peak_kb']:.0f} MB above the warm process "
            f"({1024 * mb['run_peak_kb'] / cells:.2f} kB per cell); CSV chunk by chunk "
            f"{1e3 * d['csv_s'] / cells:.3f} ms per cell, peak then {mb['csv_peak_kb']:.0f} MB; "
            f"long table in memory ({d['rows']:,} rows) {1e3 * d['table_s'] / cells:.3f} ms per "
            f"cell, peak {mb['table_peak_kb']:.0f} MB; matrix {d['matrix_s']:.1f} s; store "
            f"{d['store_bytes'] / cells / 1024:.1f} kB per cell; load {d['load']:.1f}",
            _threads(),
        )
    ]


if __name__ == "__main__":
    print(json.dumps(measure(int(sys.argv[1]))))
