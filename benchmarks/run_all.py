"""Run every benchmark and write one table: ``benchmarks/RESULTS.md`` and the README's speed table.

What it measures, all in this one run on this machine:

- every ``benchmarks/bench_*.py`` that exposes ``run(quick) -> list[dict]`` (one row per job:
  oddslab's rate after a warm-up call, and the pure-Python / numpy rates of the same job
  measured in the same process, so the ratios are like for like);
- cold and warm start of each ruleset: a fresh process simulating the ruleset's ``WARMUP``
  scenarios (every kernel it has) for one trial, first with an empty ``NUMBA_CACHE_DIR``
  (compiles every kernel), then again with the cache it left (loads them); the difference
  is the compile cost;
- the first run of every shipped example the same way (``oddslab simulate EX -n 1``, empty
  cache, then warm): what a user waits for the first time they run that example;
- time to answer: the wall time of ``oddslab simulate EXAMPLE --precision 0.001`` from a warm
  cache for every shipped example (process start-up, imports and cache load included);
- peak memory of a small and a huge run (``bench_memory.py``).

The README table sits between ``<!-- speed-table:start -->`` and ``<!-- speed-table:end -->``
and is generated here, never typed.

Run: ``python benchmarks/run_all.py [--quick] [--results PATH] [--no-readme] [--only NAME,...]``
(``--quick`` is the smoke run the tests call: few trials, two examples, no README update.)
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from _common import env_with_root, fmt_rate, markdown_table, oddslab_command  # noqa: E402

START, END = "<!-- speed-table:start -->", "<!-- speed-table:end -->"

_START_CHILD = """
import importlib, time
t0 = time.perf_counter()
from oddslab.engine import simulate
from oddslab.scenario import from_dict, RULESETS
mod = importlib.import_module(RULESETS[{ruleset!r}])
specs = getattr(mod, "WARMUPS", None) or mod.WARMUP
t1 = time.perf_counter()
for spec in (specs if isinstance(specs, (list, tuple)) else [specs]):
    simulate(from_dict(spec), trials=1, seed=1)
t2 = time.perf_counter()
print(f"{{t1 - t0:.4f}} {{t2 - t1:.4f}}")
"""


def bench_modules(only: set[str] | None) -> list[str]:
    """Names of the ``bench_*.py`` scripts with a ``run()`` (``bench_memory`` is run apart)."""
    names = []
    for p in sorted(HERE.glob("bench_*.py")):
        if p.stem == "bench_memory":
            continue
        if only and p.stem.removeprefix("bench_") not in only:
            continue
        names.append(p.stem)
    return names


def run_benches(names: list[str], quick: bool) -> tuple[list[dict], list[str]]:
    rows, problems = [], []
    for name in names:
        mod = importlib.import_module(name)
        if not hasattr(mod, "run"):
            problems.append(f"{name}: no run() — not included")
            continue
        print(f"[run_all] {name} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        try:
            got = mod.run(quick=quick)
        except Exception as exc:  # a broken benchmark is reported, not fatal to the table
            problems.append(f"{name}: failed: {type(exc).__name__}: {exc}")
            continue
        for r in got:
            r.setdefault("script", f"{name}.py")
        rows.extend(got)
        print(f"[run_all] {name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    return rows, problems


def start_times(rulesets: list[str]) -> list[dict]:
    """Cold (empty cache) and warm start of each ruleset's WARMUP scenario, fresh processes."""
    out = []
    for rs in rulesets:
        with tempfile.TemporaryDirectory(prefix="oddslab-cold-") as cache:
            env = env_with_root(NUMBA_CACHE_DIR=cache)
            res = []
            for _ in range(2):  # cold, then warm from the cache the first run wrote
                t0 = time.perf_counter()
                p = subprocess.run(
                    [sys.executable, "-c", _START_CHILD.format(ruleset=rs)],
                    cwd=ROOT,
                    env=env,
                    capture_output=True,
                    text=True,
                )
                wall = time.perf_counter() - t0
                if p.returncode != 0:
                    res.append(None)
                    tail = (p.stderr.strip().splitlines() or ["?"])[-1]
                    print(f"[run_all] start {rs}: failed: {tail}", file=sys.stderr)
                    break
                _imp, first = (float(x) for x in p.stdout.split()[-2:])
                res.append((wall, first))
        if len(res) == 2 and all(res):
            (cw, cf), (ww, wf) = res
            out.append({"ruleset": rs, "cold_s": cw, "warm_s": ww, "compile_s": cf - wf})
    return out


def first_runs(examples: list[Path]) -> list[dict]:
    """Per example: ``oddslab simulate EX -n 1`` in a fresh process with an empty numba cache
    (compiles what that example runs), then again from the cache it left (warm). The issue's
    measure: the first run of any example on top of a warm run."""
    cmd = oddslab_command()
    out = []
    for ex in examples:
        args = [*cmd, "simulate", str(ex.relative_to(ROOT)), "-n", "1", "--format", "json"]
        with tempfile.TemporaryDirectory(prefix="oddslab-cold-") as cache:
            env = env_with_root(NUMBA_CACHE_DIR=cache)
            walls = []
            for _ in range(2):  # cold, then warm
                t0 = time.perf_counter()
                p = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
                walls.append(time.perf_counter() - t0 if p.returncode == 0 else None)
        if None in walls:
            print(f"[run_all] first run {ex.name}: failed", file=sys.stderr)
            continue
        out.append({"example": ex.name, "cold_s": walls[0], "warm_s": walls[1]})
    return out


