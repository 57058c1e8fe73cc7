"""Benchmark: the generic d6 attack job as pure Python, numpy-vectorised and oddslab.

The job (issue 2, "Speed"): 20 attacks, hit on 3+ re-rolling 1s, sustained hits 1 (a
natural 6 scores one extra hit), wound on 4+, save on 5+; the result is the histogram of
unsaved wounds. All three implementations run in this one process; each is timed ``--repeat``
times and the best time is kept (the machine is shared, so the best is the least disturbed).
oddslab is timed after a warm-up call, so compile/cache-load time is excluded.

Also measured: the exact engine (``GenericScenario.exact_pmfs``) and icepool for the same
distribution, a warm-cache CLI run of an example (wall time of the second of two runs), and
a check that the three implementations agree with each other and with the exact mean.

Run: ``python benchmarks/bench_generic.py [--quick] [--repeat R] [--markdown PATH]``

``run(quick)`` (the interface ``benchmarks/run_all.py`` imports) returns one row per job:
job 1 above, and job 2, a full allocation job (two profiles, devastating wounds under the
current rule, dice damage, feel-no-pain, 2-wound models) against the slow pure-Python reference
``tests/naive.py: generic_trial`` (no numpy version: per-trial allocation does not vectorise);
and job 3, the mixed-unit kernel (issue 28: a 10-model bodyguard unit with an attached leader,
each wound allocated to a model before its save) against ``tests/naive_generic_mixed.py``.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import best_of_both, fmt_rate, markdown_table, oddslab_command, timed_run  # noqa: E402

ATTACKS = 20
SKILL = 3
WOUND = 4
SAVE = 5
MAX_UNSAVED = 2 * ATTACKS  # every attack a critical: two hits, all wound, none saved


def scenario():
    """The benchmark job as an oddslab scenario (1000 one-wound models: nothing runs out)."""
    from oddslab import GenericScenario, Target, Weapon

    weapon = Weapon(attacks=ATTACKS, skill=SKILL, reroll_hits="ones", sustained_hits=1, wound=WOUND)
    return GenericScenario((weapon,), Target(models=1000, save=SAVE), name="bench job 1")


# -- (a) pure Python ---------------------------------------------------------------------------


def pure_python(trials: int, seed: int) -> np.ndarray:
    """Histogram of unsaved wounds by a plain loop over dice (``random.random``)."""
    rnd = random.Random(seed).random
    hist = [0] * (MAX_UNSAVED + 1)
    for _ in range(trials):
        hits = 0
        for _ in range(ATTACKS):
            d = int(rnd() * 6) + 1
            if d == 1:  # re-roll 1s
                d = int(rnd() * 6) + 1
            if d == 6:  # sustained hits 1: a natural 6 scores one extra hit
                hits += 2
            elif d >= SKILL:
                hits += 1
        unsaved = 0
        for _ in range(hits):
            if int(rnd() * 6) + 1 >= WOUND and int(rnd() * 6) + 1 < SAVE:
                unsaved += 1
        hist[unsaved] += 1
    return np.array(hist, dtype=np.int64)


# -- (b) numpy, vectorised over trials, dice-level ------------------------------------------------

BATCH = 1 << 16


def numpy_vectorised(trials: int, seed: int) -> np.ndarray:
    """Histogram of unsaved wounds, dice-level numpy in batches of 65,536 trials (PCG64).

    Hit dice and their re-roll dice are rolled as (batch, 20) arrays; the variable number
    of wound and save rolls per trial is rolled as one flat array and summed back per trial
    with ``np.add.reduceat`` (faster here than rolling the 40-die maximum and masking).
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    hist = np.zeros(MAX_UNSAVED + 1, dtype=np.int64)
    done = 0
    while done < trials:
        b = min(BATCH, trials - done)
        first = rng.integers(1, 7, size=(b, ATTACKS), dtype=np.int8)
        again = rng.integers(1, 7, size=(b, ATTACKS), dtype=np.int8)
        d = np.where(first == 1, again, first)
        hits = (d >= SKILL).sum(axis=1) + (d == 6).sum(axis=1)
        n = int(hits.sum())
        wounded = rng.integers(1, 7, size=n, dtype=np.int8) >= WOUND
        # each wound roll carries its own save roll; only wounded ones count
        failed = rng.integers(1, 7, size=n, dtype=np.int8) < SAVE
        unsaved_die = (wounded & failed).astype(np.int64)
        starts = np.concatenate(([0], np.cumsum(hits)[:-1]))
        unsaved = np.add.reduceat(unsaved_die, starts) if n else np.zeros(b, np.int64)
        unsaved[hits == 0] = 0  # reduceat returns the element itself for empty slices
        hist += np.bincount(unsaved, minlength=MAX_UNSAVED + 1)[: MAX_UNSAVED + 1]
        done += b
    return hist


