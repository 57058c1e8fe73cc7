"""Benchmark: hex platoon ranged fire with saves and state change; an artillery mission.

Job 1 ("ranged fire"): an anti-tank platoon (AP 4+, augmented, To Hit 4) fires at a tank in
a wood (armor 2 + defensive bonus 1 + concealment 1, capped at 2: 4 save dice on 5+); the
tank goes good order → disrupted → reduced → eliminated. Statistics: hits, unsaved hits,
final state. Timed as oddslab (``simulate``, all threads), numpy (vectorised, batches of
65,536 trials, the same semantics) and pure Python (``tests/naive_hex_platoon.py``).

Job 2 ("artillery"): a 6-dice mission on 4+ over the impact hex and its 6 neighbours, 9
units in 5 occupied hexes, fair distribution, (s)HQ test, mission failure roll.

Rates are trials per second after a warm-up call (compile excluded), wall clock and per
CPU-second (process CPU time of all threads: insensitive to other load on the machine).

Run: ``PYTHONPATH=. python benchmarks/bench_hex_platoon.py [--quick]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _common import best_of_both, fmt_rate, markdown_table  # noqa: E402

from oddslab import engine  # noqa: E402
from oddslab.scenario import from_dict  # noqa: E402

AT = {
    "name": "AT platoon",
    "type": "infantry",
    "he": 1,
    "ap": 4,
    "ap_plus": True,
    "range": 4,
    "to_hit": 4,
}
TANK = {
    "name": "tank",
    "type": "afv",
    "ap": 3,
    "he": 2,
    "range": 6,
    "to_hit": 4,
    "armor": 2,
    "save": 5,
}


def fire_scenario() -> dict:
    return {
        "ruleset": "hex-platoon",
        "name": "AT platoon fires at a tank in a wood",
        "hexes": [
            {"name": "ridge", "units": [AT]},
            {"name": "wood", "terrain": "wood", "defence": 1, "units": [TANK]},
        ],
        "steps": [{"kind": "fire", "firer": "AT platoon", "target": "tank"}],
    }


def artillery_scenario() -> dict:
    rif = {"type": "infantry", "he": 3, "range": 4, "to_hit": 5, "assault": 3}
    hexes = [
        {
            "name": "village",
            "terrain": "city",
            "defence": 2,
            "units": [
                {"name": "1st", **rif},
                {"name": "2nd", **rif},
                {"name": "panzer", **{k: v for k, v in TANK.items() if k != "name"}},
                {"name": "HQ", "type": "hq", "leadership": 1},
            ],
        },
        {"name": "n1", "terrain": "wood", "defence": 1, "units": [{"name": "3rd", **rif}]},
        {"name": "n2", "units": [{"name": "4th", **rif}, {"name": "mg", **rif}]},
        {"name": "n3", "units": [{"name": "truck", "type": "recon", "he": 1}]},
        {
            "name": "n4",
            "terrain": "rough",
            "defence": 1,
            "improved_position": True,
            "units": [{"name": "5th", **rif}],
        },
        {"name": "n5"},
        {"name": "n6"},
    ]
    return {
        "ruleset": "hex-platoon",
        "name": "artillery mission over 7 hexes",
        "hexes": hexes,
        "steps": [
            {
                "kind": "artillery",
                "hexes": ["village", "n1", "n2", "n3", "n4", "n5", "n6"],
                "firepower": 6,
                "to_hit": 4,
            }
        ],
    }


def numpy_fire(trials: int, seed: int) -> np.ndarray:
    """The fire job vectorised: histogram of the tank's final state (0..3)."""
    rng = np.random.default_rng(seed)
    out = np.zeros(4, dtype=np.int64)
    batch = 65536
    done = 0
    while done < trials:
        b = min(batch, trials - done)
        fire = rng.integers(1, 7, size=(b, 5), dtype=np.int8)  # 4 dice + 1 augmentation
        succ = (fire >= 4).sum(axis=1)
        hits = np.minimum(succ, 4)
        saves = (rng.integers(1, 7, size=(b, 4), dtype=np.int8) >= 5).sum(axis=1)
        unsaved = np.maximum(hits - saves, 0)
        out += np.bincount(np.minimum(unsaved, 3), minlength=4)
        done += b
    return out


