"""The benchmarks run once, quickly, as a smoke test (timings are not asserted).

``benchmarks/run_all.py --quick`` imports every ``bench_*.py`` and calls its ``run(quick=True)``,
times one ruleset's cold and warm start and two examples' time to answer, and writes a results
file; every benchmark must contribute rows and nothing may fail.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(p for p in (ROOT / "benchmarks").glob("bench_*.py") if p.stem != "bench_memory")


@pytest.mark.slow
def test_run_all_quick(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "RESULTS.md"
    res = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run_all.py"), "--quick", "--results", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    text = out.read_text()
    assert "## Throughput" in text and "|" in text
    if "## Not measured" in text:
        assert "failed" not in text.split("## Not measured")[1], text
    for script in SCRIPTS:
        assert f"`{script.name}` (" in text, f"{script.name} contributed no rows"
    # README is untouched by a quick run
    assert "speed-table" in (ROOT / "README.md").read_text()
