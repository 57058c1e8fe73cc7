"""Small helpers shared by the benchmark scripts: timing, markdown tables, subprocess runs.

Benchmarks live outside the test paths; each script is runnable on its own
(``python benchmarks/bench_generic.py``) and imports this module from its own folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def env_with_root(**extra: str) -> dict[str, str]:
    """``os.environ`` with the repository on ``PYTHONPATH`` (for subprocesses), plus ``extra``."""
    env = dict(os.environ)
    old = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(ROOT) if not old else f"{ROOT}{os.pathsep}{old}"
    env.update(extra)
    return env


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Run ``fn`` ``repeat`` times; return (best wall time in seconds, last result).

    The best (minimum) time is the least disturbed by other processes on a shared machine.
    """
    best = float("inf")
    result = None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def best_of_both(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """Like :func:`best_of`, also timing CPU: (best wall s, best process CPU s, last result).

    Process CPU time (all threads) is insensitive to other processes competing for the
    cores, so per-CPU-second rates stay comparable on a busy machine where wall rates do not.
    """
    best_wall = best_cpu = float("inf")
    result = None
    for _ in range(max(1, repeat)):
        c0 = time.process_time()
        t0 = time.perf_counter()
        result = fn()
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best_wall, best_cpu, result


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured markdown table (cells formatted with ``str``)."""
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        out.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(out)


def fmt_rate(x: float) -> str:
    """``12_345_678.9`` → ``"12.3 M"`` (three significant figures, SI prefix)."""
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {prefix}"
    return f"{x:.3g}"


def oddslab_command() -> list[str]:
    """The ``oddslab`` console script if installed, else ``python -m oddslab``."""
    exe = shutil.which("oddslab")
    return [exe] if exe else [sys.executable, "-m", "oddslab"]


def timed_run(cmd: Sequence[str], **env: str) -> tuple[float, subprocess.CompletedProcess]:
    """Run ``cmd`` from the repository root; return (wall seconds, completed process)."""
    t0 = time.perf_counter()
    res = subprocess.run(
        list(cmd), cwd=ROOT, env=env_with_root(**env), capture_output=True, text=True
    )
    return time.perf_counter() - t0, res
