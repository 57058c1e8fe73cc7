"""Generic pipeline options (issue 9): each checked against a hand-worked answer (exact PMF
worked out on paper) and, at 1e6 trials, kernel vs exact engine by chi-square on every
statistic the exact engine gives (static ones and the allocation chain's)."""

from __future__ import annotations

import random
from fractions import Fraction as F

import numpy as np
import pytest
from generic_power import assert_exact
from naive import generic_trial
from stats import P_MIN, chisquare_pmf
from switches import counts_of

from oddslab import GenericScenario, Rules, Target, Weapon, simulate

ALLOC = ("models_slain", "destroyed", "damage_dealt", "wounds_remaining")


def pmf_of(d: dict[int, F]) -> np.ndarray:
    out = np.zeros(max(d) + 1)
    for k, p in d.items():
        out[k] = float(p)
    assert abs(out.sum() - 1) < 1e-12
    return out


def close(a: np.ndarray, b: np.ndarray, tol: float = 1e-12) -> bool:
    n = max(len(a), len(b))
    aa, bb = np.zeros(n), np.zeros(n)
    aa[: len(a)] = a
    bb[: len(b)] = b
    return bool(np.max(np.abs(aa - bb)) <= tol)


def one_shot(**weapon) -> Weapon:
    """One automatic hit (torrent) that rolls to wound."""
    return Weapon(**{"attacks": 1, "torrent": True, **weapon})


# -- hand-worked cases ------------------------------------------------------------------------------


def test_devastating_current_vs_legacy_spill():
    """4 damage devastating (critical wounds on 2+: 5/6) against two 3-wound models.
    Legacy: 4 mortal wounds spill (4 wounds lost); current: no spill (3 lost, 1 wasted)."""
    w = one_shot(wound=2, critical_wound=2, devastating_wounds=True, damage=4)
    t = Target(models=2, wounds=3)
    cur = GenericScenario((w,), t).exact_pmfs()
    leg = GenericScenario((w,), t, Rules(devastating_wounds="legacy")).exact_pmfs()
    assert close(cur["damage_dealt"], pmf_of({0: F(1, 6), 3: F(5, 6)}))
    assert close(leg["damage_dealt"], pmf_of({0: F(1, 6), 4: F(5, 6)}))
    assert close(leg["mortal_wounds"], pmf_of({0: F(1, 6), 4: F(5, 6)}))
    assert close(cur["damage"], pmf_of({0: F(1, 6), 4: F(5, 6)}))  # not mortal wounds (current)


def test_devastating_current_waits_for_the_other_weapons():
    """Weapon A: devastating 1 damage (critical on 2+); weapon B: 2 damage; two 2-wound
    models, no spill. Current rule: B slays model 1 first, A's mortal wound then hits model 2
    (1 wound left). Legacy: A wounds model 1, B's 2 damage slays it (excess lost): 2 left.
    With a natural 1 (1/6) A's wound is ordinary (no natural-1 rule, +1 modifier) either way."""
    a = one_shot(
        name="A", wound=2, wound_modifier=1, critical_wound=2, devastating_wounds=True, damage=1
    )
    b = one_shot(name="B", wound=2, wound_modifier=1, damage=2)
    r = {"natural_one_fails": False}
    t = Target(models=2, wounds=2)
    cur = GenericScenario((a, b), t, Rules(**r)).exact_pmfs()
    leg = GenericScenario((a, b), t, Rules(devastating_wounds="legacy", **r)).exact_pmfs()
    assert close(cur["wounds_remaining"], pmf_of({1: F(5, 6), 2: F(1, 6)}))
    assert close(leg["wounds_remaining"], pmf_of({2: F(1)}))
    assert close(cur["models_slain"], pmf_of({1: F(1)}))


