"""Each benchmark script runs once, quickly, as a smoke test (no figure is asserted).

Every ``benchmarks/bench_*.py`` with a ``run(quick)`` is called in this process with
``quick=True`` (a warm numba cache, no fresh processes): it must return rows with a positive
rate, and ``run_all``'s tables must be built from them. The cold starts, first runs, time to
answer and memory that ``run_all.py`` also measures are benchmarks, not tests: they are left
to ``python benchmarks/run_all.py``.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
SCRIPTS = sorted(p.stem for p in BENCH.glob("bench_*.py") if p.stem != "bench_memory")


@pytest.fixture(scope="module")
def bench_path():
    sys.path.insert(0, str(BENCH))
    yield
    sys.path.remove(str(BENCH))


@pytest.mark.slow
@pytest.mark.parametrize("name", SCRIPTS)
def test_benchmark_script_runs(name, bench_path):
    rows = importlib.import_module(name).run(quick=True)
    assert rows, f"{name}.py gave no rows"
    for r in rows:
        assert r["oddslab_per_s"] > 0, (name, r.get("job"))
        assert r.get("job") and r.get("ruleset") is not None, (name, r)
    run_all = importlib.import_module("run_all")
    table = run_all.bench_table(rows)
    assert table.count("\n") == len(rows) + 1  # header, rule, one line a row


def test_every_benchmark_has_a_run_function(bench_path):
    for name in SCRIPTS:
        assert callable(getattr(importlib.import_module(name), "run", None)), name
