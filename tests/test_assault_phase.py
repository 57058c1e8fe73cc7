"""Assault-phase ruleset: exact PMF of one Initiative step, the rule text's worked examples
replayed die by die, full combats against the fast and the pure-Python references, and bad
input.

Tolerances: chi-square p > 1e-4 (tests/stats.py; two-sample and Bonferroni-corrected against
the references, tests/switches.py), with the power to see a 0.5 percentage-point error
checked on the run.
"""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from oddslab import engine, scenario
from oddslab.rulesets.assault_phase import (
    AssaultScenario,
    ModelGroup,
    Rules,
    Side,
    Unit,
    to_hit,
    to_wound,
)
from oddslab.scenario import ScenarioError
from tests import fast_assault_phase as fast
from tests import naive_assault_phase as naive
from tests.assault_phase_exact import MARGIN, assert_exact, trials_for
from tests.naive_cache import cached_run
from tests.stats import P_MIN
from tests.switches import (
    assert_agree,
    assert_power,
    homogeneity_p,
    per_trial_counts,
    planted_shift,
)

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("assault-*.toml"))


def one_vs_one(att: list[ModelGroup], dfn: list[ModelGroup], **unit_kw) -> AssaultScenario:
    a_kw = {
        k: v for k, v in unit_kw.items() if k in ("grenades", "fired", "difficult_terrain_distance")
    }
    d_kw = {k: v for k, v in unit_kw.items() if k in ("in_cover", "falling_back")}
    return AssaultScenario(
        Side("A", (Unit("Attackers", tuple(att), **a_kw),)),
        Side("D", (Unit("Defenders", tuple(dfn), **d_kw),)),
        Rules(),
    )


# -- charts -----------------------------------------------------------------------------------


def test_standard_charts():
    assert [to_hit(4, d) for d in (3, 4, 8, 9)] == [3, 4, 4, 5]
    assert [to_wound(s, 4) for s in (8, 6, 5, 4, 3, 2, 1)] == [2, 2, 3, 4, 5, 6, 6]
    assert to_wound(1, 5) == 7  # S <= T - 4 cannot wound


# -- one Initiative step against an exact PMF -------------------------------------------------


def _p_unsaved_per_attack() -> Fraction:
    """Brute force over the three dice of one attack (WS4 v WS3: 3+; S4 v T3: 3+; rending;
    armour 4+, invulnerable 5+)."""
    total = Fraction(0)
    for h, w, s in itertools.product(range(1, 7), repeat=3):
        if h == 6:  # rending: wound, no armour save, invulnerable 5+ still allowed
            unsaved = s < 5
        else:
            unsaved = h >= 3 and w >= 3 and s < 4
        total += Fraction(int(unsaved), 216)
    return total


def test_one_initiative_step_matches_binomial():
    """20 rending attacks into 40 defenders who cannot strike back: no casualty interaction,
    so unsaved wounds ~ Binomial(20, p) and hits ~ Binomial(20, 2/3). Seed 7, the trials a
    0.5 pp error needs (tests/assault_phase_exact.py)."""
    from scipy.stats import binom

    att = [ModelGroup("Wyches", 10, ws=4, s=4, t=3, i=6, a=2, rending=True)]
    dfn = [ModelGroup("Guard", 40, ws=3, s=3, t=3, i=3, a=0, save=4, invulnerable=5)]
    sc = one_vs_one(att, dfn, fired=True)  # fired: no +1 charge attack
    # trapped: a guard unit that breaks is destroyed outright, so no sweeping advance adds dice
    d_unit = Unit("Defenders", tuple(dfn), trapped=True)
    sc = AssaultScenario(sc.attacker, Side("D", (d_unit,)), Rules())
    p = float(_p_unsaved_per_attack())
    assert p == pytest.approx(60 / 216, abs=1e-15)
    pmfs = {
        "unsaved_wounds_on_defender": binom.pmf(np.arange(21), 20, p),
        "hits_on_defender": binom.pmf(np.arange(21), 20, 4 / 6),
    }
    out = engine.simulate(sc, trials=max(map(trials_for, pmfs.values())), seed=7)
    assert out.probs["attacker_attacks_made"][20] == 1.0
    for stat, pmf in pmfs.items():
        assert_exact(out.counts[stat], pmf, stat)
    # inflicted = unsaved = slain when every wound lands on a one-wound model in reach
    assert np.array_equal(
        out.counts["unsaved_wounds_on_defender"][:21], out.counts["defender_models_lost"][:21]
    )


