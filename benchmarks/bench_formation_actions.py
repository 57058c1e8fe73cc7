"""Benchmark: formation actions, six formations a side over six turns, and the exact chain.

Jobs (rates measured in one process, oddslab after a warm-up call so compile time is
excluded):

- a 6-formations-a-side, 6-turn game (blue retains when the odds are even, best formation
  first; red never retains), against the pure-Python reference ``tests/naive_formation_actions.py``;
- the same game under the Shock reading of the action test's -1, where blue's best-first
  order changes with Shock and is picked at each activation;
- the exact Shock/broken Markov chain of one formation over 10 turns (per-turn distributions).

Rates are wall-clock; the note also gives games per CPU-second (all threads), which stays
comparable on a busy machine.

Run: ``PYTHONPATH=. python benchmarks/bench_formation_actions.py [--quick]``
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import sys
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import best_of_both, fmt_rate, markdown_table  # noqa: E402

from oddslab import engine  # noqa: E402
from oddslab.rulesets.formation_actions import (  # noqa: E402
    Army,
    Formation,
    FormationActionsScenario,
    OutsideShock,
    Rules,
    formation_chain,
)


def scenario() -> FormationActionsScenario:
    """Six formations a side, six turns; blue retains at even odds, red never."""
    blue = tuple(
        Formation(k, command=c, units=u, suppressed=s)
        for k, c, u, s in (
            ("hq", 5, 2, 0),
            ("infantry_1", 4, 4, 0),
            ("infantry_2", 4, 4, 1),
            ("armour", 5, 3, 0),
            ("recon", 4, 2, 0),
            ("artillery", 3, 3, 0),
        )
    )
    red = tuple(
        Formation(k, command=c, units=u, suppressed=s)
        for k, c, u, s in (
            ("hq", 4, 2, 0),
            ("infantry_1", 4, 4, 0),
            ("infantry_2", 3, 4, 0),
            ("infantry_3", 3, 4, 1),
            ("armour", 4, 3, 0),
            ("guns", 3, 2, 0),
        )
    )
    return FormationActionsScenario(
        (
            Army(
                "blue", blue, strategy=4, retain="if-chance", retain_chance=0.5, order="best-first"
            ),
            Army("red", red, strategy=3),
        ),
        6,
        Rules(),
        name="6 v 6 formations, 6 turns",
    )


def run(quick: bool = False, smoke: bool = False) -> list[dict]:
    """One row per job (see the module docstring)."""
    from tests.naive_formation_actions import play_game

    threads = numba.get_num_threads()
    sc = scenario()
    engine.simulate(sc, trials=1_000, seed=1)  # warm-up: compile or load from cache
    games = 2_048 if smoke else 4 * 65536 if quick else 4_000_000
    quick = quick or smoke
    repeat = 1 if quick else 3
    wall, cpu, _ = best_of_both(lambda: engine.simulate(sc, trials=games, seed=2), repeat)
    py_games = 5 if smoke else 300 if quick else 3000
    rng = random.Random(1)
    py_wall, _, _ = best_of_both(lambda: [play_game(sc, rng) for _ in range(py_games)], 1)
    rate = games / wall
    py_rate = py_games / py_wall
    load = os.getloadavg()[0]
    rows = [
        {
            "ruleset": "formation-actions",
            "job": "6 v 6 formations, 6 turns (retaining, best-first order)",
            "unit": "games",
            "oddslab_per_s": rate,
            "python_per_s": py_rate,
            "numpy_per_s": None,
            "dice_per_trial": None,
            "threads": threads,
            "note": (
                f"{fmt_rate(games / cpu)} games per CPU-second (x{threads} threads = "
                f"{fmt_rate(threads * games / cpu)}/s on idle cores); {rate / py_rate:.0f}x pure "
                f"Python; load average {load:.2f}"
            ),
        }
    ]
    # the same game under the Shock reading of the -1: blue's best-first order changes with
    # Shock, so it is picked at each activation (its own lock-step kernel)
    sc_pick = dataclasses.replace(sc, rules=Rules(action_penalty="shock"))
    engine.simulate(sc_pick, trials=1_000, seed=1)
    p_wall, p_cpu, _ = best_of_both(lambda: engine.simulate(sc_pick, trials=games, seed=2), repeat)
    py_pick, _, _ = best_of_both(lambda: [play_game(sc_pick, rng) for _ in range(py_games)], 1)
    rows.append(
        {
            "ruleset": "formation-actions",
            "job": "the same, Shock reading of the -1 (best-first order picked at each activation)",
            "unit": "games",
            "oddslab_per_s": games / p_wall,
            "python_per_s": py_games / py_pick,
            "numpy_per_s": None,
            "dice_per_trial": None,
            "threads": threads,
            "note": (
                f"{fmt_rate(games / p_cpu)} games per CPU-second; "
                f"{(games / p_wall) / (py_games / py_pick):.0f}x pure Python"
            ),
        }
    )
    f = Formation(
        "rifles",
        command=4,
        units=4,
        suppressed=1,
        outside_shock=OutsideShock(table=(0.5, 0.3, 0.2)),
    )
    formation_chain(f, Rules(), 10)
    n = 2 if smoke else 20 if quick else 200
    c_wall, c_cpu, _ = best_of_both(
        lambda: [formation_chain(f, Rules(), 10) for _ in range(n)], 1 if smoke else 3
    )
    rows.append(
        {
            "ruleset": "formation-actions",
            "job": "exact Shock/broken chain, one formation, 10 turns",
            "unit": "chains",
            "oddslab_per_s": n / c_wall,
            "python_per_s": None,
            "numpy_per_s": None,
            "dice_per_trial": None,
            "threads": 1,
            "note": f"{1e3 * c_wall / n:.2f} ms per chain (wall), {1e3 * c_cpu / n:.2f} ms CPU",
        }
    )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke test: fewer games, one run")
    ap.add_argument("--smoke", action="store_true", help="each row on a tiny size (the tests' run)")
    args = ap.parse_args()
    rows = run(quick=args.quick, smoke=args.smoke)
    headers = ["job", "unit", "oddslab /s", "pure Python /s", "threads", "note"]
    table = [
        [
            r["job"],
            r["unit"],
            fmt_rate(r["oddslab_per_s"]),
            fmt_rate(r["python_per_s"]) if r["python_per_s"] else "",
            r["threads"],
            r["note"],
        ]
        for r in rows
    ]
    print(markdown_table(headers, table))


if __name__ == "__main__":
    main()