def first_run_table(rows: list[dict]) -> str:
    return markdown_table(
        ["example", "first run, empty cache (s)", "warm run (s)", "first run − warm (s)"],
        [[r["example"], f"{r['cold_s']:.1f}", f"{r['warm_s']:.2f}",
          f"{r['cold_s'] - r['warm_s']:.1f}"] for r in rows],
    )  # fmt: skip


def time_to_answer(examples: list[Path], precision: float) -> list[dict]:
    """Wall time of ``oddslab simulate EX --precision P`` per example, warm cache (best of 2):
    the issue's command as a user runs it, tables printed (to a pipe, so 80 columns wide)."""
    cmd = oddslab_command()
    out = []
    for ex in examples:
        rel = ex.relative_to(ROOT)
        args = [*cmd, "simulate", str(rel), "--precision", str(precision), "--seed", "1"]
        subprocess.run(args, cwd=ROOT, env=env_with_root(), capture_output=True)  # warm cache
        best, trials, ok = float("inf"), None, True
        for _ in range(2):
            t0 = time.perf_counter()
            p = subprocess.run(args, cwd=ROOT, env=env_with_root(), capture_output=True, text=True)
            best = min(best, time.perf_counter() - t0)
            if p.returncode != 0:
                ok = False
                break
            found = re.search(r"\(([\d,]+)\s+trials,\s+seed", p.stdout)  # the results header
            trials = int(found.group(1).replace(",", "")) if found else None
        out.append({"example": ex.name, "wall_s": best if ok else None, "trials": trials})
    return out


def memory(quick: bool) -> str:
    args = [sys.executable, str(HERE / "bench_memory.py")] + (["--quick"] if quick else [])
    p = subprocess.run(args, cwd=ROOT, env=env_with_root(), capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else f"bench_memory.py failed:\n{p.stderr[-800:]}"


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.1f}×" if a and b else "—"


def bench_table(rows: list[dict], *, notes: bool = True) -> str:
    body = []
    for r in rows:
        unit = r.get("unit", "trials")
        body.append(
            [
                r.get("ruleset", ""),
                r.get("job", ""),
                f"{fmt_rate(r['oddslab_per_s'])} {unit}/s",
                _ratio(r["oddslab_per_s"], r.get("python_per_s")),
                _ratio(r["oddslab_per_s"], r.get("numpy_per_s")),
                f"{fmt_rate(r['oddslab_per_s'] * r['dice_per_trial'])}"
                if r.get("dice_per_trial")
                else "—",
                r.get("threads", ""),
                *([r.get("note", "")] if notes else []),
            ]
        )
    head = ["ruleset", "job", "oddslab", "× pure Python", "× numpy", "dice/s", "threads"]
    return markdown_table(head + (["note"] if notes else []), body)


def readme_rows(rows: list[dict]) -> list[dict]:
    """The README's short table: every ruleset job, and of the analysis rows only the matchup."""
    return [r for r in rows if r.get("ruleset") != "analysis" or "matchup" in r.get("job", "")]


def start_table(rows: list[dict]) -> str:
    return markdown_table(
        ["ruleset", "first run, empty cache (s)", "warm run (s)", "compile cost (s)"],
        [[r["ruleset"], f"{r['cold_s']:.1f}", f"{r['warm_s']:.2f}", f"{r['compile_s']:.1f}"]
         for r in rows],
    )  # fmt: skip


def answer_table(rows: list[dict], precision: float) -> str:
    return markdown_table(
        ["example", f"wall time to ±{precision:g} (s)", "trials"],
        [
            [r["example"], "failed" if r["wall_s"] is None else f"{r['wall_s']:.2f}",
             f"{r['trials']:,}" if r["trials"] else "—"]
            for r in rows
        ],
    )  # fmt: skip


def ruleset_summary(firsts: list[dict], answers: list[dict], precision: float) -> str:
    """Per ruleset, over its examples: the first run on top of a warm run (target <= 5 s)
    and the time to answer (target <= 1 s), as ranges."""
    import functools
    import tomllib

    @functools.cache
    def ruleset(name: str) -> str:
        with open(ROOT / "examples" / name, "rb") as f:
            return tomllib.load(f).get("ruleset", "?")

    groups: dict[str, dict[str, list[float]]] = {}
    for r in firsts:
        groups.setdefault(ruleset(r["example"]), {"first": [], "answer": []})["first"].append(
            r["cold_s"] - r["warm_s"]
        )
    for r in answers:
        if r["wall_s"] is not None:
            g = groups.setdefault(ruleset(r["example"]), {"first": [], "answer": []})
            g["answer"].append(r["wall_s"])

    def span(xs: list[float], fmt: str, limit: float) -> str:
        if not xs:
            return "—"
        lo, hi = min(xs), max(xs)
        text = f"{lo:{fmt}}" if f"{lo:{fmt}}" == f"{hi:{fmt}}" else f"{lo:{fmt}}–{hi:{fmt}}"
        over = sum(x > limit for x in xs)
        return text + (f" ({over} of {len(xs)} over {limit:g} s)" if over else "")

    return markdown_table(
        ["ruleset", "examples", "first run − warm run (s), target ≤ 5",
         f"time to answer ±{precision:g} (s), target ≤ 1"],
        [[rs, str(max(len(g["first"]), len(g["answer"]))), span(g["first"], ".1f", 5.0),
          span(g["answer"], ".2f", 1.0)] for rs, g in sorted(groups.items())],
    )  # fmt: skip


