"""One strong kernel-vs-naive comparison per ruleset: a 0.5 percentage-point error fails.

Every ruleset's cascade has a slow pure-Python reference (``tests/naive*.py``). The switch
tests and most reference comparisons run a few thousand naive trials: enough to see a dropped
branch, not a small error. Here one headline scenario per ruleset is run with enough naive
trials (chosen from the kernel's distribution, see ``N_NAIVE``) that moving 0.5 pp of
probability between two neighbouring outcomes of a headline statistic fails the comparison
(Vom Kriege's is not here: its reference's exact distribution, ``tests/exact_vom_kriege.py``,
now reaches every scenario, its ``assault`` included, so nothing is left to sample):

- ``assert_agree``: every statistic both report, whole distributions (two-sample chi-square,
  Bonferroni over the statistics, p > 1e-4);
- ``assert_power``: the same comparison, on these very runs, with 0.5 pp of the kernel's
  histogram moved from the most likely outcome to its more likely neighbour
  (``switches.planted_shift``), fails for each headline statistic. That is the planted error
  the comparison must catch, checked on every run.

The naive runs take minutes of CPU: they are kept on disk (``tests/naive_cache.py``, keyed by
the references' source, the scenario, the trial count and the seed), so a checkout computes
each once. ``python tests/test_naive_power.py`` prints, per case, the naive trials a 0.5 pp
error needs (with expected counts; pick ``N_NAIVE`` above it).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from naive_cache import cached_counts  # noqa: E402
from stats import P_MIN  # noqa: E402
from switches import (  # noqa: E402
    SHIFT_PP,
    assert_agree,
    assert_power,
    counts_of,
    homogeneity_p,
    planted_shift,
)

from oddslab import engine  # noqa: E402

N_KERNEL = 2_000_000
SEED = 2027
BLOCK = 20_000  # naive trials per block (each its own seed), so memory stays flat


def _merge(total: dict[str, np.ndarray], part: dict[str, np.ndarray]) -> None:
    for k, v in part.items():
        v = np.asarray(v, dtype=np.int64)
        t = total.get(k, np.zeros(0, dtype=np.int64))
        size = max(len(t), len(v))
        total[k] = np.pad(t, (0, size - len(t))) + np.pad(v, (0, size - len(v)))


def _blocks(block: Callable[[int, int], dict[str, np.ndarray]], n: int) -> dict[str, np.ndarray]:
    """``n`` naive trials as blocks of ``BLOCK``, block ``i`` seeded ``SEED * 1000 + i``."""
    total: dict[str, np.ndarray] = {}
    for i, start in enumerate(range(0, n, BLOCK)):
        _merge(total, block(SEED * 1000 + i, min(BLOCK, n - start)))
    return total


def _rows(rows: list[dict[str, int]]) -> dict[str, np.ndarray]:
    return {k: counts_of([r[k] for r in rows]) for k in rows[0]}


# -- the scenarios (each taken from the ruleset's own tests) and their references ---------------


def _generic():
    import test_generic

    return test_generic.CONFIGS["lethal-twin-fnp-d3"]


def _generic_naive(sc, seed: int, n: int):
    from naive import generic_trial

    rng = random.Random(seed)
    return _rows([generic_trial(rng, sc) for _ in range(n)])


def _hex_platoon():
    from hex_platoon_cases import TANK, scenario, unit

    from oddslab.scenario import from_dict

    at = {"name": "AT platoon", "type": "infantry", "he": 1, "ap": 4, "ap_plus": True,
          "range": 3, "to_hit": 4}  # fmt: skip
    hexes = [{"name": "ridge", "units": [at]},
             {"name": "wood", "terrain": "wood", "defence": 1, "units": [unit("tank", **TANK)]}]  # fmt: skip
    return from_dict(scenario(hexes, [{"kind": "fire", "firer": "AT platoon", "target": "tank"}]))


def _hex_platoon_naive(sc, seed: int, n: int):
    import naive_hex_platoon

    return naive_hex_platoon.simulate(sc, n, seed)


def _armoured_clash():
    from test_armoured_clash_reference import close_quarters

    return close_quarters()


def _armoured_clash_naive(sc, seed: int, n: int):
    from naive_armoured_clash import run

    return _rows(run(sc, n, seed))


def _formation_actions():
    from oddslab.rulesets.formation_actions import (
        Army,
        Formation,
        FormationActionsScenario,
        OutsideShock,
        Rules,
    )

    blue = (Formation("a", command=4, units=3), Formation("b", command=3, units=2, suppressed=1),
            Formation("c", command=5, units=3))  # fmt: skip
    red = (Formation("x", command=4, units=2, outside_shock=OutsideShock(table=(0.6, 0.4))),
           Formation("y", command=3, units=3))  # fmt: skip
    armies = (
        Army("blue", blue, strategy=3, retain="if-chance", retain_chance=0.5, order="best-first"),
        Army("red", red, strategy=3, retain="always", order="worst-first", choose="second"),
    )
    return FormationActionsScenario(armies, 2, Rules())


def _formation_actions_naive(sc, seed: int, n: int):
    import naive_formation_actions

    return {k: counts_of(v) for k, v in naive_formation_actions.simulate(sc, n, seed).items()}


def _assault_phase():
    import naive_assault_phase as naive
    import test_assault_phase

    return test_assault_phase._from_naive(*naive.benchmark_sides())


def _assault_phase_naive(sc, seed: int, n: int):
    import naive_assault_phase as naive

    return _rows(naive.run(*naive.benchmark_sides(), n, seed))


@dataclass(frozen=True)
class Case:
    build: Callable[[], object]
    naive: Callable[[object, int, int], dict[str, np.ndarray]]
    headline: tuple[str, ...]  # statistics a 0.5 pp error in must fail
    n_naive: int


CASES = {
    "generic": Case(_generic, _generic_naive, ("models_slain", "destroyed"), 110_000),
    "hex-platoon": Case(_hex_platoon, _hex_platoon_naive, ("tank_state",), 200_000),
    "armoured-clash": Case(
        _armoured_clash, _armoured_clash_naive, ("defender_models_lost",), 175_000
    ),
    "formation-actions": Case(
        _formation_actions, _formation_actions_naive, ("blue_broken_after_turn_2",), 140_000
    ),
    "assault-phase": Case(
        _assault_phase,
        _assault_phase_naive,
        ("attacker_won_assault", "defender_models_lost"),
        250_000,
    ),
}


def _kernel(sc) -> dict[str, np.ndarray]:
    out = engine.simulate(sc, trials=N_KERNEL, seed=SEED)
    return {s.name: np.asarray(out.counts[s.name]) for s in out.stats}


def _naive(name: str, case: Case, sc) -> dict[str, np.ndarray]:
    key = ("test_naive_power", name, repr(sc), case.n_naive, SEED, BLOCK)
    return cached_counts(key, lambda: _blocks(lambda s, n: case.naive(sc, s, n), case.n_naive))


@pytest.mark.statistical
@pytest.mark.parametrize("name", list(CASES))
def test_kernel_matches_naive_reference_to_half_a_point(name):
    case = CASES[name]
    sc = case.build()
    kernel = _kernel(sc)
    naive = _naive(name, case, sc)
    assert set(case.headline) <= set(kernel) & set(naive), sorted(set(kernel) & set(naive))
    assert_agree(kernel, naive, name)
    headline = {k: kernel[k] for k in case.headline}
    assert_agree(headline, naive, f"{name} (headline)")
    assert_power(headline, naive, f"{name} (headline)")


def test_the_power_check_fails_a_weak_comparison():
    """``assert_power`` on a distribution like hex platoon's ``tank_state``: 20,000 naive trials
    (the old references' count) cannot see a 0.5 pp error and fail the check; 200,000 can.
    And the planted error itself: ``assert_agree`` fails on a histogram with 0.5 pp moved."""
    rng = np.random.default_rng(5)
    p = np.array([0.32, 0.26, 0.24, 0.18])
    kernel = {"s": rng.multinomial(N_KERNEL, p)}
    weak = {"s": rng.multinomial(20_000, p)}
    strong = {"s": rng.multinomial(200_000, p)}
    assert_agree(kernel, weak, "weak")
    with pytest.raises(AssertionError, match="0.5 pp error"):
        assert_power(kernel, weak, "weak")
    assert_agree(kernel, strong, "strong")
    assert_power(kernel, strong, "strong")
    with pytest.raises(AssertionError, match="differ on s"):
        assert_agree({"s": planted_shift(kernel["s"])}, strong, "planted")
    moved = planted_shift(kernel["s"]) - np.append(kernel["s"], 0)
    assert moved.tolist() == [-N_KERNEL // 200, N_KERNEL // 200, 0, 0, 0]


def needed(name: str, pp: float = SHIFT_PP) -> int | None:
    """Naive trials a ``pp`` error in each headline statistic needs (expected counts, with a
    factor 10 of margin on the p-value), from a kernel run."""
    case = CASES[name]
    kernel = _kernel(case.build())
    k = len(case.headline)
    for n in range(25_000, 1_000_001, 25_000):
        ok = True
        for stat in case.headline:
            c = kernel[stat]
            p = homogeneity_p(planted_shift(c, pp), c / c.sum() * n) * k
            ok &= p < P_MIN / 10
        if ok:
            return n
    return None


if __name__ == "__main__":
    import time

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.* imports

    for name, case in CASES.items():
        sc = case.build()
        t0 = time.process_time()
        case.naive(sc, 1, 500)
        per = (time.process_time() - t0) / 500
        n = needed(name)
        cost = "?" if n is None else f"{n * per:.0f}"
        print(f"{name}: {n} naive trials, {1e6 * per:.0f} us each: {cost} CPU-s", flush=True)
