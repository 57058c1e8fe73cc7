"""Mixed target units (issue 28): groups of models, attached leaders, Precision, the defender's
allocation policy. Hand-worked cases (the leader + bodyguard case of docs/generic.md), the
exact chain against the kernel by chi-square at 1e6 trials, the kernel against the naive
reference (tests/naive_generic_mixed.py), reading and errors."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction as F

import fast_generic
import numpy as np
import pytest
from generic_power import assert_exact
from naive_generic_mixed import mixed_trial
from stats import P_MIN, chisquare_pmf
from switches import assert_agree, assert_power, counts_of, per_trial_counts

from oddslab import GenericScenario, Rules, ScenarioError, Target, Weapon, from_dict, simulate
from oddslab.rulesets.generic import ModelGroup, Situation

NO_ONES = {"natural_one_fails": False}
#: three automatic wounds (torrent, wound 2+ with +1 and no natural-1 rule), AP 0, damage 1
THREE = Weapon(models=3, attacks=1, torrent=True, wound=2, wound_modifier=1, damage=1)
#: two one-wound bodyguards (4+ save) and an attached two-wound leader (3+ save)
UNIT = Target(
    save=4,
    groups=(
        ModelGroup("bodyguard", models=2, wounds=1, save=4),
        ModelGroup("leader", models=1, wounds=2, save=3, character=True),
    ),
)


def pmf_of(d: dict[int, F]) -> np.ndarray:
    out = np.zeros(max(d) + 1)
    for k, p in d.items():
        out[k] = float(p)
    return out


def close(a: np.ndarray, b: np.ndarray, tol: float = 1e-12) -> bool:
    n = max(len(a), len(b))
    aa, bb = np.zeros(n), np.zeros(n)
    aa[: len(a)] = a
    bb[: len(b)] = b
    return bool(np.max(np.abs(aa - bb)) <= tol)


def test_leader_and_bodyguard_by_hand():
    """docs/generic.md, worked example 4. Wounds go to the bodyguards (fail the 4+ save: 1/2)
    while one lives; the leader (3+: fails 1/3) takes only what is left. Two bodyguards dead
    by wound 2 (1/4): wound 3 may wound the leader (1/3); by wound 3 (1/4): nothing left."""
    ex = GenericScenario((THREE,), UNIT, Rules(**NO_ONES)).exact_pmfs()
    assert close(ex["models_slain"], pmf_of({0: F(1, 8), 1: F(3, 8), 2: F(1, 2)}))
    assert close(ex["target_bodyguard_models_lost"], pmf_of({0: F(1, 8), 1: F(3, 8), 2: F(1, 2)}))
    assert close(ex["leader_slain"], pmf_of({0: F(1)}))
    want = {4: F(1, 8), 3: F(3, 8), 2: F(1, 4) + F(1, 4) * F(2, 3), 1: F(1, 4) * F(1, 3)}
    assert close(ex["wounds_remaining"], pmf_of(want))


def test_precision_goes_to_the_leader():
    """With Precision the three wounds go to the leader while it lives: slain if 2 of its 3+
    saves fail (7/27); slain by wound 2 (1/9), wound 3 may slay a bodyguard (1/2)."""
    w = Weapon(models=3, attacks=1, torrent=True, wound=2, wound_modifier=1, keywords="Precision")
    ex = GenericScenario((w,), UNIT, Rules(**NO_ONES)).exact_pmfs()
    assert close(ex["leader_slain"], pmf_of({0: F(20, 27), 1: F(7, 27)}))
    assert close(ex["models_slain"], pmf_of({0: F(20, 27), 1: F(11, 54), 2: F(1, 18)}))


def test_a_model_that_has_lost_wounds_takes_the_next_attack():
    """Two unsaved 1-damage wounds into two 2-wound models: the same model takes both."""
    t = Target(groups=(ModelGroup("a", models=2, wounds=2),))
    w = Weapon(models=2, attacks=1, torrent=True, wound=2, wound_modifier=1)
    ex = GenericScenario((w,), t, Rules(**NO_ONES)).exact_pmfs()
    assert close(ex["models_slain"], pmf_of({0: F(0), 1: F(1)}))


@pytest.mark.rule_switch("generic", "allocation")
@pytest.mark.parametrize(("policy", "lost"), [("listed", "sergeant"), ("fewest-wounds", "marines")])
def test_allocation_policy(policy, lost):
    """One unsaved 2-damage wound into a 2-wound sergeant (listed first) and two 1-wound
    marines: "listed" loses the sergeant, "fewest-wounds" a marine; exact, kernel and naive."""
    t = Target(groups=(ModelGroup("sergeant", wounds=2), ModelGroup("marines", models=2)))
    w = Weapon(attacks=1, torrent=True, wound=2, wound_modifier=1, damage=2)
    sc = GenericScenario((w,), t, Rules(allocation=policy, **NO_ONES))
    stat = f"target_{lost}_models_lost"
    assert close(sc.exact_pmfs()[stat], pmf_of({0: F(0), 1: F(1)}))
    assert_exact(simulate(sc, trials=2_000, seed=1).counts, sc.exact_pmfs(), policy)
    assert mixed_trial(random.Random(1), sc)["lost"][lost] == 1


MIXED_CONFIGS = {
    "squad-with-sergeant": GenericScenario(
        (Weapon(models=10, attacks=2, skill=3, strength=4, ap=1, damage="D3", reroll_hits="ones"),),
        Target(toughness=4, groups=(
            ModelGroup("sergeant", wounds=3, save=3),
            ModelGroup("marines", models=4, wounds=2, save=3),
        )),
    ),
    "bodyguard-and-leader": GenericScenario(
        (
            Weapon(models=5, attacks=2, skill=3, strength=5, ap=2, damage=2,
                   keywords="Precision, Devastating Wounds"),
            Weapon(models=5, attacks=2, skill=3, strength=4, critical_hit_mortals=1),
        ),
        Target(toughness=4, feel_no_pain_mortal=5, groups=(
            ModelGroup("bodyguard", models=3, wounds=2, save=3),
            ModelGroup("leader", wounds=4, save=2, invulnerable=4, feel_no_pain=5, toughness=5,
                       character=True),
        )),
        Rules(spill="spill", allocation="fewest-wounds"),
    ),
}  # fmt: skip


#: naive trials per case: the squad's every statistic has an exact answer (the 0.5 pp oracle),
#: so its naive run is only the cascade's slow reference (it ran 20,000); the bodyguard's
#: naive run also checks the fast reference on the statistics the exact engine does not give
N_NAIVE = {"squad-with-sergeant": 10_000, "bodyguard-and-leader": 20_000}


@pytest.mark.statistical
@pytest.mark.rule_switch("generic", "allocation")
@pytest.mark.parametrize("name", list(MIXED_CONFIGS))
def test_mixed_kernel_matches_exact(name):
    """Every statistic of the allocation chain (and attacks, hits): chi-square p > 1e-4 at 1e6
    trials, a 0.5 pp error in any would fail (checked); the kernel against the naive reference
    (``N_NAIVE`` trials), whole distributions of what it reports; the statistics with no exact
    answer against the fast reference (``N_FAST`` trials, 0.5 pp power checked)."""
    sc = MIXED_CONFIGS[name]
    ex = sc.exact_pmfs()
    assert {"models_slain", "wounds_remaining", "attacks"} <= set(ex)
    out = simulate(sc, trials=1_000_000, seed=2810 + list(MIXED_CONFIGS).index(name))
    assert_exact(out.counts, ex, name)
    rng = random.Random(11)
    rows = [mixed_trial(rng, sc) for _ in range(N_NAIVE[name])]
    stats = ("wounds", "unsaved", "mortal_wounds", "damage", "models_slain", "wounds_remaining")
    naive = per_trial_counts([{k: r[k] for k in stats} for r in rows])
    assert_agree(out.counts, naive, f"{name}: kernel against the naive reference")
    rest = sorted(set(out.counts) - set(ex))
    if rest:  # statistics the exact engine does not give: against the fast reference
        _against_fast(sc, out.counts, naive, ex, rest, name)


#: trials of the fast reference (tests/fast_generic.py) where it is the 0.5 pp oracle
N_FAST = 500_000


def _against_fast(sc, kernel, naive, exact, headline, what, seed=2840, n=N_FAST):
    """The fast reference checked (its whole distributions against the exact PMFs and the
    naive run's), then the kernel against it on every statistic, and a 0.5 pp error in any
    ``headline`` statistic (those with no exact answer) would fail that comparison."""
    fast = fast_generic.simulate(sc, n, seed)
    for stat, pmf in exact.items():
        p = chisquare_pmf(fast[stat], pmf)
        assert p > P_MIN, f"{what}: the fast reference's {stat} against the exact PMF, p = {p:.2e}"
    assert_agree(fast, naive, f"{what}: the fast reference against the naive reference")
    assert_agree({k: np.asarray(v) for k, v in kernel.items()}, fast, f"{what}: kernel vs fast")
    assert_power({k: np.asarray(kernel[k]) for k in headline}, fast, what)


def test_reading_groups_and_errors():
    doc = {
        "ruleset": "generic",
        "attacker": {"weapons": [{"attacks": 2, "keywords": "Precision"}]},
        "target": {
            "toughness": 4,
            "save": 3,
            "wounds": 2,
            "models": [
                {"name": "Intercessors", "models": 4},
                {"name": "Sergeant", "wounds": 3},
                {"name": "Captain", "wounds": 5, "invulnerable": 4, "toughness": 4,
                 "keywords": ["Infantry"], "character": True},
            ],
        },
        "rules": {"allocation": "fewest-wounds"},
    }  # fmt: skip
    sc = from_dict(doc)
    t = sc.target
    assert t.models == 6 and [g.wounds for g in t.groups] == [2, 3, 5]
    assert t.groups[2].character and t.groups[2].keywords == ("infantry",)
    names = [s.name for s in sc.stats()]
    assert names[-4:] == [
        "target_intercessors_models_lost",
        "target_sergeant_models_lost",
        "target_captain_models_lost",
        "leader_slain",
    ]
    assert from_dict({**doc, "target": {**doc["target"], "models": [
        {"name": "a", "wounds": 3, "damaged": 2}]}}).target.groups[0].damaged == 2  # fmt: skip
    res = sc.resolved()["target: target"]
    assert res["group Captain"].startswith("1 model; 5 W; T4; 3+; 4++")
    bad = [
        ({"models": [{"name": "a"}, {"name": "a"}]}, "target.models[1].name"),
        ({"models": [{"modles": 2}]}, "target.models[0].modles"),
        ({"models": [{"wounds": 0}]}, "target.models[0].wounds"),
        ({"models": [{"name": "a"}], "damaged": 1}, "target.damaged"),
        ({"models": [{"name": "a", "wounds": 2, "damaged": 2}]}, "target.models[0].damaged"),
    ]
    for target, key in bad:
        d = {**doc, "target": {"save": 3, **target}, "rules": {}}
        with pytest.raises(ScenarioError) as err:
            from_dict(d, source="bad.toml")
        assert err.value.key == key, str(err.value)
    plain = {**doc, "target": {"models": 5}}
    with pytest.raises(ScenarioError) as err:
        from_dict(plain, source="bad.toml")
    assert err.value.key == "rules.allocation"


def test_hazardous_against_a_mixed_unit():
    """The mixed kernel rolls Hazardous too: 6 models, binomial(6, 1/6) models lost."""
    w = Weapon(models=6, attacks=1, keywords="Hazardous")
    sc = GenericScenario((w,), UNIT)
    ex = sc.exact_pmfs()["attacker_models_lost_to_hazards"]
    assert abs(ex[0] - (5 / 6) ** 6) < 1e-12
    out = simulate(sc, trials=400_000, seed=2812)
    assert_exact(out.counts, {"attacker_models_lost_to_hazards": ex}, "hazardous, mixed unit")


# -- one-off re-rolls and a damaged model in a mixed unit ---------------------------------------

#: two one-wound models: "open" (no save) listed first, then "armoured" (4+ save)
OPEN_FIRST = (ModelGroup("open", wounds=1), ModelGroup("armoured", wounds=1, save=4))
#: the same hand-worked one-off cases as tests/test_generic_rerolls.py, against a mixed unit
MIXED_ONE_OFF = {
    # (scenario, statistic, hand-worked PMF)
    "hit": (
        GenericScenario((Weapon(attacks=2, skill=4),), UNIT, situation=Situation(reroll_one="hit")),
        "hits", {0: F(1, 8), 1: F(3, 8), 2: F(1, 2)},
    ),
    "wound": (
        GenericScenario((Weapon(attacks=2, torrent=True, wound=4),), UNIT,
                        situation=Situation(reroll_one="wound")),
        "wounds", {0: F(1, 8), 1: F(3, 8), 2: F(1, 2)},
    ),
    # one D6 damage roll into a 20-wound model: 1-3 re-rolled once (1/12 each), 4-6 1/4 each
    "damage": (
        GenericScenario((Weapon(attacks=1, torrent=True, wound=2, wound_modifier=1, damage="D6"),),
                        Target(groups=(ModelGroup("big", wounds=20),)), Rules(**NO_ONES),
                        situation=Situation(reroll_one="damage")),
        "damage", {1: F(1, 12), 2: F(1, 12), 3: F(1, 12), 4: F(1, 4), 5: F(1, 4), 6: F(1, 4)},
    ),
    # two automatic wounds: the first slays "open" (no save: the one-off is kept, a re-roll could
    # not pass), the second goes to "armoured": fails its 4+ save 1/2, re-rolled: slain 1/4
    "save": (
        GenericScenario((Weapon(models=2, attacks=1, torrent=True, wound=2, wound_modifier=1),),
                        Target(reroll_one="save", groups=OPEN_FIRST), Rules(**NO_ONES)),
        "target_armoured_models_lost", {0: F(3, 4), 1: F(1, 4)},
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(MIXED_ONE_OFF))
def test_one_off_rerolls_against_a_mixed_unit(name):
    """Kernel (500,000 trials) against the hand-worked PMF by chi-square (a 0.5 pp error would
    fail: checked), the naive reference's whole distribution (10,000 trials); the exact
    engine has no form for a one-off re-roll."""
    sc, stat, want = MIXED_ONE_OFF[name]
    pmf = pmf_of(want)
    out = simulate(sc, trials=500_000, seed=2820)
    assert_exact(out.counts, {stat: pmf}, name)
    rng = random.Random(6)
    if stat.startswith("target_"):
        naive = counts_of([mixed_trial(rng, sc)["lost"]["armoured"] for _ in range(10_000)])
    else:
        naive = counts_of([mixed_trial(rng, sc)[stat] for _ in range(10_000)])
    assert chisquare_pmf(naive, pmf) > P_MIN
    assert sc.exact_pmfs() == {} and sc.exact_joint(("models_slain", "destroyed")) is None


#: a sergeant listed last who has already lost a wound, and a wounded leader
DAMAGED = Target(toughness=4, save=4, groups=(
    ModelGroup("troops", models=3, wounds=2),
    ModelGroup("sergeant", wounds=2, save=3, damaged=1),
    ModelGroup("leader", wounds=4, invulnerable=4, character=True, damaged=2),
))  # fmt: skip


def test_damaged_model_takes_the_first_attack():
    """One automatic 1-damage wound, no save: the sergeant (has lost a wound) is slain, though
    listed after the troops; wounds remaining 6 + 2 (the leader's) of 11 at the start."""
    w = Weapon(attacks=1, torrent=True, wound=2, wound_modifier=1, ap=6)
    sc = GenericScenario((w,), DAMAGED, Rules(**NO_ONES))
    ex = sc.exact_pmfs()
    assert close(ex["target_sergeant_models_lost"], pmf_of({0: F(0), 1: F(1)}))
    assert close(ex["wounds_remaining"], pmf_of({8: F(1)}))
    assert close(ex["damage_dealt"], pmf_of({1: F(1)}))
    out = simulate(sc, trials=2_000, seed=3)
    assert_exact(out.counts, ex, "damaged sergeant first")
    r = mixed_trial(random.Random(2), sc)
    assert r["lost"]["sergeant"] == 1 and r["damage_dealt"] == 1 and r["wounds_remaining"] == 8


def _damaged(attacker: str = "none", defender: str = "none") -> GenericScenario:
    """A Precision weapon and a plain one into ``DAMAGED`` with spill, with the attacker's
    one-off re-roll (hit / wound / damage) and the defender's (save)."""
    w = Weapon(models=5, attacks=2, skill=3, ap=1, damage="D3", keywords="Precision")
    t = replace(DAMAGED, reroll_one=defender)
    weapons = (w, Weapon(models=5, attacks=2, skill=3))
    return GenericScenario(
        weapons, t, Rules(spill="spill"), situation=Situation(reroll_one=attacker)
    )


@pytest.mark.statistical
def test_damaged_kernel_matches_exact():
    """Damaged models (a sergeant, a Precision-targeted leader) with dice damage and spill:
    every statistic of the allocation chain, chi-square p > 1e-4 at 1e6 trials, a 0.5 pp
    error in any would fail (checked); the fast reference against the same PMFs (100,000
    trials: its own check)."""
    sc = _damaged()
    ex = sc.exact_pmfs()
    assert {"models_slain", "leader_slain", "target_sergeant_models_lost"} <= set(ex)
    out = simulate(sc, trials=1_000_000, seed=2821)
    assert_exact(out.counts, ex, "damaged models")
    fast = fast_generic.simulate(sc, 100_000, 2823)  # the reference's own check
    for stat, pmf in ex.items():
        p = chisquare_pmf(fast[stat], pmf)
        assert p > P_MIN, f"the fast reference's {stat} against the exact PMF, p = {p:.2e}"


@pytest.mark.statistical
@pytest.mark.parametrize(("attacker", "defender"), [("hit", "save"), ("wound", "none"),
                                                    ("damage", "save")])  # fmt: skip
def test_damaged_one_off_matches_the_references(attacker, defender):
    """Every one-off re-roll against damaged models (no exact form; the defender's save with
    two of the attacker's three): the kernel (1e6 trials) against the fast reference
    (``N_FAST`` trials) on every statistic's whole distribution, a 0.5 pp error in hits,
    wounds, unsaved, damage or damage dealt would fail (checked); both against the naive
    reference (2,000 trials: the cascade's slow reference; it ran 5,000 for each of the four
    re-rolls alone when it was the only reference here)."""
    sc = _damaged(attacker, defender)
    what = f"damaged models, one-off {attacker} / {defender}"
    got = simulate(sc, trials=1_000_000, seed=2822)
    rng = random.Random(12)
    stats = ("hits", "wounds", "unsaved", "damage", "damage_dealt")
    naive = per_trial_counts([{k: r[k] for k in stats} for r in
                              (mixed_trial(rng, sc) for _ in range(2_000))])  # fmt: skip
    assert_agree(got.counts, naive, f"{what}: kernel vs naive")
    _against_fast(sc, got.counts, naive, {}, stats, what, 2824)


#: small mixed units where the chain carries unsaved / damage / mortal wounds (every transition
#: kind: saves per model, spilling and non-spilling damage, feel-no-pain, both devastating rules)
COUNTED = {
    rule: GenericScenario(
        (
            Weapon(models=3, attacks=2, skill=3, strength=5, ap=1, damage="D3",
                   critical_hit_mortals=1, keywords="Precision, Devastating Wounds"),
            Weapon(models=3, attacks=2, skill=3, strength=4),
        ),
        Target(toughness=4, feel_no_pain_mortal=5, groups=(
            ModelGroup("bodyguard", models=2, wounds=2, save=3, damaged=1),
            ModelGroup("leader", wounds=3, save=3, invulnerable=4, feel_no_pain=5,
                       character=True),
        )),
        Rules(devastating_wounds=rule, spill="spill" if rule == "legacy" else "none"),
    )
    for rule in ("legacy", "current")
}  # fmt: skip


@pytest.mark.statistical
@pytest.mark.rule_switch("generic", "devastating_wounds")
@pytest.mark.parametrize("rule", list(COUNTED))
def test_counted_statistics_match_the_kernel(rule):
    """wounds (one toughness), unsaved, damage, mortal_wounds of a mixed unit from the chain:
    chi-square p > 1e-4 against the kernel at 1e6 trials, a 0.5 pp error would fail (checked)."""
    sc = COUNTED[rule]
    ex = sc.exact_pmfs()
    want = {"wounds", "unsaved", "damage"} | ({"mortal_wounds"} if rule == "legacy" else set())
    assert want <= set(ex)
    out = simulate(sc, trials=1_000_000, seed=2830)
    assert_exact(out.counts, ex, rule, sorted(want))


def test_fast_reference_refuses_what_it_does_not_model():
    """tests/fast_generic.py names the keys it does not model instead of ignoring them."""
    sc = GenericScenario((Weapon(lethal_hits=True),), Target(models=2, cover=True))
    with pytest.raises(NotImplementedError, match="lethal.*target save keys|target save"):
        fast_generic.simulate(sc, 10, 1)