# -- run(quick): rows for benchmarks/run_all.py ---------------------------------------------------


def allocation_scenario():
    """Job 2: a full cascade with allocation (every option on the slow path in use)."""
    from oddslab import GenericScenario, Target, Weapon

    gun = Weapon(name="plasma", models=3, attacks=2, skill=3, strength=7, ap=2, damage="D3+1",
                 devastating_wounds=True)  # fmt: skip
    rifle = Weapon(name="rifle", models=5, attacks=2, skill=3, strength=4, ap=1)
    target = Target(models=10, wounds=2, toughness=4, save=3, feel_no_pain=6)
    return GenericScenario((gun, rifle), target, name="bench job 2")


def mixed_scenario():
    """Job 3: a 10-model bodyguard unit with an attached leader (the mixed-unit kernel)."""
    from oddslab import GenericScenario, Target, Weapon
    from oddslab.rulesets.generic import ModelGroup

    rifle = Weapon(name="rifle", models=10, attacks=2, skill=3, strength=4, ap=1)
    target = Target(toughness=4, save=3, groups=(
        ModelGroup("bodyguard", models=10, wounds=2),
        ModelGroup("leader", wounds=4, invulnerable=4, character=True),
    ))  # fmt: skip
    return GenericScenario((rifle,), target, name="bench job 3")


def _job2_dice(sc) -> float:
    """Expected dice per trial of job 2 from the exact engine (hit, wound, save, damage, FNP)."""
    ex = sc.exact_pmfs()

    def mean(k: str) -> float:
        return float(np.dot(np.arange(len(ex[k])), ex[k]))

    per_dmg = sum(w.damage.n for w in sc.weapons) / len(sc.weapons)
    return (
        mean("attacks") + mean("hits") + mean("wounds") + mean("unsaved") * per_dmg + mean("damage")
    )


