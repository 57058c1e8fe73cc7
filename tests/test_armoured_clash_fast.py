"""The fast numpy reference of Armoured Clash (tests/fast_armoured_clash.py) checked on its own.

It is the strong oracle of tests/test_armoured_clash_reference.py and
tests/test_armoured_clash_switches.py, so it is checked against answers that do not come from
the kernel:

- its attack pool (each die's hits worked from the rule, ``die_pmf``, convolved) equals the
  exact engine's pool (``attack_pool_pmf``, itself checked against icepool and fractions in
  tests/test_armoured_clash.py) to 1e-12 at every rating, with extra re-rolls and another die;
- its sampled hits match that exact PMF (chi-square), with the power to see 0.5 pp moved
  between the two likeliest neighbouring outcomes checked on the run;
- its deck is drawn without replacement (three tests from one deck: hypergeometric, not
  binomial) and reshuffled when it runs out (a two-card deck worked by hand);
- its runs for a seed are nested (blocks seeded by index), as the reference tests rely on;
- against the pure-Python reference tests/naive_armoured_clash.py it agrees on every
  statistic of every scenario of the reference and switch tests (``_compare`` and the switch
  test there run both on the same scenario).
"""

from __future__ import annotations

import numpy as np
import pytest
from fast_armoured_clash import BLOCK, merge, simulate
from fast_armoured_clash_pool import TIER_BITS, die_pmf, pool_pmf
from scipy.stats import hypergeom
from stats import P_MIN, Z_MAX, assert_prob, chisquare_pmf, z_prob
from switches import planted_shift

from oddslab.rulesets.armoured_clash import (
    Armaments,
    ArmouredClashScenario,
    Attack,
    AttackDie,
    RangedAttack,
    Situation,
    Unit,
    attack_pool_pmf,
)

RATINGS = ("weakened", "neutral", "improved")
BIT = {"glancing": 4, "miss": 8, "blank": 16}
SURE = AttackDie(heroic=0, strike=1, glancing=0, miss=0, blank=0)


def _p(die: AttackDie) -> np.ndarray:
    c = np.array(die.counts(), dtype=float)
    return c / c.sum()


@pytest.mark.parametrize("n", [1, 2, 5, 12])
@pytest.mark.parametrize("extra", [(), ("blank",), ("miss", "blank")])
def test_pool_equals_the_exact_engine(n, extra):
    for r, rating in enumerate(RATINGS):
        rr = int(TIER_BITS[r]) | sum(BIT[f] for f in extra)
        want = attack_pool_pmf(n, rating, extra_rerolls=extra)
        np.testing.assert_allclose(pool_pmf(n, rr, _p(AttackDie())), want, rtol=0, atol=1e-12)
    other = AttackDie(heroic=2, strike=1, glancing=2, miss=0, blank=1)
    want = attack_pool_pmf(n, "improved", other, extra)
    rr = int(TIER_BITS[2]) | sum(BIT[f] for f in extra)
    np.testing.assert_allclose(pool_pmf(n, rr, _p(other)), want, rtol=0, atol=1e-12)


def test_one_die_worked_by_hand():
    """The assumed d6 (heroic 1, strike 2, glancing 1, miss 1, blank 1), neutral (glancing
    re-rolled). A die that may be re-rolled but adds none (an added die): 0 hits 5/12, 1 hit
    7/18, 2 hits 7/36. An original die: a heroic strike (1/6) scores 2 plus an added die."""
    p = _p(AttackDie())
    added = np.array([5 / 12, 7 / 18, 7 / 36])
    want = np.zeros(5)
    want[2:] += added / 6
    want[0] += 2 / 6 + 1 / 6 * 3 / 6  # miss, blank; glancing re-rolled to nothing
    want[1] += 2 / 6 + 1 / 6 * 2 / 6  # strike; glancing re-rolled to a strike
    want[2] += 1 / 6 * 1 / 6  # glancing re-rolled to a heroic strike (no die added)
    np.testing.assert_allclose(die_pmf(int(TIER_BITS[1]), p), want, rtol=0, atol=1e-15)