@pytest.mark.parametrize("instead", [True, False])
def test_mortal_wounds_on_critical_hit(instead):
    """Critical hits on 2+ (5/6) inflict 3 mortal wounds; wound rolls succeed only as
    criticals (6: 1/6), 1 damage, no save. Instead: no wound roll after a critical hit."""
    w = Weapon(
        attacks=1,
        skill=2,
        critical_hit=2,
        wound=7,
        critical_hit_mortals=3,
        critical_hit_mortals_instead=instead,
    )
    ex = GenericScenario((w,), Target(models=1, wounds=10)).exact_pmfs()
    if instead:
        want = {0: F(1, 6), 3: F(5, 6)}
    else:
        want = {0: F(1, 6), 3: F(5, 6) * F(5, 6), 4: F(5, 6) * F(1, 6)}
    assert close(ex["damage"], pmf_of(want))
    assert close(ex["mortal_wounds"], pmf_of({0: F(1, 6), 3: F(5, 6)}))


def test_mortal_wounds_on_critical_wound_instead_and_in_addition():
    """Critical wounds (6) inflict D3 mortal wounds; wound 4+, 2 damage, no save."""
    base = {"wound": 4, "damage": 2, "critical_wound_mortals": "D3"}
    t = Target(models=1, wounds=20)
    inst = GenericScenario((one_shot(**base, critical_wound_mortals_instead=True),), t)
    add = GenericScenario((one_shot(**base),), t)
    third = F(1, 18)  # a 6 and one D3 face
    assert close(
        inst.exact_pmfs()["damage"], pmf_of({0: F(1, 2), 1: third, 2: F(1, 3) + third, 3: third})
    )
    want = {0: F(1, 2), 2: F(1, 3), 3: third, 4: third, 5: third}
    assert close(add.exact_pmfs()["damage"], pmf_of(want))


def test_extra_attacks_on_critical_hit():
    """Hit 4+, critical 6 grants one extra hit roll (which grants none itself)."""
    ex = GenericScenario((Weapon(attacks=1, critical_extra_attacks=1),), Target()).exact_pmfs()
    assert close(ex["attacks"], pmf_of({1: F(5, 6), 2: F(1, 6)}))
    want = {0: F(3, 6), 1: F(2, 6) + F(1, 6) * F(3, 6), 2: F(1, 6) * F(3, 6)}
    assert close(ex["hits"], pmf_of(want))


def test_critical_wound_ap_and_damage():
    """Wound 4+, critical 6: AP 2 more (3+ save → 5+) and +2 damage on the critical."""
    sc = GenericScenario((one_shot(wound=4, critical_wound_ap=2),), Target(save=3))
    p_unsaved = F(2, 6) * F(2, 6) + F(1, 6) * F(4, 6)
    assert close(sc.exact_pmfs()["unsaved"], pmf_of({0: 1 - p_unsaved, 1: p_unsaved}))
    sc = GenericScenario((one_shot(wound=4, critical_wound_damage=2),), Target(wounds=5))
    assert close(sc.exact_pmfs()["damage"], pmf_of({0: F(3, 6), 1: F(2, 6), 3: F(1, 6)}))


def test_anti_keyword():
    """S1 vs T8 wounds on 6+; anti-infantry 4+ makes 4+ critical (and so successful) wounds,
    only against a target with the keyword (any case)."""
    w = one_shot(strength=1, anti={"Infantry": 4})
    with_kw = GenericScenario((w,), Target(toughness=8, keywords=("INFANTRY",))).exact_pmfs()
    without = GenericScenario((w,), Target(toughness=8, keywords=("vehicle",))).exact_pmfs()
    assert close(with_kw["wounds"], pmf_of({0: F(1, 2), 1: F(1, 2)}))
    assert close(without["wounds"], pmf_of({0: F(5, 6), 1: F(1, 6)}))


