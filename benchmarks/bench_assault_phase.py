"""Benchmark: 10 Space Marines charge 20 Ork Boyz, one turn, with morale and sweeping advance.

Prints trials per second (wall clock and per CPU-second) after a warm-up call, so compile
time is excluded (the warm-up time shows whether the kernel came from numba's cache).

Run: ``PYTHONPATH=. python benchmarks/bench_assault_phase.py [--trials N] [--repeat R] [--quick]``
"""

from __future__ import annotations

import argparse
import os
import time

import numba

from oddslab import engine
from oddslab.rulesets.assault_phase import AssaultScenario, ModelGroup, Rules, Side, Unit


def scenario() -> AssaultScenario:
    """10 marines (sergeant with power fist) vs 20 boyz (Nob with power claw), open ground."""
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
        Side("Space Marines", (marines,)),
        Side("Orks", (boyz,)),
        Rules(max_turns=1),
        name="10 marines charge 20 boyz (1 turn, morale, sweep)",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=8_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="smoke test: 262,144 trials, 1 run")
    args = ap.parse_args()
    if args.quick:
        args.trials, args.repeat = 4 * 65536, 1
    sc = scenario()
    t0 = time.perf_counter()
    engine.simulate(sc, trials=65536, seed=1)  # warm-up: compile or load from cache
    warm = time.perf_counter() - t0
    best = 0.0
    best_cpu = 0.0
    for r in range(args.repeat):
        t0 = time.perf_counter()
        c0 = time.process_time()
        out = engine.simulate(sc, trials=args.trials, seed=100 + r)
        best = max(best, args.trials / (time.perf_counter() - t0))
        # CPU seconds of all threads: trials per CPU-second is what one free core delivers,
        # unaffected by other processes competing for the cores
        best_cpu = max(best_cpu, args.trials / (time.process_time() - c0))
    print(f"scenario: {sc.name}")
    print(
        f"threads: {numba.get_num_threads()} (NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'unset')})"
    )
    print(f"warm-up call: {warm:.2f} s (compile, or cache load if < ~2 s)")
    print(f"trials per run: {args.trials:,}; best of {args.repeat}")
    threads = numba.get_num_threads()
    print(f"throughput (wall clock): {best / 1e6:.2f} M trials/s")
    print(f"throughput per CPU-second: {best_cpu / 1e6:.2f} M trials/s per core")
    print(f"load average during the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"(on {threads} idle cores expect about {threads * best_cpu / 1e6:.2f} M trials/s)")
    print()
    print("| job | trials | M trials/s (wall) | M trials/s per CPU-second |")
    print("|---|---|---|---|")
    print(f"| {sc.name} | {args.trials:,} | {best / 1e6:.2f} | {best_cpu / 1e6:.2f} |")
    print()
    print(
        f"P(attacker wins) = {out.prob('attacker_wins', 1):.4f}, "
        f"P(defender swept) = {out.prob('defender_swept', 1):.4f}"
    )


if __name__ == "__main__":
    main()
