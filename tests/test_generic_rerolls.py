"""One-off re-rolls (a command re-roll: the attacker's hit / wound / damage, the defender's save)
and ``reroll_damage = "ones"`` for 2D6 (issue 28): hand-worked PMFs against the kernel (chi-square)
and the naive reference, 2D6 against a brute-force enumeration and the exact engine."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction as F

import numpy as np
import pytest
from generic_power import assert_exact
from naive import generic_trial
from stats import P_MIN, chisquare_pmf
from switches import counts_of

from oddslab import GenericScenario, Rules, ScenarioError, Target, Weapon, from_dict, simulate
from oddslab.exact import exact
from oddslab.rulesets.generic import Situation
from oddslab.rulesets.generic.exact import any_one_pmf

#: two rolls of 1/2 each, the first failure re-rolled once (hand-worked): both pass 1/4 -> 2;
#: one fails 1/2 -> 2 or 1 (1/4 each); both fail 1/4 -> 1 or 0 (1/8 each)
TWO_WITH_ONE_OFF = {0: F(1, 8), 1: F(3, 8), 2: F(1, 2)}
NO_ONES = Rules(natural_one_fails=False)


def pmf_of(d: dict[int, F]) -> np.ndarray:
    out = np.zeros(max(d) + 1)
    for k, p in d.items():
        out[k] = float(p)
    return out


CASES = {
    # (scenario, statistic, hand-worked PMF)
    "hit": (
        GenericScenario((Weapon(attacks=2, skill=4),), Target(models=5),
                        situation=Situation(reroll_one="hit")),
        "hits", TWO_WITH_ONE_OFF,
    ),
    "wound": (
        GenericScenario((Weapon(attacks=2, torrent=True, wound=4),), Target(models=5),
                        situation=Situation(reroll_one="wound")),
        "wounds", TWO_WITH_ONE_OFF,
    ),
    "save": (
        GenericScenario((Weapon(attacks=2, torrent=True, wound=2, wound_modifier=1),),
                        Target(models=5, save=4, reroll_one="save"), NO_ONES),
        "unsaved", {0: F(1, 2), 1: F(3, 8), 2: F(1, 8)},  # failures: the mirror image
    ),
    # one D6 damage roll: 1-3 (below the average 3.5) re-rolled: 1/12 each, 4-6 1/4 each
    "damage": (
        GenericScenario((Weapon(attacks=1, torrent=True, wound=2, wound_modifier=1, damage="D6"),),
                        Target(models=1, wounds=20), NO_ONES,
                        situation=Situation(reroll_one="damage")),
        "damage", {1: F(1, 12), 2: F(1, 12), 3: F(1, 12), 4: F(1, 4), 5: F(1, 4), 6: F(1, 4)},
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_one_off_reroll_hand_worked(name):
    """Kernel (500,000 trials) against the hand-worked PMF by chi-square (a 0.5 pp error would
    fail: checked), and the naive reference's whole distribution (20,000 trials)."""
    sc, stat, want = CASES[name]
    pmf = pmf_of(want)
    out = simulate(sc, trials=500_000, seed=2801)
    assert_exact(out.counts, {stat: pmf}, name)
    rng = random.Random(5)
    naive = counts_of([generic_trial(rng, sc)[stat] for _ in range(20_000)])
    assert chisquare_pmf(naive, pmf) > P_MIN


def _binomial(n: int, p: F) -> dict[int, F]:
    return {k: math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)}


def _plus(a: dict[int, F], b: dict[int, F]) -> dict[int, F]:
    """PMF of the sum of two independent counts."""
    out: dict[int, F] = {}
    for (i, p), (j, q) in itertools.product(a.items(), b.items()):
        out[i + j] = out.get(i + j, F(0)) + p * q
    return out


def _one_off(n: int) -> dict[int, F]:
    """Hits of ``n`` rolls at 1/2 with one re-roll of the first failure: X + [X < n] B(1/2)."""
    out: dict[int, F] = {}
    for k, p in _binomial(n, F(1, 2)).items():
        for extra, q in ((0, F(1)),) if k == n else ((0, F(1, 2)), (1, F(1, 2))):
            out[k + extra] = out.get(k + extra, F(0)) + p * q
    return out


