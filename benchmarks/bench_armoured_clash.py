"""Benchmark: a full Armoured Clash ranged attack with the suppression cascade.

Times, in one process and after a warm-up call (compiled code loaded from the numba cache
when warm), (1) the full scenario through :func:`oddslab.engine.simulate`, (2) the attack
pool alone through the numba kernel and (3) a numpy-vectorised attack pool (PCG64, batches
of 65,536 trials), and prints a table of trials/s and the ratios.

Run: ``python benchmarks/bench_armoured_clash.py [trials | --quick]`` (``--quick``: a smoke run).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from oddslab.engine import Job, run_job, simulate
from oddslab.outcome import Stat
from oddslab.rulesets.armoured_clash import (
    Armaments,
    ArmouredClashScenario,
    Attack,
    AttackDie,
    RangedAttack,
    Situation,
    Unit,
)
from oddslab.rulesets.armoured_clash import kernel as K

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


def rate(fn, trials: int) -> float:
    t = time.perf_counter()
    fn(trials)
    return trials / (time.perf_counter() - t)


def main(trials: int = 20_000_000, vec_min: int = 1_000_000) -> None:
    sc = scenario()
    die = AttackDie()
    pool_job = Job(
        "pool",
        K.run_pool_only,
        (N_DICE, 1, die.face_score(), die.explode_mask(), die.tier_table(), die.kinds()),
        (Stat("hits", 4 * N_DICE + 1),),
    )
    simulate(sc, trials=1000, seed=1)  # warm-up: compile or load from cache
    run_job(pool_job, 1000, 1)
    rng = np.random.default_rng(1)
    full = rate(lambda n: simulate(sc, trials=n, seed=1), trials)
    pool = rate(lambda n: run_job(pool_job, n, 1), trials)
    vec = rate(lambda n: numpy_pool(n, N_DICE, rng), max(trials // 10, vec_min))
    print(f"Armoured Clash benchmark ({N_DICE}-die ranged attack, suppression cascade)")
    print("| job | trials/s (M) | ratio vs numpy pool |")
    print("|---|---|---|")
    print(
        f"| full ranged attack + cascade (numba, simulate) | {full / 1e6:.2f} | {full / vec:.1f}x |"
    )
    print(f"| attack pool alone (numba kernel) | {pool / 1e6:.2f} | {pool / vec:.1f}x |")
    print(f"| attack pool alone (numpy vectorised) | {vec / 1e6:.2f} | 1.0x |")


if __name__ == "__main__":
    if "--quick" in sys.argv[1:]:
        main(1_000_000, vec_min=100_000)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000_000)