def test_charge_through_difficult_terrain_matches_exact():
    """Two charging units, 5" and 4" of difficult terrain: the combat happens unless both
    fail, P = 1 - (16/36)(9/36). Chi-square, seed 3, the trials a 0.5 pp error needs."""
    units = tuple(
        Unit(f"U{d}", (ModelGroup("m", 1, a=0),), difficult_terrain_distance=d, fired=True)
        for d in (5, 4)
    )
    sc = AssaultScenario(Side("A", units), Side("D", (Unit("D", (ModelGroup("d", 1, a=0),)),)))
    exact = sc.exact_pmfs()["attacker_charged"]
    assert exact[1] == pytest.approx(1 - 16 / 36 * 9 / 36, abs=1e-15)
    out = engine.simulate(sc, trials=trials_for(exact), seed=3)
    assert_exact(out.counts["attacker_charged"], exact, "attacker_charged")
    assert sc.compile().exact()["attacker_charged"][1] == exact[1]


# -- worked examples from the text, die by die -------------------------------------------------


def _retinue() -> list[ModelGroup]:
    return [
        ModelGroup("Incubi", 4, ws=5, s=3, t=3, i=5, a=0, ld=9, save=3),
        ModelGroup("Warriors", 6, ws=4, s=3, t=3, i=5, a=0, ld=8, save=5),
    ]


def test_incubi_and_warriors_majority_saves():
    """'four Incubi (Sv3+) and six warriors (Sv5+) suffer eight wounds ... six armour save
    rolls are attempted, four fail and four of the Warriors are removed ... the Incubi are now
    in the majority and the remaining two hits are saved against using their 3+ save.'"""
    att = [ModelGroup("Hellions", 2, ws=4, s=3, t=3, i=4, a=3)]  # 2 x (3 + 1 charge) attacks
    sc = one_vs_one(att, _retinue())
    hits = [6] * 8
    wounds = [6] * 8
    saves = [1, 1, 1, 1, 5, 6] + [3, 4]  # six at 5+ (four fail), then two at 3+
    r = sc.run_with_dice(hits + wounds + saves)
    assert r["dice_used"] >= 22
    assert r["defender.Defenders.Warriors.models_lost"] == 4
    assert r["defender.Defenders.Incubi.models_lost"] == 0
    assert r["unsaved_wounds_on_defender"] == 4
    # the third save die is a 3: at 5+ (wrong majority) it would have failed
    r = sc.run_with_dice(hits + wounds + [1, 1, 1, 1, 5, 6] + [3, 2])
    assert r["defender.Defenders.Incubi.models_lost"] == 1


def test_archon_retinue_special_attacks_first():
    """'four power weapon hits and four normal hits. The six warriors ... suffer the four
    power weapon hits with no save allowed. Two more hits can be saved against however and
    one is made, resulting in one more casualty ... the remaining two hits carry over and
    now the Incubi are in the majority ... 3+.'"""
    att = [
        ModelGroup("Normal", 1, ws=4, s=3, t=3, i=4, a=3),
        ModelGroup("Power", 1, ws=4, s=3, t=3, i=4, a=3, weapon="power-weapon"),
    ]
    sc = one_vs_one(att, _retinue())
    dice = [6] * 4 + [6] * 4 + [6] * 4 + [6] * 4  # Normal: hits, wounds; Power: hits, wounds
    dice += [5, 1]  # the batch of six: four power wounds (no save, no dice), two at 5+
    dice += [3, 2]  # carried over: Incubi majority, 3+
    r = sc.run_with_dice(dice)
    assert r["defender.Defenders.Warriors.models_lost"] == 5
    assert r["defender.Defenders.Incubi.models_lost"] == 1
    assert r["unsaved_wounds_on_defender"] == 6
    assert r["dice_used"] >= 20


def _fist_duel() -> AssaultScenario:
    att = [ModelGroup("Sergeant", 1, ws=4, s=4, t=4, i=4, a=1, save=3, weapon="power-fist")]
    dfn = [ModelGroup("Marine", 1, ws=4, s=4, t=4, i=4, a=1, save=3)]
    return one_vs_one(att, dfn)


def test_power_fist_strikes_at_initiative_one():
    """The marine (I4) strikes before the power fist (always I1); slain, the sergeant does not
    strike back."""
    r = _fist_duel().run_with_dice([4, 4, 1])  # hit 4+, wound 4+, armour save 3+ fails
    assert r["attacker_models_lost"] == 1
    assert r["attacker_attacks_made"] == 0
    assert r["defender_won_assault"] == 1 and r["attacker_destroyed"] == 1


