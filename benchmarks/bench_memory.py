"""Benchmark: peak memory of a small and a huge generic run (memory must not grow with trials).

Each run happens in a fresh subprocess that imports oddslab, runs the benchmark job
(``bench_generic.scenario()``) for the given number of trials and reports its peak resident
set size from ``resource.getrusage(RUSAGE_SELF).ru_maxrss``. The huge run must peak no higher
than the small run plus a little noise (histograms only; nothing is kept per trial).

Run: ``python benchmarks/bench_memory.py [--quick] [--markdown PATH]``
(default 1e5 vs 1e8 trials; ``--quick``: 1e5 vs 1e7).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import markdown_table, timed_run  # noqa: E402

#: allowed excess of the big run over the small one (allocator and page-cache noise)
NOISE_MIB = 8.0

_CHILD = """
import json, resource, sys, time
sys.path.insert(0, "benchmarks")
import bench_generic
from oddslab import simulate
trials = int(sys.argv[1])
sc = bench_generic.scenario()
t0 = time.perf_counter()
out = simulate(sc, trials=trials, seed=7)
elapsed = time.perf_counter() - t0
assert out.trials == trials
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
print(json.dumps({"trials": trials, "rss_kib": rss, "seconds": elapsed}))
"""


def peak_rss(trials: int) -> dict:
    """Run ``trials`` in a fresh process; return its JSON report (``rss_kib``, ``seconds``)."""
    wall, res = timed_run([sys.executable, "-c", _CHILD, str(trials)])
    if res.returncode != 0:
        raise RuntimeError(f"child failed ({res.returncode}):\n{res.stderr[-2000:]}")
    report = json.loads(res.stdout.strip().splitlines()[-1])
    report["wall"] = wall
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1e5 vs 1e7 trials")
    ap.add_argument("--markdown", type=Path, default=None, help="also write the table here")
    args = ap.parse_args(argv)
    small_n, big_n = 100_000, (10_000_000 if args.quick else 100_000_000)

    peak_rss(small_n)  # make sure the kernel is in numba's cache before measuring
    small = peak_rss(small_n)
    big = peak_rss(big_n)
    mib = {k: r["rss_kib"] / 1024 for k, r in (("small", small), ("big", big))}
    ok = mib["big"] <= mib["small"] + NOISE_MIB
    rows = [
        [f"{r['trials']:.0e}", f"{r['rss_kib'] / 1024:.1f}", f"{r['seconds']:.2f}",
         f"{r['wall']:.2f}"]
        for r in (small, big)
    ]  # fmt: skip
    text = "\n".join(
        [
            "## Peak memory (fresh process per run, `ru_maxrss`, warm numba cache)",
            "",
            markdown_table(
                ["trials", "peak RSS (MiB)", "simulate incl. kernel load (s)", "process wall (s)"],
                rows,
            ),
            "",
            f"Ratio big/small: {mib['big'] / mib['small']:.3f} "
            f"(limit: small + {NOISE_MIB:g} MiB): {'OK' if ok else 'FAILED'}",
            "",
        ]
    )
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