def _volley(n_dice: int, models: int = 100, die: AttackDie | None = None, **sit):
    guns = Unit("guns", side="attacker", models=1, defence=4, discipline=10,
                armaments=Armaments(ranged=(RangedAttack("g", dice=(n_dice,)),)))  # fmt: skip
    foot = Unit("foot", models=models, defence=1, discipline=10, commander_nearby=True)
    attacks = (Attack("guns", "foot", situation=Situation(**sit)),)
    return ArmouredClashScenario((guns, foot), attacks, die=die or AttackDie())


@pytest.mark.parametrize("sit, rating", [({}, "neutral"), ({"aiming": True}, "improved")])
def test_sampled_hits_match_the_exact_pmf(sit, rating):
    counts = simulate(_volley(6, **sit), 300_000, seed=3)["hits_on_defender"]
    pmf = attack_pool_pmf(6, rating)
    assert chisquare_pmf(counts, pmf) > P_MIN
    shifted = planted_shift(counts)  # the check sees a 0.5 pp error
    assert chisquare_pmf(shifted[: len(pmf)], pmf) < P_MIN


def _three_tests(deck=None):
    shooters = [Unit(f"g{i}", side="attacker", models=1, defence=4, discipline=10,
                     armaments=Armaments(ranged=(RangedAttack("g", dice=(1,)),)))
                for i in range(3)]  # fmt: skip
    foot = Unit("foot", models=100, defence=1, discipline=7, commander_nearby=True)
    attacks = tuple(Attack(f"g{i}", "foot") for i in range(3))
    decks = {} if deck is None else {"defender": deck}
    return ArmouredClashScenario((*shooters, foot), attacks, die=SURE, decks=decks)


def test_deck_is_drawn_without_replacement():
    """Three tests at DISCIPLINE 7 from one 20-card deck (6 cards fail): it falls back when
    two of the three cards fail, hypergeometric (0.2018), not binomial (0.216)."""
    n = 500_000
    out = simulate(_three_tests(), n, seed=5)
    fails = hypergeom(20, 6, 3)
    assert_prob(out["defender_fell_back"][1] / n, fails.sf(1), n)
    assert_prob(out["defender_suppressed"][1] / n, fails.sf(0), n)
    binom = 1 - 0.7**3 - 3 * 0.3 * 0.7**2
    assert abs(z_prob(out["defender_fell_back"][1] / n, binom, n)) > Z_MAX


def test_empty_deck_is_reshuffled():
    """A two-card deck (1 and 10; DISCIPLINE 7, so the 10 fails): the first two tests draw
    both cards, exactly one fails (suppressed); the third comes from the reshuffled deck and
    fails half the time (falls back). Without the reshuffle it could not be drawn."""
    n = 500_000
    out = simulate(_three_tests(deck=(1, 10)), n, seed=6)
    assert_prob(out["defender_fell_back"][1] / n, 0.5, n)
    # still suppressed; the rally test after the sequence draws the reshuffled deck's other
    # card: the 10 (it fails) exactly when the third test drew the 1 (no fall back)
    assert out["defender_suppressed"][1] == n
    assert out["defender_rally_failed"][1] == n - out["defender_fell_back"][1]


def test_runs_for_a_seed_are_nested():
    """Block ``i`` is seeded ``(seed, i)``: a run extended by blocks from ``first_block`` is the
    longer run itself, so the reference tests' extension of a run does not depend on order."""
    sc = _volley(3, models=4)
    whole = simulate(sc, 2 * BLOCK, seed=8)
    parts = merge(simulate(sc, BLOCK, seed=8), simulate(sc, BLOCK, seed=8, first_block=1))
    assert whole.keys() == parts.keys()
    for k in whole:
        np.testing.assert_array_equal(whole[k], parts[k], err_msg=k)
