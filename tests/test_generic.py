"""Generic d6 attack pipeline: kernel vs exact PMFs, exact vs icepool, vs a naive reference."""

from __future__ import annotations

import math
import random

import icepool
import numpy as np
import pytest
from generic_power import assert_exact
from naive import generic_trial
from naive_cache import cached_run
from stats import P_MIN, Z_MAX, chisquare_pmf
from switches import assert_agree, per_trial_counts

from oddslab import GenericScenario, Rules, Target, Weapon, from_dict, simulate
from oddslab.rulesets.generic import wound_threshold
from oddslab.rulesets.generic.compile import _codes

CONFIGS = {
    "basic": GenericScenario(
        (Weapon(models=10, attacks=2, skill=3, strength=4, ap=1),),
        Target(models=20, toughness=3, save=5),
    ),
    "reroll-ones-sustained": GenericScenario(
        (Weapon(attacks=20, skill=3, reroll_hits="ones", sustained_hits=1, wound=4),),
        Target(models=30, save=5),
    ),
    "lethal-twin-fnp-d3": GenericScenario(
        (
            Weapon(
                models=3,
                attacks=5,
                skill=2,
                strength=7,
                ap=2,
                damage="D3+1",
                lethal_hits=True,
                reroll_hits="failed",
                reroll_wounds="failed",
            ),
        ),
        Target(models=3, wounds=4, toughness=6, save=3, feel_no_pain=5),
        Rules(spill="spill"),
    ),
    "torrent-cover": GenericScenario(
        (Weapon(models=3, attacks="D6", torrent=True, strength=4),),
        Target(models=7, wounds=2, toughness=5, save=4, feel_no_pain=6, cover=True),
    ),
    "devastating-anti": GenericScenario(
        (
            Weapon(
                models=5,
                attacks=2,
                skill=3,
                strength=5,
                ap=2,
                damage="D3",
                critical_wound=5,
                devastating_wounds=True,
            ),
        ),
        Target(models=5, wounds=3, toughness=5, save=2, invulnerable=4),
    ),
    "devastating-legacy-spill": GenericScenario(
        (
            Weapon(
                models=5,
                attacks=2,
                skill=3,
                strength=5,
                damage="D3",
                critical_wound=5,
                devastating_wounds=True,
            ),
            Weapon(name="bolter", models=5, attacks=2, skill=3, strength=4, damage=1),
        ),
        Target(models=5, wounds=3, toughness=5, save=3, feel_no_pain=6),
        Rules(devastating_wounds="legacy"),
    ),
    "sustained-d3-crit5-mods": GenericScenario(
        (
            Weapon(
                models=4,
                attacks=3,
                skill=4,
                hit_modifier=-1,
                critical_hit=5,
                sustained_hits="D3",
                strength=5,
                wound_modifier=1,
                damage=2,
            ),
        ),
        Target(models=6, wounds=2, toughness=5, save=4),
    ),
    "two-profiles": GenericScenario(
        (
            Weapon(name="cannon", models=2, attacks="D3", skill=4, strength=9, ap=2, damage="D6"),
            Weapon(
                name="guns", models=5, attacks=2, skill=4, strength=4, damage=1, reroll_hits="ones"
            ),
        ),
        Target(models=4, wounds=3, toughness=6, save=3, invulnerable=5),
    ),
    "fish-crits-lethal-sustained2": GenericScenario(
        (
            Weapon(
                models=2,
                attacks=6,
                skill=3,
                reroll_hits="non-critical",
                lethal_hits=True,
                sustained_hits=2,
                strength=5,
                ap=1,
                damage=1,
            ),
        ),
        Target(models=10, toughness=4, save=4),
    ),
    "crits-only-devastating": GenericScenario(
        (
            Weapon(
                models=6,
                attacks=2,
                skill=3,
                wound=7,
                critical_wound=4,
                devastating_wounds=True,
                damage=2,
            ),
        ),
        Target(models=4, wounds=2, toughness=12, save=2, feel_no_pain=5),
    ),
    "no-natural-rules-2d3": GenericScenario(
        (
            Weapon(
                models=3,
                attacks=2,
                skill=2,
                hit_modifier=1,
                strength=3,
                wound_modifier=-1,
                damage="2D3",
                reroll_hits=(1, 2),
            ),
        ),
        Target(models=5, wounds=3, toughness=3, save=6),
        Rules(natural_one_fails=False, natural_six_succeeds=False),
    ),
}


@pytest.fixture(scope="module")
def runs():
    """Each configuration simulated once at 1e6 trials (fixed seed) with its exact PMFs."""
    out = {}
    for i, (name, sc) in enumerate(CONFIGS.items()):
        out[name] = (simulate(sc, trials=1_000_000, seed=1000 + i), sc.exact_pmfs())
    return out


