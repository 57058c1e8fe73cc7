"""Armoured Clash kernel vs the slow pure-Python reference (tests/naive_armoured_clash.py).

Every reported statistic of each scenario is compared: the whole distribution by a two-sample
chi-square (tests/switches.py) and the mean by z-score (|z| < 5, standard errors of both
estimates combined) between 400,000 kernel trials and 8,000 reference trials at fixed seeds. The scenarios exercise activations (statuses
expiring, rally tests), close quarters with secondary combatants and defensive advantage,
transports, garrisons, fall backs and breaks, and the shipped examples.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from naive_armoured_clash import run as naive_run
from stats import Z_MAX
from switches import assert_agree, per_trial_counts

from oddslab.engine import simulate
from oddslab.rulesets.armoured_clash import (
    Armaments,
    ArmouredClashScenario,
    Attack,
    RangedAttack,
    Rules,
    Situation,
    Unit,
)
from oddslab.scenario import load

ROOT = Path(__file__).resolve().parent.parent
N_KERNEL = 400_000
N_NAIVE = 8_000


def _compare(sc, seed):
    """Every statistic the kernel reports: the whole distribution against the reference's
    (two-sample chi-square, tests/switches.py), and the means within 5 standard errors."""
    out = simulate(sc, trials=N_KERNEL, seed=seed)
    rows = naive_run(sc, N_NAIVE, seed)
    kernel = dict(out.counts)
    assert_agree(kernel, per_trial_counts(rows), getattr(sc, "name", "ac"))
    checked = 0
    for name in out.counts:
        ref = np.array([r[name] for r in rows], dtype=float)
        c = out.counts[name]
        v = np.arange(len(c))
        mean = float((c * v).sum() / N_KERNEL)
        var_k = float((c * (v - mean) ** 2).sum() / N_KERNEL)
        se = np.sqrt(var_k / N_KERNEL + max(ref.var(), 1e-12) / N_NAIVE)
        if var_k == 0 and ref.var() == 0:
            assert mean == ref.mean(), (name, mean, ref.mean())
        else:
            z = (ref.mean() - mean) / max(se, 1e-9)
            assert abs(z) < Z_MAX, (name, ref.mean(), mean, z)
        checked += 1
    assert checked >= 5


def _unit(name, side, models, **kw):
    dice = tuple(range(1, models + 1))
    kw.setdefault("armaments", Armaments(ranged=(RangedAttack("rifles", dice=dice),), melee=dice))
    return Unit(name, side=side, models=models, **kw)


def test_activations_and_status_expiry():
    """x starts suppressed and disordered, shoots, is shot at, then shoots again in a new
    activation (a rally test each time); y takes cover, fires opportunity fire, then shoots."""
    x = _unit("x", "attacker", 8, defence=1, discipline=6, suppressed=True, disordered=True,
              break_limit=2, vp=5)  # fmt: skip
    y = _unit("y", "defender", 6, defence=1, discipline=6, taking_cover=True, vp=4,
              fall_back_losses=1)  # fmt: skip
    attacks = (
        Attack("y", "x", situation=Situation(opportunity_fire=True)),
        Attack("x", "y", situation=Situation(aiming=True, concealed=True)),
        Attack("y", "x"),
        Attack("x", "y", situation=Situation(new_activation=True)),
    )
    _compare(ArmouredClashScenario((x, y), attacks, focus="x"), seed=101)
    _compare(
        ArmouredClashScenario((x, y), attacks, focus="y", rules=Rules(status_expiry="all")), 102
    )


def close_quarters() -> ArmouredClashScenario:
    """Close quarters with a secondary combatant and a defensive advantage (also the
    ruleset's strong case in tests/test_naive_power.py)."""
    att = _unit("att", "attacker", 6, defence=2, damage_limit=2, discipline=7, break_limit=1,
                vp=6, withdraw_losses=1)  # fmt: skip
    tgt = _unit("tgt", "defender", 4, defence=2, discipline=6, break_limit=1, vp=4,
                withdraw_losses=1)  # fmt: skip
    sec = _unit("sec", "defender", 3, defence=1, discipline=5, vp=2, suppressed=True)
    sit = Situation(secondary=("sec",), defensive_advantage=True, outflanking=True)
    return ArmouredClashScenario(
        (att, tgt, sec), (Attack("att", "tgt", kind="close", situation=sit),)
    )


def test_close_quarters_with_secondary_and_defensive_advantage():
    sc = close_quarters()
    _compare(sc, seed=103)
    sc_a = ArmouredClashScenario(sc.units, sc.attacks, focus="att")
    _compare(sc_a, seed=104)


@pytest.mark.parametrize(
    "annihilates, secondaries",
    [
        ("most_kills", "with_target"),
        ("action_ends", "after_charger"),
        ("most_kills", "after_charger"),
    ],
)
def test_close_quarters_under_the_other_readings(annihilates, secondaries):
    """Small units, so that a retaliation often annihilates: with and without a defensive
    advantage, a secondary combatant striking with the target or after the charger."""
    att = _unit("att", "attacker", 3, defence=1, discipline=5, break_limit=1, vp=6,
                withdraw_losses=1)  # fmt: skip
    tgt = _unit("tgt", "defender", 2, defence=1, discipline=4, vp=4, withdraw_losses=1)
    sec = _unit("sec", "defender", 2, defence=1, discipline=5, vp=2)
    rules = Rules(retaliation_annihilates=annihilates, secondaries_with_advantage=secondaries)
    for i, adv in enumerate((True, False)):
        sit = Situation(secondary=("sec",), defensive_advantage=adv)
        attacks = (Attack("att", "tgt", kind="close", situation=sit),)
        _compare(ArmouredClashScenario((att, tgt, sec), attacks, rules=rules), seed=120 + i)
        sc = ArmouredClashScenario((att, tgt, sec), attacks, rules=rules, focus="att")
        _compare(sc, seed=122 + i)


def test_close_quarters_flags_carried_to_the_retaliation():
    """The charger supported (so the target's retaliation is threatened, a secondary's not);
    then a retaliation said to be supported (so the charger is threatened)."""
    att = _unit("att", "attacker", 6, defence=1, discipline=7, break_limit=1, vp=6)
    tgt = _unit("tgt", "defender", 4, defence=1, discipline=6, vp=4, withdraw_losses=1)
    sec = _unit("sec", "defender", 3, defence=1, discipline=5, vp=2)
    sit = Situation(secondary=("sec",), supported=True)
    sc = ArmouredClashScenario(
        (att, tgt, sec), (Attack("att", "tgt", kind="close", situation=sit),), focus="att"
    )
    _compare(sc, seed=108)
    sit2 = Situation(defender_supported=True, outflanking=True)
    _compare(
        ArmouredClashScenario((att, tgt), (Attack("att", "tgt", kind="close", situation=sit2),)),
        seed=109,
    )


@pytest.mark.parametrize("rule", ["with_target", "always"])
def test_secondaries_beside_a_target_without_melee(rule):
    att = _unit("att", "attacker", 6, defence=1, discipline=6, break_limit=1, vp=6)
    tank = Unit("tank", type="armour", category="heavy", models=2, defence=2, damage_limit=2,
                discipline=6, vp=5)  # fmt: skip
    esc = _unit("esc", "defender", 4, defence=1, discipline=6, vp=2)
    sit = Situation(secondary=("esc",))
    sc = ArmouredClashScenario(
        (att, tank, esc),
        (Attack("att", "tank", kind="close", situation=sit),),
        focus="att",
        rules=Rules(secondary_retaliation=rule),
    )
    _compare(sc, seed=110)


@pytest.mark.parametrize("rule", ["no_test", "no_status"])
def test_opportunity_fire_and_aircraft_under_either_reading(rule):
    """Opportunity fire at a suppressed transport (passengers aboard) that activates, then at
    an aircraft with a BREAK LIMIT."""
    truck = Unit("truck", side="attacker", type="armour", category="heavy", models=3, defence=1,
                 discipline=5, capacity=3, carrying="foot", vp=6, suppressed=True,
                 fall_back_losses=1, break_limit=1)  # fmt: skip
    foot = Unit("foot", side="attacker", models=6, defence=1, discipline=5, break_limit=2, vp=4)
    plane = Unit("plane", side="attacker", type="aircraft", category="aerial", models=2,
                 defence=1, discipline=5, break_limit=1, vp=3)  # fmt: skip
    flak = _unit("flak", "defender", 4, defence=1, discipline=6,
                 armaments=Armaments(ranged=(RangedAttack("gun", dice=(2, 3, 4, 5),
                                                          vs=("heavy", "aerial")),)))  # fmt: skip
    flak2 = Unit("flak2", **{k: getattr(flak, k) for k in ("models", "defence", "discipline")},
                 armaments=flak.armaments)  # fmt: skip
    opp = Situation(opportunity_fire=True)
    # one unit on lookout each: opportunity fire ends the status
    attacks = (Attack("flak", "truck", situation=opp), Attack("flak2", "plane", situation=opp))
    rules = Rules(cannot_be_suppressed=rule)
    units = (truck, foot, plane, flak, flak2)
    _compare(ArmouredClashScenario(units, attacks, rules=rules), seed=111)
    _compare(ArmouredClashScenario(units, attacks, rules=rules, focus="plane"), seed=112)


def test_transport_garrison_and_random_officer():
    truck = Unit("truck", type="armour", category="heavy", models=3, defence=2, damage_limit=2,
                 discipline=6, capacity=3, carrying="foot", vp=6)  # fmt: skip
    foot = Unit("foot", models=9, defence=1, discipline=6, break_limit=3, officer="random", vp=4)
    guns = _unit("guns", "attacker", 3, defence=2, discipline=7,
                 armaments=Armaments(ranged=(RangedAttack("at", dice=(3, 5, 7), vs=("heavy",)),)))  # fmt: skip
    garr = _unit("garr", "defender", 6, defence=1, discipline=6, garrisoned=True, vp=3)
    attacks = (
        Attack("guns", "truck", situation=Situation(short_range=True)),
        Attack("guns", "truck", situation=Situation(new_activation=True)),
    )
    _compare(ArmouredClashScenario((guns, truck, foot, garr), attacks), seed=105)
    storm = _unit("storm", "attacker", 8, defence=1, discipline=7)
    _compare(
        ArmouredClashScenario((storm, garr), (Attack("storm", "garr", kind="close"),)), seed=106
    )


@pytest.mark.parametrize("rule", ["any_loss", "when_charged"])
def test_garrison_attacking_from_inside_then_shot(rule):
    """A garrison attacks the unit in contact from inside its building and often loses (it
    exits, or under "when_charged" withdraws), then that unit fires at it."""
    g = _unit("g", "attacker", 6, defence=1, discipline=5, garrisoned=True, withdraw_losses=1,
              break_limit=1, vp=3)  # fmt: skip
    t = _unit("t", "defender", 6, defence=1, discipline=6, vp=4, withdraw_losses=1)
    attacks = (
        Attack("g", "t", kind="close", situation=Situation(charge=False)),
        Attack("t", "g"),
    )
    rules = Rules(garrison_exit=rule)
    _compare(ArmouredClashScenario((g, t), attacks, focus="g", rules=rules), seed=130)


@pytest.mark.parametrize(
    "path", sorted(ROOT.glob("examples/armoured-clash-*.toml")), ids=lambda p: p.stem
)
def test_examples_match_the_reference(path):
    _compare(load(path), seed=107)


def test_garrison_exit_and_repeated_activations():
    """A garrison exits (reforming) and fires with all its models; return fire then finds it
    outside the building; a suppressed unit fires in two activations (``repeat``), rallying
    at the start of each."""
    g = _unit("g", "attacker", 6, defence=2, discipline=6, garrisoned=True, vp=3)
    t = _unit("t", "defender", 8, defence=1, discipline=6, break_limit=2, vp=4)
    attacks = (
        Attack("g", "t", situation=Situation(reforming=True)),
        Attack("t", "g", situation=Situation(short_range=True)),
    )
    _compare(ArmouredClashScenario((g, t), attacks), seed=108)
    s = _unit("s", "attacker", 4, defence=2, discipline=6, suppressed=True)
    again = Attack("s", "t", situation=Situation(new_activation=True))
    _compare(ArmouredClashScenario((s, t), (Attack("s", "t"), again)), seed=109)