def test_power_fist_doubles_strength_and_ignores_armour():
    """S4 doubled to S8 against T4 wounds on 2+; no armour save is rolled."""
    r = _fist_duel().run_with_dice([1] + [4, 4] + [1, 2])  # marine misses; 2 fist attacks
    assert r["attacker_attacks_made"] == 2  # 1 + 1 for charging
    assert r["wounds_on_defender"] == 1  # the 1 fails, the 2 wounds on 2+
    assert r["defender_models_lost"] == 1 and r["attacker_won_assault"] == 1
    # the marine's 3+ armour save is never rolled: morale dice follow straight away
    assert r["dice_used"] == 5


def test_lightning_claws_reroll_failed_wounds_and_ignore_armour():
    """A pair of claws: +1 attack (3 with the charge); failed wound rolls re-rolled once
    (after the first wound rolls); no armour save against the 2+ armoured target."""
    att = [ModelGroup("Claws", 1, ws=4, s=4, t=4, i=4, a=1, weapon="lightning-claws")]
    dfn = [ModelGroup("Terminator", 1, ws=4, s=4, t=4, w=3, i=1, a=0, save=2)]
    r = one_vs_one(att, dfn).run_with_dice([4, 4, 4] + [1, 1, 4] + [4, 1])
    assert r["attacker_attacks_made"] == 3
    assert r["wounds_on_defender"] == 2 and r["defender_wounds_lost"] == 2
    assert r["defender_models_lost"] == 0  # W3 survives two wounds


@pytest.mark.parametrize(
    ("grenades", "dice", "attacker_attacks_made", "defender_models_lost", "attacker_models_lost"),
    [
        ("none", [6, 6], 0, 0, 1),  # cover: the I1 defender strikes first, kills the charger
        ("frag", [6, 6, 6, 6, 6, 6], 2, 1, 1),  # frag: simultaneous, both die
        ("plasma", [6, 6, 6, 6], 2, 1, 0),  # plasma: Initiative order, the I5 charger first
    ],
)
def test_cover_strikes_first(
    grenades, dice, attacker_attacks_made, defender_models_lost, attacker_models_lost
):
    att = [ModelGroup("Striker", 1, ws=4, s=4, t=4, i=5, a=1)]
    dfn = [ModelGroup("Guard", 1, ws=3, s=3, t=3, i=1, a=1)]
    sc = one_vs_one(att, dfn, grenades=grenades, in_cover=True)
    r = sc.run_with_dice(dice)
    assert r["attacker_attacks_made"] == attacker_attacks_made
    assert r["attacker_models_lost"] == attacker_models_lost
    assert r["defender_models_lost"] == defender_models_lost
    assert r["dice_used"] == len(dice)


def test_cover_only_in_the_first_turn():
    """Second turn: no cover, no charge bonus (I5 striker attacks once, before the guard)."""
    att = [ModelGroup("Striker", 1, ws=4, s=4, t=4, i=5, a=1)]
    dfn = [ModelGroup("Guard", 1, ws=3, s=3, t=3, i=1, a=1)]
    sc = one_vs_one(att, dfn, in_cover=True)
    sc = AssaultScenario(sc.attacker, sc.defender, Rules(max_turns=2))
    # turn 1: guard misses (1); striker's two attacks miss (1, 1): draw
    # turn 2: striker one attack first: hit 6, wound 6 -> guard slain
    r = sc.run_with_dice([1, 1, 1, 6, 6])
    assert r["assault_drawn"] == 1
    assert r["attacker_attacks_made"] == 3
    assert r["combat_ended_turn"] == 2 and r["attacker_won_fight"] == 1


def test_charge_through_difficult_terrain_fails_when_short():
    att = [ModelGroup("Striker", 1, a=1)]
    dfn = [ModelGroup("Guard", 1, a=1)]
    sc = one_vs_one(att, dfn, difficult_terrain_distance=5)
    r = sc.run_with_dice([4, 3])  # highest 4 < 5
    assert r["attacker_charged"] == 0 and r["assault_drawn"] == 0 and r["dice_used"] == 2
    r = sc.run_with_dice([2, 5, 1, 1, 1])  # highest 5: charge goes in
    assert r["attacker_charged"] == 1


# -- full combats against the pure-Python reference (tests/naive_assault_phase.py) ------------


def _from_naive(att: list[naive.Group], dfn: list[naive.Group]) -> AssaultScenario:
    def unit(name: str, groups: list[naive.Group]) -> Unit:
        return Unit(
            name,
            tuple(
                ModelGroup(
                    g.name,
                    g.count,
                    ws=g.ws,
                    s=g.s,
                    t=g.t,
                    i=g.i,
                    a=g.a,
                    ld=g.ld,
                    save=g.save,
                    two_weapons=g.two_weapons,
                    weapon="power-fist" if g.power_fist else "none",
                )  # fmt: skip
                for g in groups
            ),
        )

    return AssaultScenario(Side("A", (unit("Att", att),)), Side("D", (unit("Def", dfn),)))