@pytest.mark.parametrize(
    ("target", "p_fail"),
    [
        (Target(save=4, save_modifier=1), F(2, 6)),  # 3+ (a natural 1 still fails)
        (Target(save=4, save_modifier=-1), F(4, 6)),  # 5+
        (Target(save=2, save_modifier=2), F(1, 6)),  # only the natural 1 fails
        (Target(save=4, reroll_saves="ones"), F(2, 6) + F(1, 6) * F(3, 6)),
        (Target(save=4, reroll_saves="failed"), F(3, 6) * F(3, 6)),
        (Target(save=6, invulnerable=4, reroll_invulnerable="failed"), F(1, 4)),
        (Target(save=5, invulnerable=5, reroll_invulnerable="ones"), F(3, 6) + F(1, 6) * F(4, 6)),
        (Target(save=4, invulnerable=5, save_modifier=-1), F(4, 6)),  # armour 5+, invuln 6+
    ],
)
def test_save_modifiers_and_rerolls(target, p_fail):
    """P(an AP 0 wound is not saved), by hand."""
    ex = GenericScenario(
        (one_shot(wound=2, wound_modifier=1),), target, Rules(natural_one_fails=True)
    )
    # the wound itself: 2+ with +1 still fails on a natural 1 (5/6 wound)
    p = F(5, 6) * p_fail
    assert close(ex.exact_pmfs()["unsaved"], pmf_of({0: 1 - p, 1: p}))


@pytest.mark.parametrize(
    ("target", "p_fail"),
    [
        (Target(save=3, ignore_ap=True), F(2, 6)),
        (Target(save=3, ap_reduction=1), F(3, 6)),  # AP 2 → 1: 4+
        (Target(save=3, ap_reduction=3), F(2, 6)),  # never below AP 0
        (Target(save=3, cover=True, ap_reduction=2), F(2, 6)),  # AP 0 now: no cover on 3+
    ],
)
def test_ap_rules(target, p_fail):
    ex = GenericScenario((one_shot(wound=2, ap=2),), target).exact_pmfs()
    p = F(5, 6) * p_fail
    assert close(ex["unsaved"], pmf_of({0: 1 - p, 1: p}))


@pytest.mark.parametrize(
    ("weapon", "target", "want"),
    [
        ({"damage": "D6"}, {"damage_reduction": 1}, {1: F(2, 6), 2: F(1, 6), 3: F(1, 6), 4: F(1, 6), 5: F(1, 6)}),
        ({"damage": "D6"}, {"halve_damage": True}, {1: F(2, 6), 2: F(2, 6), 3: F(2, 6)}),
        ({"damage": "D6"}, {"halve_damage": True, "damage_reduction": 1}, {1: F(4, 6), 2: F(2, 6)}),
        ({"damage": "D6", "reroll_damage": "ones"}, {}, {1: F(1, 36), **{k: F(7, 36) for k in range(2, 7)}}),
        ({"damage": "D6", "reroll_damage": "below-average"}, {}, {**{k: F(1, 12) for k in (1, 2, 3)}, **{k: F(1, 4) for k in (4, 5, 6)}}),
        ({"damage": "D6+2", "reroll_damage": "ones"}, {}, {3: F(1, 36), **{k: F(7, 36) for k in range(4, 9)}}),
        ({"damage": "2D3", "reroll_damage": "below-average"}, {}, {2: F(1, 27), 3: F(2, 27), 4: F(12, 27), 5: F(8, 27), 6: F(4, 27)}),
        ({"damage": 3, "critical_wound_damage": 1, "wound": 7, "critical_wound": 2}, {"halve_damage": True, "damage_reduction": 1}, {0: F(1, 6), 2: F(5, 6)}),
    ],
)  # fmt: skip
def test_damage_side(weapon, target, want):
    """Damage of one automatic, unsaved wound (2+ with +1 and no natural-1 rule: always
    wounds). The last case: critical wounds only (2+: 5/6), 3 halved → 2, +1 critical, −1."""
    w = one_shot(**{"wound": 2, "wound_modifier": 1, **weapon})
    sc = GenericScenario((w,), Target(wounds=20, **target), Rules(natural_one_fails=False))
    got = sc.exact_pmfs()["damage"]
    assert close(got, pmf_of(want)), got


def test_two_d3_below_average_by_enumeration():
    """The 2D3 below-average case above, worked by enumeration (mean 4: re-roll 2 and 3)."""
    rolls = [a + b for a in (1, 2, 3) for b in (1, 2, 3)]
    p = {v: F(rolls.count(v), 9) for v in set(rolls)}
    low = p[2] + p[3]
    final = {v: (p[v] if v >= 4 else 0) + low * p[v] for v in p}
    assert final == {2: F(1, 27), 3: F(2, 27), 4: F(12, 27), 5: F(8, 27), 6: F(4, 27)}


