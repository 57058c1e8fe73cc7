"""Benchmark: Armoured Clash sequences and the attack pool, oddslab vs pure Python vs numpy.

Jobs (each timed in this process; oddslab after a warm-up call, so compile time is excluded):

1. ``ranged attack + suppression cascade``: 12 dice at a suppressed 10-model DEFENCE 2 unit
   with BREAK LIMIT 3 (tests, fall back, break); oddslab vs the pure-Python reference
   ``tests/naive_armoured_clash.py`` (the tests' slow oracle).
2. ``close quarters (example)``: ``examples/armoured-clash-close-quarters.toml``; oddslab vs
   the same reference.
3. ``attack pool alone (12 dice)``: the numba pool kernel vs a numpy-vectorised pool
   (PCG64, batches of 65,536 trials) vs a pure-Python pool.

``run(quick)`` returns one row per job (the issue 10.4 interface); ``python
benchmarks/bench_armoured_clash.py [--quick]`` prints them as a markdown table.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _common import ROOT, best_of_both, fmt_rate, markdown_table  # noqa: E402
from naive_armoured_clash import run as naive_run  # noqa: E402

from oddslab.engine import Job, run_job, simulate  # noqa: E402
from oddslab.outcome import Stat  # noqa: E402
from oddslab.rulesets.armoured_clash import (  # noqa: E402
    Armaments,
    ArmouredClashScenario,
    Attack,
    AttackDie,
    RangedAttack,
    Situation,
    Unit,
)
from oddslab.rulesets.armoured_clash import kernel as K  # noqa: E402
from oddslab.scenario import load  # noqa: E402

N_DICE = 12


def scenario() -> ArmouredClashScenario:
    """12 dice, neutral, at a 10-model DEFENCE 2 unit with BREAK LIMIT 3 (cascade possible)."""
    tanks = Unit(
        "tanks",
        side="attacker",
        type="armour",
        category="heavy",
        models=3,
        defence=4,
        damage_limit=3,
        discipline=7,
        armaments=Armaments(ranged=(RangedAttack("gun", dice=(4, 8, N_DICE)),)),
    )
    foot = Unit("foot", models=10, defence=2, discipline=6, break_limit=3, vp=5, suppressed=True)
    return ArmouredClashScenario(
        (tanks, foot), (Attack("tanks", "foot", situation=Situation(short_range=True)),)
    )


def numpy_pool(
    n_trials: int, n_dice: int, rng: np.random.Generator, batch: int = 65536
) -> np.ndarray:
    """Histogram of the neutral attack pool's hits, vectorised over trials with numpy."""
    score = np.array([2, 1, 1, 0, 0, 0])
    hist = np.zeros(4 * n_dice + 1, dtype=np.int64)
    done = 0
    while done < n_trials:
        b = min(batch, n_trials - done)
        f = rng.integers(0, 6, size=(b, n_dice))
        extra = rng.integers(0, 6, size=(b, n_dice))  # one potential added die per die
        f_extra = np.where(f == 0, extra, -1)  # only heroic strikes add a die
        # re-roll glancing strikes (face 3) once, original and added dice alike
        rr1 = rng.integers(0, 6, size=(b, n_dice))
        rr2 = rng.integers(0, 6, size=(b, n_dice))
        f = np.where(f == 3, rr1, f)
        f_extra = np.where(f_extra == 3, rr2, f_extra)
        hits = score[f].sum(axis=1) + np.where(f_extra >= 0, score[np.maximum(f_extra, 0)], 0).sum(
            axis=1
        )
        hist += np.bincount(hits, minlength=len(hist))
        done += b
    return hist


def python_pool(n_trials: int, n_dice: int, rng: random.Random) -> list[int]:
    """The same pool in plain Python (faces 0 heroic, 1-2 strike, 3 glancing, 4 miss, 5 blank)."""
    score = (2, 1, 1, 0, 0, 0)
    hist = [0] * (4 * n_dice + 1)
    for _ in range(n_trials):
        dice = [rng.randrange(6) for _ in range(n_dice)]
        dice += [rng.randrange(6) for f in dice if f == 0]
        hist[sum(score[rng.randrange(6) if f == 3 else f] for f in dice)] += 1
    return hist