def run(quick: bool = False, smoke: bool = False) -> list[dict]:
    """Rows of the issue-10 benchmark table (rates measured in this process, oddslab warm)."""
    import numba

    from oddslab import simulate

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from naive import generic_trial

    repeat = 1 if quick or smoke else 3
    n_py, n_np, n_ox = (2_000, 131_072, 2_000_000) if quick else (40_000, 2_000_000, 40_000_000)
    if smoke:
        n_py, n_np, n_ox = 20, 1_000, 2_048
    warm = 1_000 if smoke else 70_000
    threads = numba.get_num_threads()
    rows = []
    sc = scenario()
    per_trial, _ = dice_per_trial(sc)
    simulate(sc, trials=warm, seed=1)
    t_py, c_py, _ = best_of_both(lambda: pure_python(n_py, 11), repeat)
    t_np, c_np, _ = best_of_both(lambda: numpy_vectorised(n_np, 12), repeat)
    t_ox, c_ox, _ = best_of_both(lambda: simulate(sc, trials=n_ox, seed=13), repeat)
    rows.append({
        "ruleset": "generic",
        "job": f"{ATTACKS} attacks, hit {SKILL}+ re-roll 1s, sustained hits 1, wound {WOUND}+, "
               f"save {SAVE}+ (unsaved wounds)",
        "unit": "trials",
        "oddslab_per_s": n_ox / t_ox,
        "python_per_s": n_py / t_py,
        "numpy_per_s": n_np / t_np,
        "dice_per_trial": per_trial,
        "threads": threads,
        "note": f"per CPU-s: oddslab {fmt_rate(n_ox / c_ox)}, numpy {fmt_rate(n_np / c_np)}, "
                f"Python {fmt_rate(n_py / c_py)} (oddslab ÷ numpy {c_np / n_np * n_ox / c_ox:.1f}×, "
                f"÷ Python {c_py / n_py * n_ox / c_ox:.0f}× per CPU-s)",
    })  # fmt: skip
    sc2 = allocation_scenario()
    simulate(sc2, trials=warm, seed=1)
    n_naive, n2 = (5, 2_048) if smoke else (300, 500_000) if quick else (5_000, 10_000_000)

    def naive_run() -> None:
        rng = random.Random(5)
        for _ in range(n_naive):
            generic_trial(rng, sc2)

    t_nv, c_nv, _ = best_of_both(naive_run, repeat)
    t_o2, c_o2, _ = best_of_both(lambda: simulate(sc2, trials=n2, seed=13), repeat)
    rows.append({
        "ruleset": "generic",
        "job": "plasma (devastating, D3+1) + rifles vs 10 two-wound models, FNP 6+ (allocation)",
        "unit": "trials",
        "oddslab_per_s": n2 / t_o2,
        "python_per_s": n_naive / t_nv,
        "numpy_per_s": None,
        "dice_per_trial": _job2_dice(sc2),
        "threads": threads,
        "note": f"Python = tests/naive.py generic_trial; per CPU-s: oddslab "
                f"{fmt_rate(n2 / c_o2)}, Python {fmt_rate(n_naive / c_nv)}",
    })  # fmt: skip
    from naive_generic_mixed import mixed_trial

    sc3 = mixed_scenario()
    simulate(sc3, trials=warm, seed=1)

    def naive_mixed() -> None:
        rng = random.Random(5)
        for _ in range(n_naive):
            mixed_trial(rng, sc3)

    t_nm, c_nm, _ = best_of_both(naive_mixed, repeat)
    t_o3, c_o3, _ = best_of_both(lambda: simulate(sc3, trials=n2, seed=13), repeat)
    rows.append({
        "ruleset": "generic",
        "job": "20 rifle shots vs a 10-model bodyguard unit + attached leader (mixed-unit kernel)",
        "unit": "trials",
        "oddslab_per_s": n2 / t_o3,
        "python_per_s": n_naive / t_nm,
        "numpy_per_s": None,
        "dice_per_trial": None,
        "threads": threads,
        "note": f"target ≥ 10 M trials/s on 2 cores; Python = tests/naive_generic_mixed.py; "
                f"per CPU-s: oddslab {fmt_rate(n2 / c_o3)}, Python {fmt_rate(n_naive / c_nm)}",
    })  # fmt: skip
    return rows


def rows_table(rows: list[dict]) -> str:
    """The ``run()`` rows as a markdown table."""

    def rate(x):
        return "—" if x is None else fmt_rate(x)

    return markdown_table(
        ["job", "oddslab/s", "Python/s", "numpy/s", "dice/trial", "threads", "note"],
        [[r["job"], rate(r["oddslab_per_s"]), rate(r["python_per_s"]), rate(r["numpy_per_s"]),
          "—" if r["dice_per_trial"] is None else f"{r['dice_per_trial']:.3g}", r["threads"],
          r["note"]] for r in rows],
    )  # fmt: skip


# -- helpers ---------------------------------------------------------------------------------------


def dice_per_trial(sc) -> tuple[float, str]:
    """Expected dice a person would roll per trial, from the rules (not hard-coded).

    attacks × (1 + P(hit roll re-rolled)) hit dice, plus one wound die per hit (E[hits]) and
    one save die per wound (E[wounds]); the expectations come from the exact engine.
    """
    from oddslab.rulesets.generic import layout as K

    faces = sc.arrays()["faces"][0]
    p_reroll = float(faces[K.F_HIT_REROLL][1:].mean())
    ex = sc.exact_pmfs()
    e_hits = float(np.dot(np.arange(len(ex["hits"])), ex["hits"]))
    e_wounds = float(np.dot(np.arange(len(ex["wounds"])), ex["wounds"]))
    total = ATTACKS * (1 + p_reroll) + e_hits + e_wounds
    how = (
        f"{ATTACKS} × (1 + {p_reroll:.4g}) hit dice + E[hits] {e_hits:.4g} wound dice + "
        f"E[wounds] {e_wounds:.4g} save dice = {total:.4g}"
    )
    return total, how