def _tiny() -> tuple[list[naive.Group], list[naive.Group]]:
    att = [
        naive.Group("Marines", 2, ws=4, s=4, t=4, i=4, a=1, ld=8, save=3),
        naive.Group("Sarge", 1, ws=4, s=4, t=4, i=4, a=2, ld=9, save=3, power_fist=True),
    ]
    dfn = [
        naive.Group("Gaunts", 4, ws=3, s=3, t=3, i=3, a=1, ld=7, save=5),
        naive.Group("Leader", 1, ws=3, s=3, t=3, i=3, a=1, ld=8, save=5),
    ]
    return att, dfn


def _ws_tie() -> tuple[list[naive.Group], list[naive.Group]]:
    """Gretchin charge a unit with no majority WS type (1 × WS1, 2 × WS5, 2 × WS4): hit on
    3+ against the lowest WS1 while the grot (the first casualty) lives, then 4+ (WS4)."""
    att = [naive.Group("Gretchin", 6, ws=2, s=3, t=3, i=4, a=1, ld=6, save=6)]
    dfn = [
        naive.Group("Grot", 1, ws=1, s=3, t=3, i=2, a=1, ld=7, save=6),
        naive.Group("Vets", 2, ws=5, s=3, t=3, i=2, a=1, ld=7, save=6),
        naive.Group("Regs", 2, ws=4, s=3, t=3, i=2, a=1, ld=7, save=6),
    ]
    return att, dfn


_SHAPES = {"tiny": _tiny, "benchmark": naive.benchmark_sides, "ws-tie": _ws_tie}


#: fast-reference trials per shape: a 0.5 pp error in a headline statistic fails the comparison
#: with the kernel's 1,000,000 trials (``PYTHONPATH=.:tests python tests/test_assault_phase.py``
#: prints the trials each shape needs, from expected counts with a margin on p, see needed)
FAST_TRIALS = {"tiny": 450_000, "benchmark": 750_000, "ws-tie": 400_000}
#: as in tests/test_naive_power.py
HEADLINE = ("attacker_won_assault", "defender_models_lost")
N_KERNEL = 1_000_000
N_NAIVE = 20_000


def _kernel_counts(sc: AssaultScenario) -> dict[str, np.ndarray]:
    out = engine.simulate(sc, trials=N_KERNEL, seed=11)
    return {k: np.asarray(v) for k, v in out.counts.items()}


@pytest.mark.statistical
@pytest.mark.parametrize("shape", list(_SHAPES))
def test_full_combat_matches_references(shape):
    """The kernel (1,000,000 trials, seed 11) against the fast numpy reference
    (tests/fast_assault_phase.py, ``FAST_TRIALS``, seed 5): every statistic both report,
    whole distributions (two-sample chi-square, Bonferroni, tests/switches.py), and a 0.5 pp
    error in a headline statistic would fail (``assert_power``, on these runs). Then the
    pure-Python reference (20,000 trials, seed 5, kept in tests/naive_cache.py) against
    both: the slow reference of the cascade agrees with the kernel and with the fast one.
    The benchmark combat's kernel is compared with 250,000 pure-Python trials in
    tests/test_naive_power.py, so it is not run here again at 20,000."""
    att, dfn = _SHAPES[shape]()
    sc = _from_naive(att, dfn)
    kernel = _kernel_counts(sc)
    ref = fast.simulate(sc, FAST_TRIALS[shape], seed=5)
    assert set(kernel) == set(ref), sorted(set(kernel) ^ set(ref))
    assert_agree(kernel, ref, f"{shape}: kernel v fast reference")
    assert_power({k: kernel[k] for k in HEADLINE}, ref, shape, k=len(kernel))
    if shape == "benchmark":
        return

    def naive_run(sides, trials, seed):
        return per_trial_counts(naive.run(*sides, trials, seed=seed))

    slow = cached_run("assault-phase", (att, dfn), N_NAIVE, 5, naive_run)
    assert_agree(kernel, slow, f"{shape}: kernel v naive reference")
    assert_agree(ref, slow, f"{shape}: fast v naive reference")


#: a combat of three turns: 2 charging models (WS4 S4 T4 I4 A1 Ld8 4+) v 2 (WS3 S3 T3 I5 A1
#: Ld7 5+), the whole turn of tests/test_assault_phase_hand.py fought on while drawn or held
MULTI_TURN_HEADLINE = ("attacker_won_fight", "defender_models_lost", "combat_ended_turn")
MULTI_TURN_FAST_TRIALS = 650_000


