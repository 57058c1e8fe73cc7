"""What the analysis benchmarks share (``bench_analysis.py`` and its Dask jobs in
``_dask_jobs.py``): the scenario, the numba thread count and the row format."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "oddslab" / "examples" / "generic-intercessors-vs-guardsmen.toml"


def numba_threads() -> int:
    import numba

    return int(numba.get_num_threads())


def analysis_row(job: str, rate: float, note: str, threads: int) -> dict:
    return {
        "ruleset": "analysis",
        "job": job,
        "unit": "cells",
        "oddslab_per_s": rate,
        "python_per_s": None,
        "numpy_per_s": None,
        "dice_per_trial": None,
        "threads": threads,
        "note": note,
    }