@pytest.mark.statistical
@pytest.mark.parametrize("name", list(CONFIGS))
def test_kernel_matches_exact_chisquare(runs, name):
    """Every statistic with an exact PMF (static ones and, through the allocation chain,
    models_slain, destroyed, damage_dealt, wounds_remaining): chi-square (bins merged to
    expected >= 5), p > 1e-4, 1e6 trials; a 0.5 pp error in any of them would fail
    (tests/generic_power.py)."""
    outcome, exact = runs[name]
    assert set(exact) >= {"models_slain", "destroyed", "damage_dealt", "wounds_remaining"}
    assert_exact(outcome.counts, exact, name)


def test_exact_pmfs_are_distributions():
    for name, sc in CONFIGS.items():
        for stat, pmf in sc.exact_pmfs().items():
            assert abs(pmf.sum() - 1) < 1e-12, (name, stat)
            assert (pmf >= -1e-15).all(), (name, stat)


def _slain_from_unsaved(unsaved: np.ndarray, per_model: int, models: int) -> np.ndarray:
    out = np.zeros(models + 1)
    for u, p in enumerate(unsaved):
        out[min(models, u // per_model)] += p
    return out


@pytest.mark.statistical
@pytest.mark.parametrize("spill", ["none", "spill"])
def test_models_slain_exact_for_fixed_damage(spill):
    """Fixed damage 2 against 3-wound models: without spill each model takes 2 unsaved wounds
    (the 4th point is lost); with spill every 3 points slay one. Both are exact functions of
    the unsaved-wound count, so models_slain and destroyed are checked by chi-square too."""
    sc = GenericScenario(
        (Weapon(models=10, attacks=2, skill=3, strength=5, ap=1, damage=2),),
        Target(models=5, wounds=3, toughness=4, save=4),
        Rules(spill=spill),
    )
    unsaved = sc.exact_pmfs()["unsaved"]
    if spill == "none":
        slain = _slain_from_unsaved(unsaved, 2, 5)
    else:
        slain = np.zeros(6)
        for u, p in enumerate(unsaved):
            slain[min(5, (2 * u) // 3)] += p
    out = simulate(sc, trials=1_000_000, seed=77)
    want = {"models_slain": slain, "destroyed": np.array([1 - slain[5], slain[5]])}
    assert_exact(out.counts, want, f"fixed damage, spill {spill}")


def test_damaged_first_model():
    """One wound already lost: a 2-wound model then dies to a single 1-damage wound."""
    sc = GenericScenario(
        (Weapon(attacks=1, skill=2, wound=2, damage=1),), Target(models=1, wounds=2, damaged=1)
    )
    out = simulate(sc, trials=200_000, seed=5)
    p_kill = (5 / 6) * (5 / 6)  # hit 2+, wound 2+, no save
    assert_exact(out.counts, {"destroyed": np.array([1 - p_kill, p_kill])}, "damaged")


# -- hand-worked rule tables --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("s", "t", "need"),
    [
        (8, 4, 2),
        (9, 4, 2),
        (5, 4, 3),
        (4, 4, 4),
        (3, 4, 5),
        (3, 5, 5),
        (2, 4, 6),
        (3, 6, 6),
        (1, 12, 6),
    ],
)
def test_wound_chart(s, t, need):
    assert wound_threshold(s, t) == need


def test_natural_rules_and_modifiers():
    r = Rules()
    # 3+ with -1: a natural 3 fails, 4-5 hit, 6 is critical
    assert list(_codes(3, 6, -1, r)[1:]) == [0, 0, 0, 1, 1, 2]
    # 2+ with +1: a natural 1 still fails
    assert list(_codes(2, 6, 1, r)[1:]) == [0, 1, 1, 1, 1, 2]
    # switched off, +1 lets a natural 1 succeed on 2+
    assert list(_codes(2, 6, 1, Rules(natural_one_fails=False))[1:]) == [1, 1, 1, 1, 1, 2]
    # 6+ with -2: only the critical 6 succeeds; criticals on 5+ always succeed
    assert list(_codes(6, 5, -2, r)[1:]) == [0, 0, 0, 0, 2, 2]
    # natural_six_succeeds off: a critical roll that misses the modified threshold fails
    off = Rules(natural_six_succeeds=False)
    assert list(_codes(6, 5, -2, off)[1:]) == [0, 0, 0, 0, 0, 0]
    assert list(_codes(4, 6, -1, off)[1:]) == [0, 0, 0, 0, 1, 2]


@pytest.mark.parametrize(
    "make",
    [
        lambda: Weapon(skill=9),
        lambda: Weapon(models=-1),
        lambda: Weapon(reroll_damage="twos"),
        lambda: Weapon(anti={"infantry": 1}),
        lambda: Target(reroll_saves="all"),
        lambda: Rules(devastating_wounds="errata"),
        lambda: Weapon(reroll_hits="fishing"),
        lambda: Weapon(reroll_wounds=(0, 7)),
        lambda: Target(damaged=2, wounds=2),
        lambda: Target(models=0),
        lambda: Rules(spill="sometimes"),
    ],
)
def test_dataclasses_reject_impossible_values(make):
    with pytest.raises(ValueError):
        make()


def test_save_selection():
    t = Target(models=1, save=3, invulnerable=5, cover=True)
    sc = GenericScenario((Weapon(),), t)
    assert sc.save_needed(Weapon(ap=0)) == 3  # cover does not improve 3+ against AP 0
    assert sc.save_needed(Weapon(ap=1)) == 3  # 3+ AP-1 -> 4+, cover -> 3+
    assert sc.save_needed(Weapon(ap=3)) == 5  # 3+ AP-3 -> 6+, cover 5+, invuln 5+
    assert sc.save_needed(Weapon(ap=4)) == 5  # invulnerable
    no_limit = GenericScenario((Weapon(),), t, Rules(cover_limit=False))
    assert no_limit.save_needed(Weapon(ap=0)) == 2
    assert GenericScenario((Weapon(),), Target(save=7)).save_needed(Weapon(ap=2)) == 7


# -- exact vs icepool -----------------------------------------------------------------------------


def _ice_attack(outcomes):
    """icepool die over per-attack results from a mapping natural roll -> result."""
    return icepool.d6.map(lambda d: outcomes[d])


def _pmf_of(die) -> np.ndarray:
    q = die.quantities()
    pmf = np.zeros(max(die.outcomes()) + 1)
    total = sum(q)
    for o, k in zip(die.outcomes(), q, strict=True):
        pmf[o] = k / total
    return pmf


def _close(a, b, tol=1e-12):
    n = max(len(a), len(b))
    aa, bb = np.zeros(n), np.zeros(n)
    aa[: len(a)] = a
    bb[: len(b)] = b
    return np.max(np.abs(aa - bb)) <= tol


def test_exact_vs_icepool_reroll_ones_sustained():
    """20 attacks, 3+ re-rolling 1s, sustained hits 1 on 6, wound 4+, save 5+ (benchmark job)."""
    sc = CONFIGS["reroll-ones-sustained"]
    hit = icepool.d6.reroll([1], depth=1).map(lambda d: 0 if d < 3 else (2 if d == 6 else 1))
    hits = 20 @ hit
    wounds = hits @ icepool.d6.map(lambda d: int(d >= 4))
    unsaved = wounds @ icepool.d6.map(lambda d: int(d < 5))
    ours = sc.exact_pmfs()
    assert _close(ours["hits"], _pmf_of(hits))
    assert _close(ours["wounds"], _pmf_of(wounds))
    assert _close(ours["unsaved"], _pmf_of(unsaved))


def test_exact_vs_icepool_damage_fnp_lethal():
    """D3 attacks, 4+ to hit, lethal hits, S4 vs T4, save 4+ AP1 -> 5+, D3 damage, FNP 6+."""
    sc = GenericScenario(
        (Weapon(attacks="D3", skill=4, lethal_hits=True, strength=4, ap=1, damage="D3"),),
        Target(models=5, wounds=2, toughness=4, save=4, feel_no_pain=6),
    )
    fnp_damage = icepool.d3 @ icepool.d6.map(lambda d: int(d < 6))
    unsaved_damage = icepool.d6.map(lambda d: 0 if d >= 5 else 1) @ fnp_damage
    wound_roll = icepool.d6.map(lambda d: int(d >= 4))
    per_attack_wounds = icepool.d6.map(
        lambda d: icepool.Die([0]) if d < 4 else (icepool.Die([1]) if d == 6 else wound_roll)
    )
    per_attack_damage = icepool.d6.map(
        lambda d: (
            icepool.Die([0])
            if d < 4
            else (unsaved_damage if d == 6 else wound_roll @ unsaved_damage)
        )
    )
    wounds = icepool.d3 @ per_attack_wounds
    damage = icepool.d3 @ per_attack_damage
    ours = sc.exact_pmfs()
    assert _close(ours["wounds"], _pmf_of(wounds))
    assert _close(ours["damage"], _pmf_of(damage))


def test_exact_vs_icepool_devastating():
    """Critical wounds on 5+ with devastating wounds: mortal damage bypasses the 2+ save."""
    sc = GenericScenario(
        (
            Weapon(
                models=2,
                attacks=2,
                skill=3,
                wound=4,
                critical_wound=5,
                devastating_wounds=True,
                ap=1,
                damage="D3",
            ),
        ),
        Target(models=3, wounds=3, save=2),
        Rules(devastating_wounds="legacy"),  # mortal wounds under the legacy rule only
    )
    save_fail = icepool.d6.map(lambda d: int(d < 3))  # 2+ with AP1 -> 3+
    per_hit_mortal = icepool.d6.map(lambda d: icepool.d3 if d >= 5 else icepool.Die([0]))
    per_hit_damage = icepool.d6.map(
        lambda d: icepool.d3 if d >= 5 else (save_fail @ icepool.d3 if d == 4 else icepool.Die([0]))
    )
    hit = icepool.d6.map(lambda d: int(d >= 3))
    mortal = 4 @ (hit @ per_hit_mortal)
    damage = 4 @ (hit @ per_hit_damage)
    ours = sc.exact_pmfs()
    assert _close(ours["mortal_wounds"], _pmf_of(mortal))
    assert _close(ours["damage"], _pmf_of(damage))


# -- vs the naive reference (allocation, spill, mortal wounds, FNP) --------------------------------
# (it also guards the reference itself: its whole distributions against the exact engine's, which
# replaced a comparison of its static means)


@pytest.mark.statistical
@pytest.mark.parametrize("name", ["devastating-anti", "two-profiles", "torrent-cover"])
def test_kernel_matches_naive_reference(runs, name):
    """The naive loop (20,000 trials, kept in tests/naive_cache.py) against the kernel (1e6
    trials) and against the exact engine: every statistic's whole distribution (two-sample
    chi-square, tests/switches.py; chi-square against the exact PMF), and |difference| < 5
    combined standard errors for P(slain >= k) at every k.

    These are the slow references of the cascade: 20,000 naive trials see an error of a few
    percentage points. The 0.5 pp power on these scenarios comes from the kernel against the
    exact engine at 1e6 trials (``test_kernel_matches_exact_chisquare``, checked there).
    ``lethal-twin-fnp-d3`` ran here too (20,000 naive trials): ``tests/test_naive_power.py``
    compares that scenario's kernel with 110,000 naive trials, every statistic, so it left."""
    sc = CONFIGS[name]
    n = 20_000

    def naive_run(sc, trials, seed):
        rng = random.Random(seed)
        return per_trial_counts([generic_trial(rng, sc) for _ in range(trials)])

    ref = cached_run("generic", sc, n, 12345, naive_run)
    assert_agree({k: np.asarray(v) for k, v in runs[name][0].counts.items()}, ref, name)
    exact = runs[name][1]
    for stat in sorted(set(exact) & set(ref)):
        p = chisquare_pmf(ref[stat], exact[stat])
        assert p > P_MIN, f"{name}: naive {stat} against the exact PMF, p = {p:.2e}"
    slain = np.pad(ref["models_slain"], (0, sc.target.models + 1 - len(ref["models_slain"])))
    naive_tail = np.cumsum(slain[::-1])[::-1] / n
    outcome = runs[name][0]
    for k in range(1, sc.target.models + 1):
        p_kernel = outcome.prob("models_slain", k)
        p_naive = naive_tail[k]
        p = (p_kernel + p_naive) / 2
        se = math.sqrt(max(p * (1 - p), 1e-12) * (1 / n + 1 / outcome.trials))
        assert abs(p_kernel - p_naive) < Z_MAX * se + 1e-9, (name, k, p_kernel, p_naive)


def test_unit_destroyed_stops_allocation():
    """Overwhelming firepower: every model dies, slain never exceeds the unit size."""
    sc = GenericScenario(
        (Weapon(models=10, attacks=10, skill=2, wound=2, damage=3),), Target(models=3, wounds=2)
    )
    out = simulate(sc, trials=50_000, seed=1)
    assert (
        out.counts["models_slain"][4:].sum() == 0 if len(out.counts["models_slain"]) > 4 else True
    )
    assert out.prob("destroyed") > 0.999


def test_every_histogram_counts_each_trial_once_when_statistics_are_left_out():
    """models_slain / destroyed left out (3 wounds, at most 1 damage): no row -1 writes."""
    data = {
        "ruleset": "generic",
        "attacker": {"weapons": [{"models": 1, "attacks": 1, "torrent": True, "strength": 4}]},
        "target": {"models": 1, "wounds": 3, "toughness": 4, "save": 7},
    }
    out = simulate(from_dict(data), trials=5_000, seed=1)
    assert "destroyed" not in out.counts and "models_slain" not in out.counts
    for name, counts in out.counts.items():
        assert counts.sum() == 5_000, name
    assert out.counts["wounds_remaining"][0] == 0 and out.counts["wounds_remaining"][1] == 0