def _multi_turn() -> AssaultScenario:
    from tests.test_assault_phase_hand import exact_turn_scenario

    return dataclasses.replace(exact_turn_scenario(), rules=Rules(max_turns=3))


@pytest.mark.statistical
def test_multi_turn_combat_matches_fast_reference():
    """Further turns (no charge bonus, the assault result of each turn's wounds, morale,
    fall back and sweeps in any turn, the fight won, the turn the combat ended): the kernel
    (1,000,000 trials, seed 11) against the fast reference (``MULTI_TURN_FAST_TRIALS``,
    seed 5), every statistic, with the power to see a 0.5 pp error in the headline ones. The
    pure-Python reference plays one turn only."""
    sc = _multi_turn()
    kernel = _kernel_counts(sc)
    ref = fast.simulate(sc, MULTI_TURN_FAST_TRIALS, seed=5)
    assert set(kernel) == set(ref), sorted(set(kernel) ^ set(ref))
    assert_agree(kernel, ref, "three turns: kernel v fast reference")
    assert_power({k: kernel[k] for k in MULTI_TURN_HEADLINE}, ref, "three turns", k=len(kernel))


def needed(shape: str) -> int | None:
    """Fast-reference trials a 0.5 pp error in each headline statistic needs (expected
    counts from a kernel run, the margin of tests/assault_phase_exact.py on the Bonferroni
    p-value: about two standard errors against the runs' own noise)."""
    if shape == "three turns":
        kernel, headline = _kernel_counts(_multi_turn()), MULTI_TURN_HEADLINE
    else:
        kernel, headline = _kernel_counts(_from_naive(*_SHAPES[shape]())), HEADLINE
    for n in range(50_000, 2_000_001, 50_000):
        ps = [
            homogeneity_p(planted_shift(kernel[s]), kernel[s] / kernel[s].sum() * n) * len(kernel)
            for s in headline
        ]
        if max(ps) < P_MIN / MARGIN:
            return n
    return None


# -- examples and bad input --------------------------------------------------------------------


def test_examples_load_and_run():
    assert len(EXAMPLES) >= 3
    for path in EXAMPLES:
        out = engine.simulate(scenario.load(path), trials=20_000, seed=1)
        assert out.trials == 20_000


BASE = {
    "ruleset": "assault-phase",
    "attacker": {"units": [{"name": "A", "groups": [{"name": "a", "count": 2}]}]},
    "defender": {"units": [{"name": "D", "groups": [{"name": "d", "count": 2}]}]},
}


def _with(path: list, value) -> dict:
    import copy

    data = copy.deepcopy(BASE)
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "match"),
    [
        (
            ["attacker", "units", 0, "groups", 0, "weapon"],
            "chainsaw",
            r"attacker\.units\[0\]\.groups\[0\]\.weapon",
        ),
        (["attacker", "units", 0, "groups", 0, "ws"], 11, r"attacker\.units\[0\]\.groups\[0\]\.ws"),
        (
            ["defender", "units", 0, "groups", 0, "supporting"],
            2,
            r"defender\.units\[0\]\.groups\[0\]\.supporting",
        ),
        (
            ["attacker", "units", 0, "groups", 0, "target"],
            "Nobody",
            r"attacker\.units\[0\]\.groups\[0\]\.target",
        ),
        (
            ["attacker", "units", 0, "difficult_terrain_distance"],
            7,
            r"attacker\.units\[0\]\.difficult_terrain_distance",
        ),
        (["defender", "units", 0, "grenades"], "frag", r"defender\.units\[0\]\.grenades"),
        (["rules"], {"max_turns": 0}, r"rules\.max_turns"),
        (["rules"], {"unit_ld": "highest"}, r"rules\.unit_ld"),
    ],
)
def test_bad_input_names_the_key(path, value, match):
    with pytest.raises(ScenarioError, match=match):
        scenario.from_dict(_with(path, value), source="bad.toml")


def test_single_lightning_claw_with_two_weapons_is_rejected():
    data = _with(["attacker", "units", 0, "groups", 0, "weapon"], "lightning-claw")
    data["attacker"]["units"][0]["groups"][0]["two_weapons"] = True
    with pytest.raises(ScenarioError, match=r"groups\[0\]\.two_weapons"):
        scenario.from_dict(data, source="bad.toml")


if __name__ == "__main__":
    for name in [*_SHAPES, "three turns"]:
        print(f"{name}: {needed(name)} fast-reference trials", flush=True)