def machine_line() -> str:
    import numba
    import numpy

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, numba {numba.__version__}, "
        f"numpy {numpy.__version__}; load average at start {load:.1f}"
    )


def update_readme(readme: Path, table: str) -> bool:
    text = readme.read_text(encoding="utf-8")
    if START not in text or END not in text:
        return False
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{START}\n{table}\n{END}{tail}", encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: few trials, no README")
    ap.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--no-readme", action="store_true", help="leave README.md alone")
    ap.add_argument("--only", default="", help="comma-separated benchmark names (e.g. generic)")
    ap.add_argument("--precision", type=float, default=0.001)
    args = ap.parse_args(argv)
    only = {x.strip() for x in args.only.split(",") if x.strip()} or None
    machine = machine_line()

    from oddslab.scenario import RULESETS

    rows, problems = run_benches(bench_modules(only), args.quick)
    rulesets = [r for r in RULESETS if not only or r.replace("-", "_") in only]
    available = []
    for rs in rulesets:
        try:
            if hasattr(importlib.import_module(RULESETS[rs]), "WARMUP"):
                available.append(rs)
            else:
                problems.append(f"start time: {rs} has no WARMUP scenario")
        except ImportError:
            problems.append(f"start time: ruleset {rs} is not available")
    if args.quick:  # one ruleset, the quickest to compile, proves the path
        available = [r for r in available if r == "formation-actions"] or available[:1]
    starts = start_times(available)

    examples = sorted((ROOT / "examples").glob("*.toml"))
    if only:
        examples = [
            e for e in examples if any(e.name.startswith(o.replace("_", "-")) for o in only)
        ]
    if args.quick:
        examples = examples[:2]
    firsts = first_runs(examples)
    answers = time_to_answer(examples, args.precision)
    mem = memory(args.quick)

    parts = [
        "# Benchmark results",
        "",
        f"Written by `python benchmarks/run_all.py{' --quick' if args.quick else ''}`: {machine}.",
        "Rates are oddslab after a warm-up call (compile excluded), with all numba threads;",
        "the pure-Python and numpy rates are the same job measured in the same process.",
        "",
        "## Throughput",
        "",
        bench_table(rows),
        "",
        "Scripts: "
        + ", ".join(
            f"`{s}` ({sum(r['script'] == s for r in rows)} rows)"
            for s in dict.fromkeys(r["script"] for r in rows)
        )
        + ".",
        "",
        "## Per ruleset: first run and time to answer over its examples",
        "",
        "From the two example tables below: `oddslab simulate EXAMPLE -n 1` with an empty",
        "numba cache minus the same run warm, and the wall time of",
        f"`oddslab simulate EXAMPLE --precision {args.precision:g}` with a warm cache.",
        "",
        ruleset_summary(firsts, answers, args.precision),
        "",
        "## Start-up: first run of each ruleset (empty numba cache) and a warm run",
        "",
        "A fresh process simulates the ruleset's `WARMUP` scenario for one trial.",
        "",
        start_table(starts),
        "",
        "## First run of each example (empty numba cache) and a warm run",
        "",
        "`oddslab simulate EXAMPLE -n 1` in a fresh process: first with an empty",
        "`NUMBA_CACHE_DIR` (it compiles the kernels that example runs), then from the cache.",
        "",
        first_run_table(firsts),
        "",
        f"## Time to answer: `oddslab simulate EXAMPLE --precision {args.precision:g}` (warm cache)",
        "",
        answer_table(answers, args.precision),
        "",
        mem,
        "",
    ]
    if problems:
        parts += ["## Not measured", "", *[f"- {p}" for p in problems], ""]
    args.results.write_text("\n".join(parts), encoding="utf-8")
    print("\n".join(parts))
    if not args.quick and not args.no_readme:
        readme_table = "\n".join(
            [
                f"Measured by `python benchmarks/run_all.py` ({machine}).",
                "",
                bench_table(readme_rows(rows), notes=False),
                "",
                ruleset_summary(firsts, answers, args.precision),
                "",
                "Notes on each job, the analysis layer's overheads, time to answer for every "
                "example, and peak memory: "
                "[benchmarks/RESULTS.md](benchmarks/RESULTS.md).",
            ]
        )
        if not update_readme(ROOT / "README.md", readme_table):
            print("README.md has no speed-table markers; not updated", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
