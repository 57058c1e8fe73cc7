"""Record every example's histograms at a fixed seed, or compare against a recording.

A refactor or speed-up must keep results bit-identical for a seed. Record before the change,
compare after it::

    python tools/example_histograms.py record before.json
    # ... change the code ...
    python tools/example_histograms.py compare before.json

Each example runs 300,000 trials at seed 20261122. ``compare`` prints one line per statistic
that differs, or that disappeared (it notes when identical counts exist under another name, as
after a rename), and ends with ``identical`` or the number of differences (exit code 1).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TRIALS = 300_000
SEED = 20261122


def record() -> dict[str, dict[str, list[int]]]:
    """``{example file name: {statistic: counts}}`` for every shipped example."""
    from oddslab.engine import simulate
    from oddslab.scenario import load

    out = {}
    for path in sorted((ROOT / "oddslab" / "examples").glob("*.toml")):
        outcome = simulate(load(path), trials=TRIALS, seed=SEED)
        if outcome.counts is None:  # an exact-only scenario kind has nothing to compare
            continue
        out[path.name] = {k: [int(x) for x in v] for k, v in outcome.counts.items()}
    return out


def compare(reference: dict, current: dict) -> int:
    """Print the differences; return how many there are."""
    bad = 0
    for name, stats in reference.items():
        if name not in current:
            print(f"{name}: example missing")
            bad += 1
            continue
        for stat, counts in stats.items():
            got = current[name].get(stat)
            ref = np.trim_zeros(np.array(counts), "b")
            if got is None:
                renamed = any(
                    np.array_equal(np.trim_zeros(np.array(v), "b"), ref)
                    for v in current[name].values()
                )
                print(
                    f"{name}: {stat} missing"
                    + (" (identical counts under another name)" if renamed else "")
                )
                bad += 0 if renamed else 1
                continue
            if not np.array_equal(np.trim_zeros(np.array(got), "b"), ref):
                print(f"{name}: {stat} differs")
                bad += 1
    print("identical" if bad == 0 else f"{bad} differences")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("action", choices=("record", "compare"))
    ap.add_argument("file", type=Path)
    args = ap.parse_args(argv)
    if args.action == "record":
        args.file.write_text(json.dumps(record()))
        print(f"recorded {args.file}")
        return 0
    return 1 if compare(json.loads(args.file.read_text()), record()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
