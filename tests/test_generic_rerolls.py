"""One-off re-rolls (a command re-roll: the attacker's hit / wound / damage, the defender's save)
and ``reroll_damage = "ones"`` for 2D6 (issue 28): hand-worked PMFs against the kernel (chi-square)
and the naive reference, 2D6 against a brute-force enumeration and the exact engine."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import numpy as np
import pytest
from naive import generic_trial
from stats import P_MIN, chisquare_pmf

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
    """Kernel (300,000 trials) against the hand-worked PMF by chi-square, and the naive
    reference's mean (20,000 trials) within 5 SE."""
    sc, stat, want = CASES[name]
    pmf = pmf_of(want)
    out = simulate(sc, trials=300_000, seed=2801)
    assert chisquare_pmf(out.counts[stat], pmf) > P_MIN
    rng = random.Random(5)
    v = np.array([generic_trial(rng, sc)[stat] for _ in range(20_000)], dtype=float)
    mu = float(np.dot(np.arange(len(pmf)), pmf))
    assert abs(v.mean() - mu) < 5 * v.std() / np.sqrt(len(v))


def test_one_off_reroll_is_spent_once_and_skips_rerolled_dice():
    """Two weapons: the one-off goes to the first failure only (5 attacks each, hits 1/2: mean
    5 + 5 + P(any failure among 10) / 2). A weapon re-rolling its own failed hits does not
    use it (a die is re-rolled at most once): the second weapon gets it."""
    w = Weapon(models=5, attacks=1, skill=4)
    sc = GenericScenario((w, w), Target(models=10), situation=Situation(reroll_one="hit"))
    out = simulate(sc, trials=300_000, seed=2802)
    mean = 5 + (1 - 0.5**10) / 2
    c = out.counts["hits"]
    k = np.arange(len(c))
    se = np.sqrt((np.dot(k * k, c) / c.sum() - out.mean("hits") ** 2) / c.sum())
    assert abs(out.mean("hits") - mean) < 5 * se
    first = Weapon(models=5, attacks=1, skill=4, reroll_hits="failed")
    sc = GenericScenario((first, w), Target(models=10), situation=Situation(reroll_one="hit"))
    mean = 5 * 0.75 + 5 * 0.5 + (1 - 0.5**5) / 2
    rng = random.Random(9)
    v = np.array([generic_trial(rng, sc)["hits"] for _ in range(20_000)], dtype=float)
    assert abs(v.mean() - mean) < 5 * v.std() / np.sqrt(len(v))
    out = simulate(sc, trials=300_000, seed=2803)
    assert abs(out.mean("hits") - mean) < 5 * v.std() / np.sqrt(300_000)


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
    every exact statistic, chi-square p > 1e-4 at 1e6 trials."""
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
    for stat, pmf in ex.items():
        assert chisquare_pmf(out.counts[stat], pmf) > P_MIN, stat


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
