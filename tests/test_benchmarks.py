"""Each benchmark script runs once, on a tiny size, as a smoke test (no figure is asserted).

Every ``benchmarks/bench_*.py`` with a ``run(quick, smoke)`` is called in this process with
``smoke=True``: each of its rows runs on a tiny size (a few thousand trials, a handful of naive
trials, one repeat), and the test checks the rows' shape: the columns ``run_all``'s tables
read, of the right types, and that the tables build from them. Rates from such a run mean
nothing and are not checked beyond being positive numbers. The timed runs, cold starts, time to
answer and memory are benchmarks, not tests: ``python benchmarks/run_all.py``.
"""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
SCRIPTS = sorted(p.stem for p in BENCH.glob("bench_*.py") if p.stem != "bench_memory")

#: every row's columns and their types (``None`` allowed where the tuple has ``type(None)``)
COLUMNS = {
    "ruleset": (str,),
    "job": (str,),
    "oddslab_per_s": (float, int),
    "python_per_s": (float, int, type(None)),
    "numpy_per_s": (float, int, type(None)),
    "dice_per_trial": (float, int, type(None)),
    "threads": (int,),
    "note": (str,),
}


@pytest.fixture(scope="module")
def bench_path():
    sys.path.insert(0, str(BENCH))
    yield
    sys.path.remove(str(BENCH))


@pytest.mark.parametrize("name", SCRIPTS)
def test_benchmark_script_runs(name, bench_path):
    rows = importlib.import_module(name).run(smoke=True)
    assert rows, f"{name}.py gave no rows"
    for r in rows:
        for col, types in COLUMNS.items():
            assert isinstance(r.get(col), types), (name, r.get("job"), col, r.get(col))
        assert r["job"], (name, r)
        rate = r["oddslab_per_s"]
        skipped = math.isnan(rate) and "skipped" in r["note"]  # an optional extra missing
        assert skipped or rate > 0, (name, r["job"])
        for col in ("python_per_s", "numpy_per_s"):
            assert r[col] is None or r[col] > 0, (name, r["job"], col)
    run_all = importlib.import_module("run_all")
    table = run_all.bench_table(rows)
    assert table.count("\n") == len(rows) + 1  # header, rule, one line a row


def test_every_benchmark_has_a_smoke_run(bench_path):
    import inspect

    for name in SCRIPTS:
        run = getattr(importlib.import_module(name), "run", None)
        assert callable(run), name
        assert "smoke" in inspect.signature(run).parameters, name
        assert "--smoke" in (BENCH / f"{name}.py").read_text(), f"{name}.py: no --smoke flag"