def run(quick: bool = False, smoke: bool = False) -> list[dict]:
    """One row per job (benchmarks/run_all.py interface)."""
    import naive_hex_platoon as N

    threads = numba.get_num_threads()
    rows = []
    n_fire = 2_048 if smoke else 2_000_000 if quick else 20_000_000
    n_naive = 20 if smoke else 20_000 if quick else 100_000
    n_np = 1_000 if smoke else 1_000_000 if quick else 5_000_000
    repeat = 1 if quick or smoke else 3
    warm = 1_000 if smoke else 65536
    sc = from_dict(fire_scenario())
    engine.simulate(sc, trials=warm, seed=1)  # warm-up: compile or cache load
    wall, cpu, out = best_of_both(lambda: engine.simulate(sc, trials=n_fire, seed=2), repeat)
    wall_np, cpu_np, hist = best_of_both(lambda: numpy_fire(n_np, 3), repeat)
    wall_py, cpu_py, _ = best_of_both(lambda: N.simulate(sc, n_naive, 4), 1)
    # the three implementations agree on P(eliminated) (a sanity check, not a test)
    p_k = out.prob("tank_state", 3)
    p_np = hist[3] / hist.sum()
    se = np.sqrt(p_k * (1 - p_k) / n_np)
    note = (
        f"wall {fmt_rate(n_fire / wall)}/s; per CPU-second {fmt_rate(n_fire / cpu)}; "
        f"numpy {fmt_rate(n_np / wall_np)}/s wall; P(eliminated) oddslab {p_k:.4f} numpy {p_np:.4f} "
        f"({'agree' if abs(p_k - p_np) < 5 * se else 'DISAGREE'})"
    )
    rows.append(
        {
            "ruleset": "hex-platoon",
            "job": "ranged fire with saves and state change",
            "unit": "trials",
            "oddslab_per_s": n_fire / wall,
            "oddslab_per_cpu_s": n_fire / cpu,
            "python_per_s": n_naive / cpu_py,
            "numpy_per_s": n_np / cpu_np,
            "dice_per_trial": 5 + 4.0,
            "threads": threads,
            "note": note,
        }
    )
    sc2 = from_dict(artillery_scenario())
    engine.simulate(sc2, trials=warm, seed=1)
    n_art = 2_048 if smoke else 1_000_000 if quick else 5_000_000
    wall, cpu, _ = best_of_both(lambda: engine.simulate(sc2, trials=n_art, seed=5), repeat)
    wall_py, cpu_py, _ = best_of_both(lambda: N.simulate(sc2, n_naive // 10, 6), 1)
    rows.append(
        {
            "ruleset": "hex-platoon",
            "job": "artillery mission over 7 hexes",
            "unit": "trials",
            "oddslab_per_s": n_art / wall,
            "oddslab_per_cpu_s": n_art / cpu,
            "python_per_s": (n_naive // 10) / cpu_py,
            "numpy_per_s": None,
            "dice_per_trial": None,
            "threads": threads,
            "note": f"wall {fmt_rate(n_art / wall)}/s; per CPU-second {fmt_rate(n_art / cpu)}",
        }
    )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="each row on a tiny size (the tests' run)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rows = run(args.quick, args.smoke)
    heads = [
        "job",
        "oddslab /s (wall)",
        "oddslab /CPU-s",
        "numpy /CPU-s",
        "Python /CPU-s",
        "threads",
    ]
    table = [
        [
            r["job"],
            fmt_rate(r["oddslab_per_s"]),
            fmt_rate(r["oddslab_per_cpu_s"]),
            fmt_rate(r["numpy_per_s"]) if r["numpy_per_s"] else "–",
            fmt_rate(r["python_per_s"]) if r["python_per_s"] else "–",
            r["threads"],
        ]
        for r in rows
    ]
    print(markdown_table(heads, table))
    for r in rows:
        print(f"- {r['job']}: {r['note']}")
    print(f"(total {time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
