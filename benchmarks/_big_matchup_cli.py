"""The ``big_matchup_cli`` job of ``bench_analysis.py``: the ``oddslab matchup`` command on a
~10⁵-cell matchup, client memory and time of each of its outputs.

The library of ``_big_matchup.py`` (``n`` invented generic attackers and ``n`` targets,
one-trial cells, ``--exact never``). A first fresh process runs the whole command into a store
(``oddslab matchup lib:a* lib:t* -n 1 --exact never --store m.sqlite``: validate, run, print
the matrix); then one fresh process per output runs the command again with ``--resume`` on
that full store (every pair validated again, no cell run) and writes that output: the matrix
(the default print), ``--out m.csv``, ``-f csv``, ``-f json`` and ``--long --sort value``.
Each process runs the typer app in-process with its stdout sent to a file, after a warm-up
(pandas, rich and the app imported, a 1 × 1 matchup run through the command), and prints JSON:
wall and CPU seconds of the command and its peak RSS (``ru_maxrss``) above the warm process.

Run alone: ``python benchmarks/bench_analysis.py --only big_matchup_cli`` (320 × 320 = 102,400
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

#: The outputs measured, each in its own process: name -> extra command-line arguments.
OUTPUTS = {
    "matrix": [],
    "out_csv": ["--out", "{tmp}/m.csv"],
    "format_csv": ["-f", "csv"],
    "format_json": ["-f", "json"],
    "long_sort": ["--long", "--sort", "value"],
}


def measure(lib: str, store: str, output: str, resume: bool, tmp: str) -> dict:
    """One run of the command in this process (see the module docstring)."""
    import resource

    import pandas  # noqa: F401  (imports are not the command's memory)
    import rich.table  # noqa: F401

    from oddslab.cli import app

    def rss() -> int:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def command(args: list[str]) -> None:
        try:
            app(args, standalone_mode=False)
        except SystemExit as exc:  # pragma: no cover - a failing command
            if exc.code:
                raise

    sys.stdout = open(Path(tmp) / f"{output}.stdout", "w")  # noqa: SIM115  (the command's)
    command(["matchup", f"{lib}:a0", f"{lib}:t0", "-n", "1", "--exact", "never"])  # warm-up
    base = rss()
    extra = [a.format(tmp=tmp) for a in OUTPUTS[output]]
    args = ["matchup", f"{lib}:a*", f"{lib}:t*", "-n", "1", "--seed", "1", "--exact", "never",
            "--store", store, *(["--resume"] if resume else []), *extra]  # fmt: skip
    t0, c0 = time.perf_counter(), time.process_time()
    command(args)
    sys.stdout.close()
    return {"s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
            "peak_kb": rss() - base, "load": os.getloadavg()[0],
            "stdout_bytes": (Path(tmp) / f"{output}.stdout").stat().st_size}  # fmt: skip


def _child(lib: Path, store: Path, output: str, resume: bool, tmp: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    cmd = [sys.executable, __file__, str(lib), str(store), output, str(int(resume)), tmp]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True,
                          timeout=7200)  # fmt: skip
    return json.loads(proc.stdout.strip().splitlines()[-1])


def big_matchup_cli(quick: bool, smoke: bool = False) -> list[dict]:
    """``oddslab matchup`` on ~10⁵ one-trial cells: client memory and time per output."""
    from _big_matchup import write_library
    from bench_analysis import _row, _threads

    n = 3 if smoke else 45 if quick else 320
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        lib = write_library(Path(tmp) / "big.toml", n)
        store = Path(tmp) / "m.sqlite"
        outputs = ["matrix", "format_csv"] if smoke else list(OUTPUTS)
        for i, output in enumerate(outputs):
            if smoke:  # in this process: the smoke run checks the rows, not the figures
                saved = sys.stdout
                try:
                    d = measure(str(lib), str(store), output, i > 0, tmp)
                finally:
                    sys.stdout = saved
            else:
                d = _child(lib, store, output, i > 0, tmp)
            what = "run into a store, then" if i == 0 else "again with --resume on the full store,"
            rows.append(
                _row(
                    f"`oddslab matchup` of {n} × {n} one-trial generic cells ({n * n:,}), {what} "
                    f"{' '.join(OUTPUTS[output]).format(tmp='.') or 'the matrix printed'}",
                    n * n / d["s"],
                    f"client peak memory {d['peak_kb'] / 1024:.0f} MB above the warm process "
                    f"({d['peak_kb'] / (n * n):.2f} kB per cell); {d['s']:.1f} s wall, "
                    f"{d['cpu_s']:.1f} s CPU; {d['stdout_bytes']:,} bytes printed; load "
                    f"{d['load']:.1f}",
                    _threads(),
                )
            )
    return rows


if __name__ == "__main__":
    lib_, store_, output_, resume_, tmp_ = sys.argv[1:6]
    result = measure(lib_, store_, output_, resume_ == "1", tmp_)
    print(json.dumps(result), file=sys.__stdout__)