def test_feel_no_pain_against_mortal_wounds():
    """One mortal wound per critical hit (2+: 5/6), no wound roll; FNP 6+ and 5+ vs mortals.
    Default: the better roll (5+) only; stacked: both must fail (5/6 × 4/6)."""
    w = Weapon(attacks=1, skill=2, critical_hit=2, critical_hit_mortals=1,
               critical_hit_mortals_instead=True)  # fmt: skip
    t = Target(models=1, wounds=5, feel_no_pain=6, feel_no_pain_mortal=5)
    best = GenericScenario((w,), t).exact_pmfs()["mortal_wounds"]
    stacked = GenericScenario((w,), t, Rules(stack_feel_no_pain=True)).exact_pmfs()
    p = F(5, 6) * F(4, 6)
    assert close(best, pmf_of({0: 1 - p, 1: p}))
    p = F(5, 6) * F(5, 6) * F(4, 6)
    assert close(stacked["mortal_wounds"], pmf_of({0: 1 - p, 1: p}))
    only_mortal = GenericScenario((one_shot(wound=4),), Target(feel_no_pain_mortal=2)).exact_pmfs()
    assert close(only_mortal["damage"], pmf_of({0: F(1, 2), 1: F(1, 2)}))  # ordinary: no FNP


def _probe(fnp_mortal: int | None, rule: str) -> GenericScenario:
    """Issue 28's probe: 5 models x 4 attacks, S4 AP1 D2, hit 3+, devastating wounds, at 10
    two-wound T4 3+ models."""
    w = Weapon(models=5, attacks=4, skill=3, strength=4, ap=1, damage=2, devastating_wounds=True)
    t = Target(models=10, wounds=2, toughness=4, save=3, feel_no_pain_mortal=fnp_mortal)
    return GenericScenario((w,), t, Rules(devastating_wounds=rule))


def _mean(pmf: np.ndarray) -> float:
    return float(np.dot(np.arange(len(pmf)), pmf))


@pytest.mark.rule_switch("generic", "devastating_wounds")
def test_devastating_current_is_not_mortal_wounds():
    """Current rule: a devastating wound's damage is an attack's damage with no save, not
    mortal wounds, so a feel-no-pain against mortal wounds does not apply and mortal_wounds is
    not reported; legacy: mortal wounds (FNP 4+ halves them). By hand, per attack: hit 4/6,
    critical wound 1/6 (2 damage), ordinary wound 2/6 failing the 4+ save half the time
    (2 damage): mean damage 20 x 4/6 x (1/6 x 2 + 2/6 x 1/2 x 2) = 80/9 = 8.889; legacy with
    FNP 4+: the devastating part 20 x 4/6 x 1/6 x 2 = 40/9 halves, 80/9 - 20/9 = 60/9 = 6.667
    (the issue's probe figures)."""
    cur, cur_fnp = _probe(None, "current"), _probe(4, "current")
    assert _mean(cur.exact_pmfs()["damage"]) == pytest.approx(80 / 9, abs=1e-12)
    assert close(cur.exact_pmfs()["damage"], cur_fnp.exact_pmfs()["damage"])
    assert "mortal_wounds" not in cur_fnp.exact_pmfs()
    assert "mortal_wounds" not in [s.name for s in cur_fnp.stats()]
    leg = _probe(4, "legacy").exact_pmfs()
    assert _mean(leg["damage"]) == pytest.approx(60 / 9, abs=1e-12)
    assert _mean(leg["mortal_wounds"]) == pytest.approx(20 / 9, abs=1e-12)
    # the kernel and the naive reference against the exact PMFs (whole distributions; the
    # naive loop reads the rule text again): the kernel at 400,000 trials, where a 0.5 pp
    # error fails (checked), the naive reference at 20,000
    out = simulate(cur_fnp, trials=400_000, seed=28)
    assert_exact(out.counts, cur_fnp.exact_pmfs(), "current, FNP 4+ (mortal)", ("damage",))
    rng = random.Random(28)
    naive = [generic_trial(rng, cur_fnp) for _ in range(20_000)]
    p = chisquare_pmf(counts_of([r["damage"] for r in naive]), cur_fnp.exact_pmfs()["damage"])
    assert p > P_MIN, f"naive damage against the exact PMF, p = {p:.2e}"
    assert all(r["mortal_wounds"] == 0 for r in naive)
    legacy = _probe(4, "legacy")
    out = simulate(legacy, trials=400_000, seed=28)
    assert_exact(out.counts, legacy.exact_pmfs(), "legacy, FNP 4+ (mortal)", ("mortal_wounds",))


