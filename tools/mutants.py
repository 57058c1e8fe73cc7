"""Hand-picked mutants per ruleset: does the test suite notice a wrong number?

Each mutant is one small change a careless edit could make to a kernel, a compiled table or
the rule code (a comparison flipped, a switch's branch dropped, a table entry off by one).
The script copies the repository once to a scratch directory, applies each mutant there in
turn, runs the test files that should notice it (``pytest -x``: the first failure kills the
mutant), restores the file, and writes a per-ruleset mutation score to
``benchmarks/MUTATION.md``. Equivalent mutants (they change no number: the reason is given
with the mutant) are run too and expected to survive; they are left out of the score.

Not run in CI (minutes per mutant on a shared machine: every mutated kernel recompiles).

Run from the repository root::

    python tools/mutants.py                  # every mutant
    python tools/mutants.py --list           # the mutants and their tests
    python tools/mutants.py --only generic   # one ruleset (or mutant ids, comma-separated)
    python tools/mutants.py --report-only    # rewrite MUTATION.md from the saved results

An id two rulesets share is run for both unless written ``id@ruleset``. ``--only`` merges:
the mutants it runs replace their rows in ``benchmarks/mutation-results.json``, every other
row is kept, and the report is written from all of them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mutant_list import MUTANTS, Mutant  # tools/ is on the path when run as a script

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "benchmarks" / "MUTATION.md"
RESULTS = ROOT / "benchmarks" / "mutation-results.json"  # raw results behind the report
SKIP = {".git", ".numba_cache", ".hypothesis", ".pytest_cache", ".ruff_cache", "out", ".venv-ci"}


@dataclass
class Result:
    id: str
    ruleset: str
    outcome: str  # killed, survived, error, timeout
    seconds: float
    rc: int
    tail: list[str] = field(default_factory=list)


def scratch_copy() -> Path:
    """One copy of the repository for every mutant (its numba cache survives between them);
    a fresh directory per run, so two runs at once (two worktrees) do not share one."""
    dst = Path(tempfile.mkdtemp(prefix="oddslab-mutants-")) / "repo"
    shutil.copytree(
        ROOT, dst, ignore=lambda d, names: [n for n in names if n in SKIP or n == "__pycache__"]
    )
    return dst


def run_one(m: Mutant, work: Path, timeout: float) -> Result:
    path = work / m.path
    original = path.read_text(encoding="utf-8")
    if original.count(m.old) != 1:
        return Result(m.id, m.ruleset, "error", 0.0, -1, [f"'old' found {original.count(m.old)}x"])
    path.write_text(original.replace(m.old, m.new), encoding="utf-8")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(work / ".numba_cache"), "MPLBACKEND": "Agg"}
    env["COLUMNS"] = "400"  # the summary's FAILED line keeps the start of the failure's message
    env.pop("PYTHONPATH", None)
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-rf", "-p", "no:cacheprovider", "-o",
           "addopts=", *m.tests]  # fmt: skip
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
        rc, out = p.returncode, (p.stdout + p.stderr).splitlines()
        outcome = {0: "survived", 1: "killed"}.get(rc, "error")
    except subprocess.TimeoutExpired:
        rc, out, outcome = -9, ["timeout"], "timeout"
    finally:
        path.write_text(original, encoding="utf-8")
    failed = [line for line in out if line.startswith("FAILED ")]  # which test killed it
    return Result(m.id, m.ruleset, outcome, time.perf_counter() - t0, rc, failed[:1] + out[-1:])


def _killer(r: Result | None) -> str:
    """The test that failed first on the mutant (its node id, from pytest's FAILED line)."""
    failed = [t for t in (r.tail if r else []) if t.startswith("FAILED ")]
    return f"`{failed[0].removeprefix('FAILED ').split(' - ')[0]}`" if failed else ""


def report(results: dict[str, Result]) -> str:
    by_id = {m.id + "@" + m.ruleset: m for m in MUTANTS}
    lines = [
        "# Mutation score per ruleset",
        "",
        "Written by `python tools/mutants.py` (not in CI). Each mutant is one hand-picked change",
        "to a kernel, a compiled table or the rule code; it is *killed* when the listed tests",
        "fail on it. Equivalent mutants change no number (the reason is given) and are left",
        "out of the score. Timings are wall seconds on a shared 2-core machine (noisy).",
        "A mutant's *size* is the largest change it makes to any outcome's probability in the",
        "scenario of the test that kills it (the kernel at 10^6 trials, mutated against not).",
        "",
        "| ruleset | mutants run | killed | survived | equivalent | score |",
        "|---|---|---|---|---|---|",
    ]
    rulesets = sorted({m.ruleset for m in MUTANTS})
    for rs in rulesets:
        # rows of mutants since removed from MUTANTS are not counted
        rows = [r for k, r in results.items() if r.ruleset == rs and k in by_id]
        eq = [r for r in rows if by_id[r.id + "@" + rs].equivalent]
        live = [r for r in rows if not by_id[r.id + "@" + rs].equivalent]
        killed = sum(r.outcome in ("killed", "timeout") for r in live)
        score = f"{killed}/{len(live)}" if live else "—"
        lines.append(
            f"| {rs} | {len(rows)} | {killed} | {len(live) - killed} | {len(eq)} | {score} |"
        )
    lines += [
        "",
        "| ruleset | mutant | change | tests | outcome | killed by | s |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in MUTANTS:
        r = results.get(m.id + "@" + m.ruleset)
        outcome = "not run" if r is None else r.outcome
        if m.equivalent:
            outcome += f" (equivalent: {m.equivalent})"
        what = m.what + (f" [size: {m.size}]" if m.size else "")
        secs = "" if r is None else f"{r.seconds:.0f}"
        lines.append(
            f"| {m.ruleset} | `{m.id}` | {what} (`{m.path}`) | `{' '.join(m.tests)}` | "
            f"{outcome} | {_killer(r)} | {secs} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--only", default="", help="rulesets or mutant ids, comma-separated")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per mutant")
    ap.add_argument("--report-only", action="store_true", help="rewrite the report only")
    args = ap.parse_args(argv)
    only = {x.strip() for x in args.only.split(",") if x.strip()}
    todo = [
        m
        for m in MUTANTS
        if not only or m.ruleset in only or m.id in only or f"{m.id}@{m.ruleset}" in only
    ]
    known = {x for m in MUTANTS for x in (m.ruleset, m.id, f"{m.id}@{m.ruleset}")}
    if only - known:
        ap.error(f"--only: no ruleset or mutant {', '.join(sorted(only - known))}")
    if args.list:
        for m in todo:  # and whether its 'old' text is still found exactly once
            found = (ROOT / m.path).read_text(encoding="utf-8").count(m.old)
            flag = "" if found == 1 else f"  ('old' found {found}x)"
            print(f"{m.ruleset:18} {m.id:26} {' '.join(m.tests)}{flag}")
        return 0
    saved = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results = {k: Result(**v) for k, v in saved.items()}
    if not args.report_only:
        work = scratch_copy()
        for m in todo:
            r = run_one(m, work, args.timeout)
            results[m.id + "@" + m.ruleset] = r
            print(f"{m.ruleset:18} {m.id:24} {r.outcome:8} {r.seconds:6.0f} s", flush=True)
            RESULTS.write_text(json.dumps({k: asdict(v) for k, v in results.items()}, indent=1))
        shutil.rmtree(work.parent, ignore_errors=True)
    REPORT.write_text(report(results), encoding="utf-8")
    print(f"wrote {REPORT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