def test_one_off_reroll_is_spent_once_and_skips_rerolled_dice():
    """Two weapons: the one-off goes to the first failure only (5 attacks each, hits 1/2: 10
    rolls, X + [X < 10] B(1/2)). A weapon re-rolling its own failed hits does not use it (a die
    is re-rolled at most once): the second weapon gets it, Bin(5, 3/4) + (Y + [Y < 5] B(1/2)).
    Whole distributions: the kernel (500,000 trials, a 0.5 pp error would fail: checked) and
    the naive reference (20,000 trials) against these PMFs."""
    w = Weapon(models=5, attacks=1, skill=4)
    sc = GenericScenario((w, w), Target(models=10), situation=Situation(reroll_one="hit"))
    out = simulate(sc, trials=500_000, seed=2802)
    assert_exact(out.counts, {"hits": pmf_of(_one_off(10))}, "one-off, two weapons")
    first = Weapon(models=5, attacks=1, skill=4, reroll_hits="failed")
    sc = GenericScenario((first, w), Target(models=10), situation=Situation(reroll_one="hit"))
    want = pmf_of(_plus(_binomial(5, F(3, 4)), _one_off(5)))
    rng = random.Random(9)
    naive = counts_of([generic_trial(rng, sc)["hits"] for _ in range(20_000)])
    assert chisquare_pmf(naive, want) > P_MIN
    out = simulate(sc, trials=500_000, seed=2803)
    assert_exact(out.counts, {"hits": want}, "one-off kept past a re-rolling weapon")


def test_one_off_has_no_exact_form():
    sc = CASES["hit"][0]
    assert sc.exact_pmfs() == {}
    with pytest.raises(NotImplementedError):
        exact(sc)


def test_reroll_damage_ones_2d6_enumerated():
    """2D6 re-rolled whole when either die shows 1: P(no 1) = 25/36 keeps the sum, else a fresh
    2D6 (brute-force enumeration of both rolls)."""
    e = Weapon(damage="2D6").damage
    want = np.zeros(13)
    for a, b in itertools.product(range(1, 7), repeat=2):
        if 1 in (a, b):
            for c, d in itertools.product(range(1, 7), repeat=2):
                want[c + d] += 1 / 36**2
        else:
            want[a + b] += 1 / 36
    assert np.allclose(any_one_pmf(e), want, atol=1e-15)
    sc = GenericScenario(
        (Weapon(attacks=1, torrent=True, wound=2, wound_modifier=1, damage="2D6",
                reroll_damage="ones"),),
        Target(models=1, wounds=20), NO_ONES,
    )  # fmt: skip
    assert np.allclose(sc.exact_pmfs()["damage"], want, atol=1e-15)


@pytest.mark.statistical
def test_reroll_damage_ones_2d6_kernel_matches_exact():
    """2D6 damage re-rolling ones (and a D6+1 weapon) against 3 six-wound models with FNP 6+:
    every exact statistic, chi-square p > 1e-4 at 1e6 trials (a 0.5 pp error would fail:
    checked)."""
    sc = GenericScenario(
        (
            Weapon(models=3, attacks=2, skill=3, strength=8, ap=2, damage="2D6",
                   reroll_damage="ones"),
            Weapon(models=2, attacks=1, skill=3, strength=6, damage="D6+1", reroll_damage="ones"),
        ),
        Target(models=3, wounds=6, toughness=5, save=3, feel_no_pain=6),
    )  # fmt: skip
    ex = sc.exact_pmfs()
    assert {"damage", "models_slain"} <= set(ex)
    out = simulate(sc, trials=1_000_000, seed=2804)
    assert_exact(out.counts, ex, "2D6 re-rolling ones")


def test_one_off_keys_are_read_and_checked():
    doc = {
        "ruleset": "generic",
        "attacker": {"reroll_one": "wound", "weapons": [{"attacks": 1}]},
        "target": {"models": 5, "reroll_one": "save"},
    }
    sc = from_dict(doc)
    assert (sc.situation.reroll_one, sc.target.reroll_one) == ("wound", "save")
    for where, value in (("attacker", "save"), ("target", "hit")):
        bad = {**doc, where: {**doc[where], "reroll_one": value}}
        with pytest.raises(ScenarioError) as err:
            from_dict(bad, source="bad.toml")
        assert err.value.key == f"{where}.reroll_one"
    res = sc.resolved()
    assert res["situation"]["one-off re-roll (attacker)"] == "wound"
    assert res["target: target"]["one-off re-roll (defender)"] == "save"
