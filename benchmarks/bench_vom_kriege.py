"""Benchmark: Vom Kriege, full melee sequence and shooting alone.

* melee: cuirassiers (order bonus, one support) charge a line that answers with defensive
  fire, a battery joins in, the line battles back if it holds, retreats and removal follow,
  and the cuirassiers follow up into a second line — against the pure-Python reference
  (``tests/naive_vom_kriege.py``) in the same process;
* shooting: an 8-gun battery (6 dice) at a column, hits then retreats — against a
  numpy-vectorised version of the same roll and resolution.

Rates are after a warm-up call (compile or cache load excluded). The machine is shared, so
rates per CPU-second (all threads) are reported next to wall-clock rates.

Run: ``PYTHONPATH=. python benchmarks/bench_vom_kriege.py [--quick]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _common import best_of_both, fmt_rate, markdown_table  # noqa: E402

from oddslab import engine  # noqa: E402
from oddslab.rulesets.vom_kriege import Action, Battery, Unit, VomKriegeScenario  # noqa: E402


def melee_scenario() -> VomKriegeScenario:
    return VomKriegeScenario(
        units=(
            Unit("cuirassiers", "attacker", "cavalry", kind="heavy"),
            Unit("line", "defender", "infantry", hits=1),
            Unit("battery", "defender", "artillery", guns=6, kind="light"),
            Unit("second line", "defender", "infantry"),
        ),
        actions=(
            Action(
                "melee",
                "cuirassiers",
                "line",
                order_bonus=True,
                supports=1,
                reaction="defensive_fire",
                batteries=(Battery("battery", 6),),
                follow_up="second line",
                follow_up_reaction="defensive_fire",
            ),
        ),
        name="cuirassiers charge a line (defensive fire, battle back, follow-up)",
    )


def shooting_scenario() -> VomKriegeScenario:
    return VomKriegeScenario(
        units=(
            Unit("battery", "attacker", "artillery", guns=8, kind="heavy"),
            Unit("column", "defender", "infantry", formation="column", hits=1),
        ),
        actions=(Action("shoot", "battery", "column", range=3),),
        name="8-gun heavy battery at a column, 3 inches (6 dice)",
    )


def numpy_shooting(trials: int, seed: int = 0, batch: int = 1 << 16) -> dict[str, np.ndarray]:
    """The shooting job vectorised over trials: 6 dice (infantry, infantry, cavalry,
    artillery, saber, flag) at an infantry column with 1 hit of 4; hits then retreats."""
    rng = np.random.default_rng(seed)
    hit_face = np.array([1, 1, 0, 0, 1, 0], dtype=np.int64)
    flag_face = np.array([0, 0, 0, 0, 0, 1], dtype=np.int64)
    hists = {k: np.zeros(16, dtype=np.int64) for k in ("hits", "flags", "hm", "removed", "max")}
    done = 0
    while done < trials:
        n = min(batch, trials - done)
        faces = rng.integers(0, 6, size=(n, 6))
        hits = hit_face[faces].sum(axis=1)
        flags = flag_face[faces].sum(axis=1)
        new = 1 + hits
        reach = new >= 4
        removed = (new > 4) | (reach & (flags > 0))
        hm = np.where(removed, np.where(reach, 2, 0), np.where(reach, 2, flags))
        atmax = reach & ~removed
        for k, v in (
            ("hits", hits),
            ("flags", flags),
            ("hm", hm),
            ("removed", removed),
            ("max", atmax),
        ):
            hists[k] += np.bincount(v.astype(np.int64), minlength=16)[:16]
        done += n
    return hists


def _rate(n: int, seconds: float) -> float:
    return n / seconds if seconds > 0 else float("inf")


def run(quick: bool = False, smoke: bool = False) -> list[dict]:
    """One row per job (see benchmarks/README.md for the keys)."""
    import naive_vom_kriege as naive

    threads = numba.get_num_threads()
    repeat = 1 if quick or smoke else 3
    warm = 1_000 if smoke else 65536
    rows = []
    # -- melee -----------------------------------------------------------------------------
    sc = melee_scenario()
    engine.simulate(sc, trials=warm, seed=1)  # warm-up
    n = 2_048 if smoke else (4 if quick else 64) * 65536
    wall, cpu, out = best_of_both(lambda: engine.simulate(sc, trials=n, seed=2), repeat)
    n_py = 20 if smoke else 5_000 if quick else 40_000
    t0 = time.process_time()
    naive.simulate(sc, n_py, seed=3)
    py_cpu = time.process_time() - t0
    dice = out.mean("attacker_dice_rolled") + out.mean("defender_dice_rolled")
    rows.append(
        {
            "ruleset": "vom-kriege",
            "job": sc.name,
            "unit": "trials",
            "oddslab_per_s": _rate(n, wall),
            "oddslab_per_cpu_s": _rate(n, cpu),
            "python_per_s": _rate(n_py, py_cpu),
            "numpy_per_s": None,
            "dice_per_trial": dice,
            "threads": threads,
            "note": "the pure-Python reference runs on one thread",
        }
    )
    # -- shooting --------------------------------------------------------------------------
    sc = shooting_scenario()
    engine.simulate(sc, trials=warm, seed=1)
    n = 2_048 if smoke else (4 if quick else 128) * 65536
    wall, cpu, out = best_of_both(lambda: engine.simulate(sc, trials=n, seed=2), repeat)
    n_np = 1_000 if smoke else (2 if quick else 32) * 65536
    np_wall, np_cpu, _ = best_of_both(lambda: numpy_shooting(n_np, seed=4), repeat)
    rows.append(
        {
            "ruleset": "vom-kriege",
            "job": sc.name,
            "unit": "trials",
            "oddslab_per_s": _rate(n, wall),
            "oddslab_per_cpu_s": _rate(n, cpu),
            "python_per_s": None,
            "numpy_per_s": _rate(n_np, np_cpu),
            "dice_per_trial": 6.0,
            "threads": threads,
            "note": "numpy: same roll and hits-then-retreats, vectorised in batches of 65,536",
        }
    )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smoke test: few trials, one run")
    ap.add_argument("--smoke", action="store_true", help="each row on a tiny size (the tests' run)")
    args = ap.parse_args()
    rows = run(quick=args.quick, smoke=args.smoke)
    table = []
    for r in rows:
        per_cpu = r["oddslab_per_cpu_s"]
        vs_py = f"{per_cpu / r['python_per_s']:.0f}× (per CPU-s)" if r["python_per_s"] else ""
        vs_np = f"{per_cpu / r['numpy_per_s']:.1f}× (per CPU-s)" if r["numpy_per_s"] else ""
        table.append(
            [
                r["job"],
                fmt_rate(r["oddslab_per_s"]),
                fmt_rate(per_cpu),
                fmt_rate(r["python_per_s"]) if r["python_per_s"] else "",
                fmt_rate(r["numpy_per_s"]) if r["numpy_per_s"] else "",
                vs_py,
                vs_np,
                r["threads"],
            ]
        )
    print(
        markdown_table(
            [
                "job",
                "trials/s wall",
                "trials/s per CPU-s",
                "Python /CPU-s",
                "numpy /CPU-s",
                "vs Python",
                "vs numpy",
                "threads",
            ],
            table,
        )
    )


if __name__ == "__main__":
    main()