@pytest.mark.parametrize(("cap", "p_hit"), [(True, F(3, 6)), (False, F(2, 6))])
def test_modifier_cap(cap, p_hit):
    """Skill 3+ with −2: capped to −1 (hit on 4+) by default, 5+ with the cap off."""
    w = Weapon(attacks=1, skill=3, hit_modifier=-2)
    ex = GenericScenario((w,), Target(), Rules(modifier_cap=cap)).exact_pmfs()
    assert close(ex["hits"], pmf_of({0: 1 - p_hit, 1: p_hit}))


def test_damage_dealt_removes_overkill():
    """12 damage into a single 10-wound model: damage 12, damage dealt 10, 0 wounds left."""
    sc = GenericScenario((one_shot(wound=2, damage=12),), Target(models=1, wounds=10))
    ex = sc.exact_pmfs()
    assert close(ex["damage"], pmf_of({0: F(1, 6), 12: F(5, 6)}))
    assert close(ex["damage_dealt"], pmf_of({0: F(1, 6), 10: F(5, 6)}))
    assert close(ex["wounds_remaining"], pmf_of({10: F(1, 6), 0: F(5, 6)}))
    assert sc.compile().meta["primary"] == "damage_dealt"


@pytest.mark.parametrize(
    ("spill", "want"), [("none", {1: F(5, 9), 2: F(4, 9)}), ("spill", {1: F(1, 3), 2: F(2, 3)})]
)
def test_chain_hand_worked(spill, want):
    """Two unsaved D3-damage wounds into two 2-wound models. No spill: the first packet slays
    a model unless it rolls 1 (1/3), and the second slays the model it hits unless a fresh
    model takes a 1: P(2 slain) = 2/3 × 2/3. Spill: the 2D3 total decides (≤ 3: one model)."""
    w = one_shot(attacks=2, wound=2, wound_modifier=1, damage="D3")
    sc = GenericScenario(
        (w,), Target(models=2, wounds=2), Rules(spill=spill, natural_one_fails=False)
    )
    assert close(sc.exact_pmfs()["models_slain"], pmf_of({0: F(0), **want}))


# -- kernel vs exact, every option ----------------------------------------------------------------

