"""Every generic rule switch, each value, against the exact engine and the naive reference.

One scenario per switch reaches the switch: two weapons into a multi-wound unit with saves,
cover, feel no pain and devastating wounds (the general kernel: dice damage, both feel-no-pains,
devastating wounds held back or spilling). For every value:

- the kernel's whole distribution of every statistic agrees with the exact engine's PMF at
  that value (chi-square, ``N_KERNEL`` trials), and a 0.5 pp error in any statistic would fail
  that comparison, checked on every run (tests/generic_power.py). The exact engine covers every
  statistic of every case here; its tables have their own oracles written from the rule text
  (tests/test_table_oracles.py);
- the kernel agrees with the naive reference (tests/naive.py, ``N_NAIVE`` trials: the slow
  reference of the cascade, which sees a dropped branch, not a small error) on the whole
  distribution of every statistic it reports (two-sample chi-square, naive run once per
  session) and, for a value other than the default, differs from the kernel's answer at the
  default (tests/switches.py).
"""

from __future__ import annotations

import random

import pytest
from generic_power import assert_exact
from naive import generic_trial
from naive_cache import cached_run
from switches import check_switch, kernel_once, per_trial_counts, switch_params

from oddslab import GenericScenario, Rules, Target, Weapon, simulate

N_KERNEL = 400_000
N_NAIVE = 3_000
SEED = 27


def chain(rules: dict) -> GenericScenario:
    """Bolters and a devastating heavy weapon into three 3-wound models in cover."""
    bolters = Weapon(
        "bolters", models=5, attacks=2, skill=3, strength=4, ap=1, damage="D3", hit_modifier=2
    )
    heavy = Weapon(
        "lascannon", models=2, attacks=1, skill=4, strength=9, ap=0, damage="D3+1",
        devastating_wounds=True, wound_modifier=-2, critical_wound=5,
    )  # fmt: skip
    target = Target(
        "terminators", models=3, wounds=3, toughness=5, save=3, cover=True,
        feel_no_pain=5, feel_no_pain_mortal=4, damage_reduction=1,
    )  # fmt: skip
    return GenericScenario((heavy, bolters), target, Rules(**rules))


def mortals(rules: dict) -> GenericScenario:
    """Mortal wounds (one per critical hit) and ordinary damage into models with both
    feel-no-pains: under the current rule devastating wounds are not mortal wounds, so the
    mortal wounds come from critical hits."""
    w = Weapon(
        "shredders", models=5, attacks=3, skill=3, strength=5, ap=1, damage=2,
        critical_hit=5, critical_hit_mortals=2,
    )  # fmt: skip
    target = Target(
        "guards", models=5, wounds=3, toughness=4, save=4, feel_no_pain=5, feel_no_pain_mortal=4
    )
    return GenericScenario((w,), target, Rules(**rules))


def six(rules: dict) -> GenericScenario:
    """Hits on 6+ at -1: only a natural six can hit."""
    w = Weapon("w", models=4, attacks=2, skill=6, hit_modifier=-1, strength=8, damage=1)
    return GenericScenario((w,), Target("t", models=10, toughness=4, save=7), Rules(**rules))


def one(rules: dict) -> GenericScenario:
    """Hits on 2+ at +1: a natural one would hit but for the rule; wounds likewise."""
    w = Weapon("w", models=4, attacks=2, skill=2, hit_modifier=1, strength=8, wound_modifier=1)
    return GenericScenario((w,), Target("t", models=10, toughness=4, save=7), Rules(**rules))


def _kernel(case):
    return lambda rules: simulate(case(rules), trials=N_KERNEL, seed=SEED).counts


def _naive_run(sc, trials, seed):
    rng = random.Random(seed)
    return per_trial_counts([generic_trial(rng, sc) for _ in range(trials)])


def _naive(case):
    return lambda rules: cached_run("generic", case(rules), N_NAIVE, SEED, _naive_run)


CASES = [
    (pytest.mark.rule_switch("generic", "spill"), ["spill"], chain),
    (pytest.mark.rule_switch("generic", "natural_one_fails"), [False], one),
    (pytest.mark.rule_switch("generic", "natural_six_succeeds"), [False], six),
    (pytest.mark.rule_switch("generic", "cover_limit"), [False], chain),
    (pytest.mark.rule_switch("generic", "devastating_wounds"), ["legacy"], chain),
    (pytest.mark.rule_switch("generic", "modifier_cap"), [False], chain),
    (pytest.mark.rule_switch("generic", "stack_feel_no_pain"), [True], mortals),
    (pytest.mark.rule_switch("generic", "damage_modifiers_on_devastating"), [False], chain),
]


@pytest.mark.parametrize("field, value, default, case", list(switch_params(CASES, Rules())))
def test_switch_value_matches_naive(field, value, default, case):
    check_switch(field, value, default, case.__name__, _kernel(case), _naive(case))
    rules = {field: value}
    sc = case(rules)
    # the kernel run check_switch made (same key), against the exact engine at this value
    counts = kernel_once((case.__name__, tuple(sorted(rules.items()))), lambda: {})
    exact = sc.exact_pmfs()
    assert set(exact) == {s.name for s in sc.stats()}, "the exact engine should cover the case"
    assert_exact(counts, exact, f"{case.__name__} with {field}={value!r}")