def mean_se(hist: np.ndarray) -> tuple[float, float, int]:
    n = int(hist.sum())
    v = np.arange(len(hist))
    mean = float((v * hist).sum() / n)
    var = float(((v - mean) ** 2 * hist).sum() / (n - 1))
    return mean, math.sqrt(var / n), n


def icepool_unsaved():
    """The unsaved-wound distribution built with icepool (fresh objects each call)."""
    import icepool

    hit = icepool.d6.reroll([1], depth=1).map(lambda d: 0 if d < SKILL else (2 if d == 6 else 1))
    per_hit = (icepool.d6 >= WOUND).map(lambda w: (icepool.d6 < SAVE) if w else 0)
    return ATTACKS @ (hit @ per_hit)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few-second smoke run")
    ap.add_argument("--smoke", action="store_true", help="only the rows, each on a tiny size")
    ap.add_argument("--repeat", type=int, default=None, help="timed runs per method (best kept)")
    ap.add_argument("--trials", type=int, default=None, help="oddslab trials per timed run")
    ap.add_argument("--markdown", type=Path, default=None, help="also write the tables here")
    ap.add_argument("--no-cli", action="store_true", help="skip the CLI wall-time runs")
    args = ap.parse_args(argv)
    if args.smoke:  # the tests' run: the rows' shape, no figure
        print(rows_table(run(smoke=True)))
        return 0

    if args.quick:
        n_py, n_np, n_ox, repeat = 2_000, 131_072, 2_000_000, args.repeat or 1
    else:
        n_py, n_np, n_ox, repeat = 40_000, 2_000_000, 40_000_000, args.repeat or 3
    if args.trials:
        n_ox = args.trials

    t_import = time.perf_counter()
    import numba

    from oddslab import simulate

    t_import = time.perf_counter() - t_import
    sc = scenario()
    per_trial, how = dice_per_trial(sc)

    t_warm = time.perf_counter()
    simulate(sc, trials=70_000, seed=1)  # warm-up: load (or compile) the kernel
    t_warm = time.perf_counter() - t_warm

    t_py, c_py, h_py = best_of_both(lambda: pure_python(n_py, 11), repeat)
    t_np, c_np, h_np = best_of_both(lambda: numpy_vectorised(n_np, 12), repeat)
    t_ox, c_ox, out = best_of_both(lambda: simulate(sc, trials=n_ox, seed=13), repeat)
    h_ox = out.counts["unsaved"]
    threads = numba.get_num_threads()

    rate = {"py": n_py / t_py, "np": n_np / t_np, "ox": n_ox / t_ox}
    cpu = {"py": n_py / c_py, "np": n_np / c_np, "ox": n_ox / c_ox}  # trials per CPU second
    rows = [
        ["pure Python loop", n_py, "py", "1", "", ""],
        ["numpy vectorised (PCG64, 65k-trial batches)", n_np, "np", "1", "", ""],
        ["oddslab `simulate`", n_ox, "ox", str(threads),
         f"{rate['ox'] / rate['py']:.0f}×", f"{rate['ox'] / rate['np']:.1f}×"],
    ]  # fmt: skip
    table = markdown_table(
        ["implementation", "trials", "trials/s", "dice/s", "threads",
         "oddslab ÷ pure Python", "oddslab ÷ numpy"],
        [[r[0], f"{r[1]:,}", fmt_rate(rate[r[2]]), fmt_rate(rate[r[2]] * per_trial), *r[3:]]
         for r in rows],
    )  # fmt: skip
    cpu_table = markdown_table(
        ["implementation", "trials per CPU-s", "dice per CPU-s", "oddslab ÷ this, per CPU-s"],
        [[r[0], fmt_rate(cpu[r[2]]), fmt_rate(cpu[r[2]] * per_trial),
          f"{cpu['ox'] / cpu[r[2]]:.1f}×"] for r in rows[:2]]
        + [[rows[2][0], fmt_rate(cpu["ox"]), fmt_rate(cpu["ox"] * per_trial), ""]],
    )  # fmt: skip
    load = os.getloadavg()[0]

    # -- agreement: every mean within 4 standard errors of the exact mean and of each other
    exact = sc.exact_pmfs()["unsaved"]
    exact_mean = float(np.dot(np.arange(len(exact)), exact))
    checks = []
    ok = True
    stats = {"pure Python": mean_se(h_py), "numpy": mean_se(h_np), "oddslab": mean_se(h_ox)}
    for name, (m, se, n) in stats.items():
        z = (m - exact_mean) / se
        ok &= abs(z) < 4
        checks.append([name, f"{n:,}", f"{m:.5f}", f"{se:.5f}", f"{z:+.2f}"])
    names = list(stats)
    for i in range(3):
        for j in range(i + 1, 3):
            (m1, s1, _), (m2, s2, _) = stats[names[i]], stats[names[j]]
            ok &= abs(m1 - m2) < 4 * math.hypot(s1, s2)
    check_table = markdown_table(
        ["implementation", "trials", "mean unsaved", "SE", "z vs exact"], checks
    )

    # -- exact engine vs icepool for the same distribution
    n_ex = 5 if args.quick else 30
    sc.exact_pmfs()
    t0 = time.perf_counter()
    for _ in range(n_ex):
        sc.exact_pmfs()
    t_exact = (time.perf_counter() - t0) / n_ex
    t0 = time.perf_counter()
    import icepool  # noqa: F401 - timed separately from building the distribution

    t_ice_import = time.perf_counter() - t0
    t0 = time.perf_counter()
    die = icepool_unsaved()
    ice_pmf = np.array([float(die.probability(k)) for k in range(len(exact))])
    t_ice_first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(n_ex):
        die = icepool_unsaved()
        die.probability(0)
    t_ice = (time.perf_counter() - t0) / n_ex
    ice_diff = float(np.abs(ice_pmf - exact).max())

    # -- warm-cache CLI wall time
    cli_line = "CLI: skipped (--no-cli)"
    cli_wall = None
    if not args.no_cli:
        cmd = [*oddslab_command(), "simulate", "examples/generic-intercessors-vs-guardsmen.toml"]
        if not args.quick:  # this process already warmed numba's cache; full runs make sure
            timed_run(cmd)
        cli_wall, res = timed_run(cmd)
        status = "exit 0" if res.returncode == 0 else f"exit {res.returncode}: {res.stderr[-300:]}"
        which = "one run after the in-process warm-up" if args.quick else "second of two runs"
        cli_line = (
            f"CLI, warm cache ({which}): `{' '.join(cmd[-3:])}` {cli_wall:.2f} s wall ({status})"
        )
        ok &= res.returncode == 0

    lines = [
        f"## Generic job 1: {ATTACKS} attacks, hit {SKILL}+ re-roll 1s, sustained hits 1, "
        f"wound {WOUND}+, save {SAVE}+",
        "",
        f"Dice a person would roll per trial: {per_trial:.4g} ({how}).",
        f"Best of {repeat} timed run(s) each; oddslab after a warm-up call "
        f"({t_warm:.2f} s, kernel loaded from numba's cache or compiled); "
        f"numba threads: {threads}.",
        "",
        table,
        "",
        f"Load-insensitive view (process CPU time, all threads summed; 1-min load average "
        f"{load:.1f} on {os.cpu_count()} CPUs at the end of the timed runs — on a busy machine "
        f"the wall-clock figures above understate oddslab, which needs both cores):",
        "",
        cpu_table,
        "",
        f"Exact engine (`sc.exact_pmfs()`, all static statistics, mean of {n_ex} calls): "
        f"{t_exact * 1e3:.2f} ms. icepool, unsaved-wound distribution only: "
        f"{t_ice * 1e3:.2f} ms per call (mean of {n_ex}; first call {t_ice_first * 1e3:.1f} ms, "
        f"import {t_ice_import * 1e3:.0f} ms); max |icepool − exact| = {ice_diff:.1e}.",
        "",
        cli_line,
        "",
        f"Agreement (exact mean unsaved {exact_mean:.5f}; every |z| < 4 and pairwise "
        f"differences < 4 combined SE): {'OK' if ok else 'FAILED'}",
        "",
        check_table,
        "",
    ]
    rows = run(quick=args.quick)
    lines += ["## `run()` rows (issue 10 table)", "", rows_table(rows), ""]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    return 0 if ok and ice_diff < 1e-12 else 1


if __name__ == "__main__":
    raise SystemExit(main())