OPTION_CONFIGS = {
    "devastating-current": GenericScenario(
        (
            Weapon(models=3, attacks=3, skill=3, wound=4, critical_wound=5,
                   devastating_wounds=True, damage="D3+1"),
            Weapon(models=2, attacks=4, skill=4, strength=6, ap=1, damage=2),
        ),
        Target(models=4, wounds=3, toughness=5, save=4, feel_no_pain=6),
    ),
    "devastating-legacy": GenericScenario(
        (Weapon(models=4, attacks=2, skill=3, strength=5, critical_wound=5,
                devastating_wounds=True, damage="D3"),),
        Target(models=4, wounds=3, toughness=5, save=2, invulnerable=4),
        Rules(devastating_wounds="legacy"),
    ),
    "mortals-on-critical-hit": GenericScenario(
        (Weapon(models=3, attacks=3, skill=3, critical_hit_mortals="D3", strength=4, ap=1,
                damage=1),),
        Target(models=5, wounds=2, toughness=4, save=3, feel_no_pain_mortal=5),
    ),
    "mortals-instead-of-wound": GenericScenario(
        (Weapon(models=3, attacks=3, skill=3, critical_hit=5, critical_hit_mortals=2,
                critical_hit_mortals_instead=True, lethal_hits=True, damage=2),),
        Target(models=4, wounds=3, toughness=4, save=4),
        Rules(spill="spill"),
    ),
    "mortals-on-critical-wound": GenericScenario(
        (Weapon(models=4, attacks=2, skill=3, strength=4, critical_wound_mortals=1,
                critical_wound_mortals_instead=True, damage="D3"),),
        Target(models=5, wounds=2, toughness=4, save=3),
    ),
    "extra-attacks-sustained": GenericScenario(
        (Weapon(models=2, attacks=4, skill=4, critical_extra_attacks="D3", sustained_hits=1,
                strength=4, damage=1),),
        Target(models=10, toughness=4, save=5),
    ),
    "critical-ap-damage": GenericScenario(
        (Weapon(models=3, attacks=3, skill=3, strength=5, ap=1, critical_wound_ap=2,
                critical_wound_damage=1, damage="D3"),),
        Target(models=4, wounds=3, toughness=4, save=3, feel_no_pain=6),
    ),
    "anti-infantry-devastating": GenericScenario(
        (Weapon(models=5, attacks=2, skill=3, strength=3, anti={"infantry": 4},
                devastating_wounds=True, damage=1),),
        Target(models=10, toughness=4, save=3, keywords=("infantry",)),
    ),
    "saves-modified-rerolled": GenericScenario(
        (Weapon(models=6, attacks=2, skill=3, strength=5, ap=2, damage="D3"),),
        Target(models=6, wounds=2, toughness=4, save=3, invulnerable=5, save_modifier=1,
               reroll_saves="ones", reroll_invulnerable="failed", ap_reduction=1, cover=True),
    ),
    "ignore-ap": GenericScenario(
        (Weapon(models=5, attacks=2, skill=3, strength=5, ap=3, damage=2),),
        Target(models=4, wounds=3, toughness=4, save=3, ignore_ap=True),
    ),
    "melta-damage-reroll-reduction": GenericScenario(
        (Weapon(models=2, attacks=1, skill=3, strength=9, ap=4, damage="D6+2",
                reroll_damage="ones"),),
        Target(models=1, wounds=12, toughness=10, save=3, invulnerable=5, damage_reduction=1),
    ),
    "halve-below-average": GenericScenario(
        (Weapon(models=3, attacks=2, skill=3, strength=8, ap=2, damage="2D3",
                reroll_damage="below-average"),),
        Target(models=2, wounds=8, toughness=8, save=3, halve_damage=True, feel_no_pain=6),
    ),
    "stacked-fnp-mortal": GenericScenario(
        (Weapon(models=4, attacks=2, skill=3, strength=4, critical_wound=5,
                devastating_wounds=True, damage=2),),
        Target(models=3, wounds=3, toughness=4, save=4, feel_no_pain=6, feel_no_pain_mortal=5),
        Rules(stack_feel_no_pain=True, spill="spill"),
    ),
    "modifier-uncapped": GenericScenario(
        (Weapon(models=5, attacks=2, skill=3, hit_modifier=2, wound_modifier=-2, strength=4,
                damage=1),),
        Target(models=10, toughness=4, save=5),
        Rules(modifier_cap=False),
    ),
}  # fmt: skip


@pytest.mark.statistical
@pytest.mark.parametrize("name", list(OPTION_CONFIGS))
def test_option_kernel_matches_exact(name):
    """Every statistic with an exact PMF, chi-square p > 1e-4 at 1e6 trials (fixed seed); a
    0.5 pp error in any of them would fail (checked, tests/generic_power.py)."""
    sc = OPTION_CONFIGS[name]
    exact = sc.exact_pmfs()
    assert set(ALLOC) <= set(exact), "the allocation chain should answer this scenario"
    out = simulate(sc, trials=1_000_000, seed=9000 + list(OPTION_CONFIGS).index(name))
    assert_exact(out.counts, exact, name)