def _row(job: str, ours: float, python: float | None, numpy: float | None, dice, note) -> dict:
    return {
        "ruleset": "armoured-clash",
        "job": job,
        "unit": "trials",
        "oddslab_per_s": ours,
        "python_per_s": python,
        "numpy_per_s": numpy,
        "dice_per_trial": dice,
        "threads": numba.get_num_threads(),
        "note": note,
    }


def run(quick: bool = False, smoke: bool = False) -> list[dict]:
    """Time every job; one row per job (rates in trials per wall second); ``smoke``: each row
    on a tiny size (rows of the right shape, no meaningful figure)."""
    quick = quick or smoke
    n_fast = 2_048 if smoke else 1_000_000 if quick else 20_000_000
    n_naive = 20 if smoke else 2_000 if quick else 50_000
    repeat = 1 if quick else 3
    rows = []
    # pool size: 12 dice + 2 added (1/6 heroic) + re-rolls of glancing strikes (1/6 of 14)
    pool_dice = N_DICE * (1 + 1 / 6) * (1 + 1 / 6)
    for job, sc in (
        ("ranged attack + suppression cascade", scenario()),
        ("close quarters (example)", load(ROOT / "examples/armoured-clash-close-quarters.toml")),
    ):
        simulate(sc, trials=1000, seed=1)  # warm-up: compile or load from the cache
        wall, cpu, _ = best_of_both(lambda sc=sc: simulate(sc, trials=n_fast, seed=1), repeat)
        pw, _, _ = best_of_both(lambda sc=sc: naive_run(sc, n_naive, 1), 1)
        rows.append(
            _row(
                job,
                n_fast / wall,
                n_naive / pw,
                None,
                pool_dice if job.startswith("ranged") else None,
                f"{fmt_rate(n_fast / cpu)} trials per CPU-second",
            )
        )
    die = AttackDie()
    pool_job = Job(
        "pool",
        K.run_pool_only,
        (N_DICE, 1, die.face_score(), die.explode_mask(), die.tier_table(), die.kinds()),
        (Stat("hits", 4 * N_DICE + 1),),
        records=True,
    )
    run_job(pool_job, 1000, 1)
    wall, cpu, _ = best_of_both(lambda: run_job(pool_job, n_fast, 1), repeat)
    rng = np.random.default_rng(1)
    n_vec = 1_000 if smoke else max(n_fast // 10, 100_000)
    vw, _, _ = best_of_both(lambda: numpy_pool(n_vec, N_DICE, rng), 1)
    py_rng = random.Random(1)
    n_py = n_naive * 4
    pyw, _, _ = best_of_both(lambda: python_pool(n_py, N_DICE, py_rng), 1)
    rows.append(
        _row(
            f"attack pool alone ({N_DICE} dice, neutral)",
            n_fast / wall,
            n_py / pyw,
            n_vec / vw,
            pool_dice,
            f"{fmt_rate(n_fast / cpu)} trials per CPU-second",
        )
    )
    return rows


def main(argv: list[str]) -> None:
    rows = run(quick="--quick" in argv, smoke="--smoke" in argv)

    def r(x):
        return "—" if x is None else fmt_rate(x)

    print("Armoured Clash benchmark (trials per second; ratios measured in this process)")
    print(
        markdown_table(
            ("job", "oddslab", "pure Python", "numpy", "× Python", "× numpy", "threads", "note"),
            [
                (
                    row["job"],
                    r(row["oddslab_per_s"]),
                    r(row["python_per_s"]),
                    r(row["numpy_per_s"]),
                    f"{row['oddslab_per_s'] / row['python_per_s']:.0f}×"
                    if row["python_per_s"]
                    else "—",
                    f"{row['oddslab_per_s'] / row['numpy_per_s']:.1f}×"
                    if row["numpy_per_s"]
                    else "—",
                    row["threads"],
                    row["note"],
                )
                for row in rows
            ],
        )
    )


if __name__ == "__main__":
    main(sys.argv[1:])
