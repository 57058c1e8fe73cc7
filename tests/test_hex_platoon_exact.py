"""Hex platoon exact PMFs: brute-force enumeration of dice, icepool, hand-worked cases."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import icepool
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import fast_hex_platoon as F  # noqa: E402
import naive_hex_platoon as N  # noqa: E402
from hex_platoon_cases import HQ, MG, RIFLES, TANK, fire_case, scenario, unit  # noqa: E402
from stats import P_MIN, chisquare_pmf  # noqa: E402

from oddslab import engine  # noqa: E402
from oddslab.rulesets.hex_platoon import exact as E  # noqa: E402
from oddslab.rulesets.hex_platoon.compile import fire_numbers  # noqa: E402
from oddslab.rulesets.hex_platoon.model import Rules, SupportWeapon, Unit  # noqa: E402
from oddslab.scenario import from_dict  # noqa: E402


def brute_attack(dice: int, aug: int, th: int) -> np.ndarray:
    """Every roll of dice + aug d6, the aug lowest ignored, counting faces >= th."""
    out = np.zeros(dice + 1)
    for faces in itertools.product(range(1, 7), repeat=dice + aug):
        kept = sorted(faces, reverse=True)[:dice]
        out[sum(f >= th for f in kept)] += 1
    return out / out.sum()


@pytest.mark.parametrize(
    "dice,aug,th", [(1, 0, 5), (3, 1, 4), (2, 2, 5), (4, 1, 6), (2, 1, 1), (3, 0, 7)]
)
def test_augmented_fire_by_enumeration(dice, aug, th):
    assert np.allclose(E.attack_pmf(dice, aug, th), brute_attack(dice, aug, th), atol=1e-15)


@pytest.mark.parametrize("dice,aug,th", [(3, 1, 4), (5, 2, 5), (2, 0, 3)])
def test_attack_pmf_matches_icepool(dice, aug, th):
    hit = icepool.d6.map(lambda f: int(f >= th))
    die = hit.pool(dice + aug).highest(dice).sum() if aug else hit.pool(dice).sum()
    ref = np.array([float(die.probability(k)) for k in range(dice + 1)])
    assert np.allclose(E.attack_pmf(dice, aug, th), ref, atol=1e-12)


def test_unsaved_pmf_matches_icepool():
    hits = E.attack_pmf(4, 1, 4)
    got = E.unsaved_pmf(hits, [(3, 5)], ip=True, ip_after=False)
    hit = icepool.d6.map(lambda f: int(f >= 4))
    h = hit.pool(5).highest(4).sum()
    saves = icepool.d6.map(lambda f: int(f >= 5)).pool(3).sum()
    net = icepool.map(lambda a, b: max(max(a - 1, 0) - b, 0), h, saves)
    ref = np.array([float(net.probability(k)) for k in range(5)])
    assert np.allclose(got, ref, atol=1e-12)


def test_extended_range_numbers_by_enumeration():
    """Text priority: +1 To Hit while the unmodified To Hit is below 6, else −1 firepower."""
    r = Rules()
    rifle = Unit("r", he=3, range=4, to_hit=5)
    fn = fire_numbers(rifle, False, "extended", None, r)
    assert (fn.dice, fn.to_hit) == (3, 6)
    six = Unit("s", he=3, range=4, to_hit=6)
    fn = fire_numbers(six, False, "extended", None, r)
    assert (fn.dice, fn.to_hit) == (2, 6)
    assert np.allclose(E.attack_pmf(fn.dice, fn.aug, fn.to_hit), brute_attack(2, 0, 6))
    one = Unit("o", he=1, range=4, to_hit=6)
    with pytest.raises(ValueError, match="cannot fire at extended range"):
        fire_numbers(one, False, "extended", None, r)
    # the player's better choice: 2 dice on 2+ at extended range → 2 on 3+ (mean 4/3 hits)
    # or 1 on 2+ (mean 5/6): the first has more expected hits
    best = Rules(extended_range="best-choice")
    u = Unit("b", he=2, range=4, to_hit=2)
    fn = fire_numbers(u, False, "extended", None, best)
    means = {(2, 3): 2 * 4 / 6, (1, 2): 5 / 6}
    assert (fn.dice, fn.to_hit) == max(means, key=means.get)
    # distance picks the band: range 4 (+2 from the support weapon) → reduced up to 3 hexes
    sw = Unit("p", he=3, range=4, to_hit=5, support=(SupportWeapon("mmg", he=2, range=2),))
    assert fire_numbers(sw, False, "normal", 3, r).band == "reduced"
    assert fire_numbers(sw, False, "normal", 6, r).band == "normal"
    fn = fire_numbers(sw, False, "normal", 12, r)
    assert (fn.band, fn.dice, fn.to_hit) == ("extended", 5, 6)


def test_support_weapon_augments_and_ap_vs_hard():
    u = Unit(
        "p",
        he=3,
        ap=1,
        range=4,
        to_hit=5,
        support=(SupportWeapon("at", ap=2), SupportWeapon("mg", augmented=True)),
    )
    soft = fire_numbers(u, False, "normal", None, Rules())
    hard = fire_numbers(u, True, "normal", None, Rules())
    assert (soft.dice, soft.aug) == (3, 1)
    assert (hard.dice, hard.aug) == (3, 1)
    aa = Unit("flak", type="aa", aa=3, he=2, range=4, to_hit=4)
    fn = fire_numbers(aa, True, "normal", None, Rules())
    assert (fn.dice, fn.to_hit) == (3, 6)
    # AA at a hard target: AP if the counter has one, else (or with aa_vs_hard = "blue")
    # the blue firepower, its own "+" with it
    at_aa = Unit("88", type="aa", aa=3, aa_plus=True, ap=2, range=6, to_hit=4)
    fn = fire_numbers(at_aa, True, "normal", None, Rules())
    assert (fn.dice, fn.aug, fn.to_hit) == (2, 0, 6)
    fn = fire_numbers(at_aa, True, "normal", None, Rules(aa_vs_hard="blue"))
    assert (fn.dice, fn.aug, fn.to_hit) == (3, 1, 6)


def test_state_ladder_hand_worked():
    # good order: 1 hit disrupts, 2 reduce, 3 eliminate; disrupted: 1 hit reduces
    assert [E.state_code(*E.apply_hits(0, 0, h, False)[:2]) for h in range(5)] == [0, 1, 2, 3, 3]
    assert [E.state_code(*E.apply_hits(0, 1, h, False)[:2]) for h in range(4)] == [1, 2, 3, 3]
    assert [E.state_code(*E.apply_hits(1, 0, h, False)[:2]) for h in range(4)] == [2, 2, 3, 3]
    # concealed infantry under direct fire: disrupted at worst, surplus spent
    assert E.apply_hits(0, 0, 3, True) == (0, 1, 0)
    assert E.apply_hits(0, 0, 5, False) == (2, 1, 2)


def test_state_ladder_one_step_per_attack():
    """hit_ladder = "one-step-per-attack": 1 hit disrupts a Good Order unit; more hits, or
    any hit on a disrupted unit, add one step (reduced, or eliminated if already reduced)."""
    per = [E.state_code(*E.apply_hits(0, 0, h, False, True)[:2]) for h in range(5)]
    assert per == [0, 1, 2, 2, 2]
    assert [E.state_code(*E.apply_hits(0, 1, h, False, True)[:2]) for h in range(4)] == [
        1,
        2,
        2,
        2,
    ]
    assert [E.state_code(*E.apply_hits(1, 0, h, False, True)[:2]) for h in range(4)] == [
        2,
        2,
        3,
        3,
    ]
    # an elimination absorbs the hits it needed (2 on a Good Order reduced unit, 1 if
    # disrupted); a unit already stepped down in this attack absorbs passed-on hits
    assert E.apply_hits(1, 0, 5, False, True) == (2, 1, 3)
    assert E.apply_hits(1, 1, 5, False, True) == (2, 1, 4)
    assert E.apply_hits(1, 1, 2, False, True, stepped=True) == (1, 1, 0)
    # passed on: a reduced unit and a Good Order one share 5 hits (3 and 2, or 2 and 3); the
    # reduced one is eliminated either way, its surplus (1 or 0) reaches the other, which
    # was already reduced by its own 2 or 3 hits and stays reduced
    units = [(1, 0, False, False), (0, 0, False, False)]
    joint = E.distribute_exact(units, 5, True, False, per_attack=True)
    assert joint == {((2, 1), (1, 1)): pytest.approx(1.0)}


def test_fair_distribution_hand_worked():
    """5 hits on 3 good-order units: 1 each, 2 odd hits to 2 of the 3 (3 equally likely pairs).

    Each unit is reduced (2 hits) with probability 2/3 and disrupted with 1/3; exactly one
    unit is only disrupted. With 'passed-on' and a reduced unit among them nothing changes
    (no unit is eliminated by 2 hits), but 7 hits on 3 units (3, 2, 2): one is eliminated
    and none of its hits is surplus.
    """
    units = [(0, 0, False, False)] * 3
    joint = E.distribute_exact(units, 5, False, False)
    assert len(joint) == 3
    for states, p in joint.items():
        assert p == pytest.approx(1 / 3)
        assert sorted(E.state_code(*s) for s in states) == [1, 2, 2]
    # a reduced unit (capacity 2) given 3 hits: one surplus hit, lost or passed on
    units = [(1, 0, False, False), (0, 0, False, False)]
    lost = E.distribute_exact(units, 5, False, False)  # 3 and 2, or 2 and 3
    passed = E.distribute_exact(units, 5, True, False)
    assert sum(p for s, p in lost.items() if s[1] == (2, 1)) == pytest.approx(0.5)
    assert all(s[0][0] == 2 and s[1][0] == 2 for s in passed)  # both eliminated


def test_hq_reduction_exact():
    assert E.hq_after(0, [(0, 0)], [(0, 1)], False) == {0: 5 / 6, 1: 1 / 6}
    assert E.hq_after(0, [(0, 0), (0, 0)], [(2, 1), (0, 0)], False) == {0: 0.5, 1: 0.5}
    assert E.hq_after(0, [(0, 0)], [(2, 1)], False) == {2: 1.0}  # all units eliminated
    assert E.hq_after(1, [(0, 0)], [(0, 1)], False) == {1: 5 / 6, 2: 1 / 6}
    assert E.hq_after(1, [(0, 0)], [(0, 1)], True) == {1: 1.0}
    assert E.hq_after(0, [(0, 0)], [(0, 0)], False) == {0: 1.0}


def test_morale_mines_clear_match_icepool():
    two = icepool.d6 + icepool.d6
    for m in range(1, 14):
        assert E.morale_pass(m) == pytest.approx(float(two.probability("<=", m)))
        assert E.morale_pass(m, 1 - 2) == pytest.approx(float(two.probability("<=", m + 1)))
    each = icepool.d6.map(lambda f: int(f >= 5)).pool(2).sum()
    assert np.allclose(E.mines_pmf("each-die"), [float(each.probability(k)) for k in range(3)])
    assert E.mines_pmf("sum")[1] == pytest.approx(float(two.probability(">=", 5)))
    assert E.clear_prob([1], "any-die") == 0.5
    assert E.clear_prob([2], "any-die") == 0.75
    assert E.clear_prob([2], "sum") == 0.5
    assert E.clear_prob([1, 2], "any-die") == pytest.approx(1 - 0.5 * 0.25)


def test_scenario_pmfs_cover_the_static_parts():
    ex = from_dict(fire_case(hq=True)).exact_pmfs()
    assert {"hits_on_target", "unsaved_hits_on_target", "target_state"} <= set(ex)
    for p in ex.values():
        assert p.sum() == pytest.approx(1.0)
    # concealed infantry (wood) under direct fire is never reduced
    assert ex["target_state"][2:].sum() == 0.0
    ex = from_dict(fire_case(rules={"concealed_infantry_not_reduced": False})).exact_pmfs()
    assert ex["target_state"][2:].sum() > 0.0
    # one fire attack by hand: 2 dice + 1 augmentation on 4+, target soft in the open, no saves
    d = fire_case(hex_kw={"terrain": "open", "defence": 0})
    ex = from_dict(d).exact_pmfs()
    hits = brute_attack(2, 1, 4)
    assert np.allclose(ex["unsaved_hits_on_target"], hits)
    assert np.allclose(ex["target_state"], [hits[0], hits[1], hits[2], 0.0])
    # hard target: concealment die inside the cap of 2 (default) or on top
    t = dict(TANK)
    inside = from_dict(
        fire_case(target_kw=t, hex_kw={"defence": 2}, firer_kw={"ap": 3})
    ).exact_pmfs()
    outside = from_dict(
        fire_case(
            target_kw=t,
            hex_kw={"defence": 2},
            firer_kw={"ap": 3},
            rules={"concealment_in_cap": False},
        )
    ).exact_pmfs()
    assert inside["unsaved_hits_on_target"][0] < outside["unsaved_hits_on_target"][0]
    # rally with an HQ in the hex (leadership 1): 2D6 − 1 <= 8
    hexes = [
        {
            "name": "w",
            "units": [unit("a", **RIFLES, disrupted=True), unit("hq", type="hq", leadership=1)],
        }
    ]
    ex = from_dict(scenario(hexes, [{"kind": "rally", "stack": "w"}])).exact_pmfs()
    assert ex["a_state"][0] == pytest.approx(E.morale_pass(8, -1))
    _ = MG


def _sw_case(firer_kw, sw, target_kw, distance):
    firer = unit("rifles", type="infantry", **firer_kw, support=[sw])
    return scenario(
        [
            {"name": "a", "units": [firer]},
            {"name": "b", "units": [unit("target", **target_kw)]},
        ],
        [{"kind": "fire", "firer": "rifles", "target": "target", "distance": distance}],
    )


def test_support_weapon_without_firepower_lends_no_range():
    """1.3.4: a weapon adds firepower *and* range when employed; an HMG with no AP is not.

    Rifles AP 1, range 2, To Hit 5 with an HMG (HE 2, AP 0, range 2) at an unarmoured tank 4
    hexes away: range 2, so 4 hexes is extended range, 1 die on 6+ (not 1 on 5+ at range 4).
    """
    d = _sw_case(
        dict(he=2, ap=1, to_hit=5, range=2),
        dict(name="HMG", he=2, ap=0, range=2),
        dict(type="afv", armor=0),
        4,
    )
    sc = from_dict(d)
    fn = sc.step_fire(0)
    assert (fn.dice, fn.aug, fn.to_hit, fn.band) == (1, 0, 6, "extended")
    assert "not employed" in fn.text
    assert np.allclose(sc.exact_pmfs()["hits_on_target"], [5 / 6, 1 / 6])
    # against a soft target the HMG fires: range 4, 4 hexes is normal range, 4 dice on 5+
    d = _sw_case(
        dict(he=2, ap=1, to_hit=5, range=2),
        dict(name="HMG", he=2, ap=0, range=2),
        dict(type="infantry"),
        4,
    )
    fn = from_dict(d).step_fire(0)
    assert (fn.dice, fn.to_hit, fn.band) == (4, 5, "normal")


def test_extended_range_counts_support_weapon_firepower():
    """6.1 "if unmodified firepower is > 1, sub -1": the firepower the attack rolls.

    Rifles HE 1 To Hit 6 range 2 with an HMG (HE 1, range 2): 2 dice, range 4; 7 hexes is
    extended, To Hit already 6, so −1 firepower: 1 die on 6+.
    """
    d = _sw_case(
        dict(he=1, to_hit=6, range=2),
        dict(name="HMG", he=1, range=2),
        dict(type="infantry"),
        7,
    )
    sc = from_dict(d)
    fn = sc.step_fire(0)
    assert (fn.dice, fn.to_hit, fn.band) == (1, 6, "extended")
    assert np.allclose(sc.exact_pmfs()["hits_on_target"], [5 / 6, 1 / 6])


# -- 6.1 / 11.2 mortar and artillery saves in a hex with a hard target -------------------------


#: the readings of "Soft target in hex with Hard Target get 1 extra defence dice"
SOFT_EXTRA = {
    "per-soft-unit": None,
    "per-hex": {"artillery_soft_extra_scope": "per-hex"},
    "restatement": {"artillery_soft_extra_defence": False},
}


def _mixed_hex():
    """A mortar (1 die on 1+) and a field with two rifle platoons and a tank in the open."""
    hexes = [
        {"name": "guns", "units": [unit("mortar", type="mortar", he=1, range=10, to_hit=1)]},
        {
            "name": "field",
            "units": [
                unit("rifles", type="infantry", he=1),
                unit("rifles2", type="infantry", he=1),
                unit("tank", type="afv", ap=1),
            ],
        },
    ]
    return hexes, {"kind": "mortar", "firer": "mortar", "target": "field", "band": "normal"}


@pytest.mark.parametrize("reading", list(SOFT_EXTRA))
def test_mixed_hex_saves_one_extra_die_per_soft_target(reading):
    """6.1 "(infantry Defensive Bonus +1 if there is at least 1 Hard Target) D6 >= 5" and the
    Additional Rule "Soft target in hex with Hard Target get 1 extra defence dice", on by
    default, one die for each soft target: two rifle platoons and a tank in the open (bonus 0)
    roll 1 + 2 = 3 save dice (one die for the hex: 2; the rule read as a restatement of 6.1's
    +1: 1). The mortar's 1 die on 1+ (+1 die, several targets) scores 2 sure hits; saves are
    Bin(s, 1/3): unsaved P(0, 1, 2) = 7/27, 12/27, 8/27 (s = 3), 1/9, 4/9, 4/9 (s = 2),
    0, 1/3, 2/3 (s = 1)."""
    hexes, step = _mixed_hex()
    sc = from_dict(scenario(hexes, [step], SOFT_EXTRA[reading]))
    want = {
        "per-soft-unit": [7 / 27, 12 / 27, 8 / 27],
        "per-hex": [1 / 9, 4 / 9, 4 / 9],
        "restatement": [0, 1 / 3, 2 / 3],
    }[reading]
    assert np.allclose(sc.exact_pmfs()["unsaved_hits_on_field"], want)
    out = engine.simulate(sc, trials=1_000_000, seed=9)
    F.check_exact(out.counts, {"unsaved_hits_on_field": np.array(want)}, reading)
    # the references: the naive one (a few thousand trials) and the fast one (0.5 pp power)
    ref = N.simulate(sc, 5_000, seed=9)["unsaved_hits_on_field"]
    assert chisquare_pmf(ref, want) > P_MIN
    fast = F.simulate(sc, 400_000, 9)
    F.check_exact(fast, {"unsaved_hits_on_field": np.array(want)}, f"{reading} (fast reference)")


# -- issue 29: a reduced unit's state says whether it is disrupted ------------------------------


def test_state_detail_tells_reduced_from_reduced_and_disrupted():
    """A reduced, disrupted platoon with its HQ (leadership 1) rallies on 2D6 - 1 <= 8,
    P = 30/36: `_state` is 2 (reduced) either way; `_state_detail` is 2 (reduced, good
    order) with P 30/36 and 3 (reduced and disrupted) with 6/36. Hits always disrupt, so a
    unit that neither starts reduced in good order nor rallies has no `_state_detail` (the
    AT platoon at a full tank in a wood, the docs' worked example); a tank starting reduced
    in good order has one: 0 unsaved hits leave it reduced in good order, 1 reduced and
    disrupted, 2 or more eliminated (the single-fire fast path)."""
    p = unit("p", **RIFLES, reduced=True, disrupted=True)
    hexes = [{"name": "w", "units": [p, unit("hq", **HQ)]}]
    sc = from_dict(scenario(hexes, [{"kind": "rally", "units": ["p"]}]))
    ex = sc.exact_pmfs()
    assert np.allclose(ex["p_state"], [0, 0, 1, 0])
    assert np.allclose(ex["p_state_detail"], [0, 0, 30 / 36, 6 / 36, 0])
    out = engine.simulate(sc, trials=1_000_000, seed=29)
    F.check_exact(out.counts, {"p_state_detail": ex["p_state_detail"]}, "rally")
    at = dict(type="infantry", ap=4, ap_plus=True, range=4, to_hit=4)
    sc = from_dict(fire_case(target_kw={**TANK, "type": "afv"}, firer_kw=at))
    assert np.allclose(sc.exact_pmfs()["target_state"], [0.321, 0.265, 0.241, 0.173], atol=5e-4)
    assert "target_state_detail" not in [st.name for st in sc.stats()]
    sc = from_dict(fire_case(target_kw={**TANK, "type": "afv", "reduced": True}, firer_kw=at))
    ex = sc.exact_pmfs()
    uns = ex["unsaved_hits_on_target"]
    want = [0, 0, uns[0], uns[1], uns[2:].sum()]
    assert np.allclose(ex["target_state_detail"], want)
    assert np.allclose(ex["target_state"], [0, 0, uns[0] + uns[1], uns[2:].sum()])
    assert sc.compile().params[-1][0] == 1  # F_ON: the single-fire fast path
    out = engine.simulate(sc, trials=1_000_000, seed=29)
    F.check_exact(out.counts, {"target_state_detail": np.array(want)}, "reduced tank")
    ref = N.simulate(sc, 20_000, seed=29)["target_state_detail"]
    assert chisquare_pmf(ref, want) > P_MIN
