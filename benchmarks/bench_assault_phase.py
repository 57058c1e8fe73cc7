"""Benchmark: 10 Space Marines charge 20 Ork Boyz, one turn, with morale and sweeping advance.

The same combat three ways in one process: oddslab (after a warm-up call, so compile time
is excluded), and the pure-Python reference ``tests/naive_assault_phase.py`` (also the slow
oracle of the tests). Rates are trials per second of wall clock and per CPU-second (all
threads): the CPU figure is what the cores deliver whatever else runs on the machine.

Run: ``python benchmarks/bench_assault_phase.py [--quick]`` (markdown table on stdout).
``run(quick)`` returns the rows for ``benchmarks/run_all.py``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import best_of_both, fmt_rate, markdown_table  # noqa: E402

JOB = "10 marines charge 20 boyz (1 turn, morale, sweep)"


def scenario():
    """10 marines (sergeant with power fist) vs 20 boyz (Nob with power claw), open ground."""
    from oddslab.rulesets.assault_phase import AssaultScenario, ModelGroup, Rules, Side, Unit

    marines = Unit(
        "Tactical Squad",
        (
            ModelGroup("Marines", 9, ws=4, s=4, t=4, i=4, a=1, ld=8, save=3),
            ModelGroup("Sergeant", 1, ws=4, s=4, t=4, i=4, a=2, ld=9, save=3, weapon="power-fist"),
        ),
    )
    boyz = Unit(
        "Boyz",
        (
            ModelGroup("Boyz", 19, ws=4, s=3, t=4, i=2, a=2, ld=7, save=6, two_weapons=True),
            ModelGroup("Nob", 1, ws=4, s=4, t=4, i=3, a=3, ld=7, save=6, weapon="power-fist"),
        ),
    )
    return AssaultScenario(
        Side("Space Marines", (marines,)), Side("Orks", (boyz,)), Rules(max_turns=1), name=JOB
    )


class _CountingRandom(random.Random):
    """``random.Random`` that counts ``randint`` calls (the dice a person would roll)."""

    dice = 0

    def randint(self, a: int, b: int) -> int:
        self.dice += 1
        return super().randint(a, b)


def naive_dice_per_trial(trials: int = 20_000) -> float:
    """Mean D6 rolled per combat by the reference (one die per attack, wound, save, test)."""
    from tests import naive_assault_phase as naive

    att, dfn = naive.benchmark_sides()
    rng = _CountingRandom(3)
    for _ in range(trials):
        naive.play(att, dfn, rng)
    return rng.dice / trials


def run(quick: bool = False, smoke: bool = False) -> list[dict]:
    """One row: the benchmark combat, oddslab v the pure-Python reference (see module doc)."""
    import numba

    from oddslab import engine
    from tests import naive_assault_phase as naive

    sc = scenario()
    engine.simulate(sc, trials=1_000, seed=1)  # warm-up: compile or load from numba's cache
    n = 2_048 if smoke else 4 * 65536 if quick else 8_000_000
    quick = quick or smoke
    repeat = 1 if quick else 3
    wall, cpu, out = best_of_both(lambda: engine.simulate(sc, trials=n, seed=100), repeat)
    n_py = 20 if smoke else 2_000 if quick else 20_000
    att, dfn = naive.benchmark_sides()
    py_wall, _py_cpu, ref = best_of_both(lambda: naive.run(att, dfn, n_py, seed=5), 1)
    # the two agree (mean defender models lost within 5 standard errors of the difference)
    vals = np.array([r["defender_models_lost"] for r in ref], dtype=float)
    pk = out.probs["defender_models_lost"]
    mean = float(pk @ np.arange(len(pk)))
    var_k = float(pk @ (np.arange(len(pk)) - mean) ** 2)
    z = (mean - vals.mean()) / np.sqrt(vals.var() / n_py + var_k / n)
    threads = numba.get_num_threads()
    load = os.getloadavg()[0]
    note = (
        f"{fmt_rate(n / cpu)} trials per CPU-second ({threads} threads; load average "
        f"{load:.1f} on {os.cpu_count()} CPUs); mean defender models lost {mean:.3f} v "
        f"reference {vals.mean():.3f} (z = {z:+.1f})"
    )
    return [
        {
            "ruleset": "assault-phase",
            "job": JOB,
            "unit": "trials",
            "oddslab_per_s": n / wall,
            "python_per_s": n_py / py_wall,
            "numpy_per_s": None,
            "dice_per_trial": naive_dice_per_trial(n_py),
            "threads": threads,
            "note": note,
        }
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few-second smoke run")
    ap.add_argument("--smoke", action="store_true", help="each row on a tiny size (the tests' run)")
    args = ap.parse_args(argv)
    rows = run(args.quick, args.smoke)
    table = []
    for r in rows:
        ratio = r["oddslab_per_s"] / r["python_per_s"]
        table.append(
            [
                r["job"],
                f"{fmt_rate(r['oddslab_per_s'])} {r['unit']}/s",
                f"{fmt_rate(r['python_per_s'])} {r['unit']}/s",
                f"{ratio:.0f}×",
                f"{r['dice_per_trial']:.1f}",
                r["threads"],
                r["note"],
            ]
        )
    headers = ["job", "oddslab", "pure Python", "ratio", "dice/trial", "threads", "note"]
    print(markdown_table(headers, table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
