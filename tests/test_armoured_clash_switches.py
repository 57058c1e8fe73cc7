"""Every armoured-clash rule switch, each value, against both independent references.

The scenarios are those of tests/test_armoured_clash_reference.py that reach each switch
(activations with statuses, close quarters with secondary combatants, opportunity fire at a
transport and an aircraft, a garrison attacking from inside). For every value:

- the kernel's whole distribution of every statistic agrees with the fast numpy reference
  ``tests/fast_armoured_clash.py`` with the power to see a 0.5 pp error in each headline
  statistic, checked on every run (``check_strong`` of tests/test_armoured_clash_reference.py:
  1,000,000 kernel trials, the fast trials the power needs);
- it agrees with the slow pure-Python reference ``tests/naive_armoured_clash.py`` (2,000
  trials, run once per session and kept on disk), and so does the fast reference;
- for a value other than the default, the kernel's answer differs from its answer at the
  default (tests/switches.py), so a kernel that ignores the switch fails.
"""

from __future__ import annotations

import dataclasses

import pytest
from naive_armoured_clash import run as naive_run
from naive_cache import cached_run
from switches import assert_agree, check_switch, naive_once, per_trial_counts, switch_params
from test_armoured_clash_reference import _unit, check_strong, kernel_counts

from oddslab.rulesets.armoured_clash import (
    Armaments,
    ArmouredClashScenario,
    Attack,
    RangedAttack,
    Rules,
    Situation,
    Unit,
)

N_NAIVE = 2_000
SEED = 27


def _rules(rules: dict) -> Rules:
    return dataclasses.replace(Rules(), **rules)


def activations(rules: dict) -> ArmouredClashScenario:
    """x starts suppressed and disordered, shoots, is shot at, shoots again in a new
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
    return ArmouredClashScenario((x, y), attacks, focus="x", rules=_rules(rules))


def charges(rules: dict, suppressed: bool = True) -> ArmouredClashScenario:
    """x charges y, then charges again in its next activation. Suppressed at the start, x
    takes a rally test first (a failed one: no charge). Not suppressed, x may become so by
    losing the first combat, a status gained during the activation (status_expiry)."""
    x = _unit("x", "attacker", 6, defence=1, discipline=5, suppressed=suppressed, vp=5,
              withdraw_losses=1)  # fmt: skip
    y = _unit("y", "defender", 6, defence=1, discipline=6, vp=4, withdraw_losses=1)
    again = Situation(new_activation=True)
    attacks = (Attack("x", "y", kind="close"), Attack("x", "y", kind="close", situation=again))
    return ArmouredClashScenario((x, y), attacks, focus="x", rules=_rules(rules))


def charges_fresh(rules: dict) -> ArmouredClashScenario:
    return charges(rules, suppressed=False)


def close_small(rules: dict) -> ArmouredClashScenario:
    """Small units under a defensive advantage, so a retaliation often annihilates; a
    secondary combatant beside the target."""
    att = _unit("att", "attacker", 3, defence=1, discipline=5, break_limit=1, vp=6,
                withdraw_losses=1)  # fmt: skip
    tgt = _unit("tgt", "defender", 2, defence=1, discipline=4, vp=4, withdraw_losses=1)
    sec = _unit("sec", "defender", 2, defence=1, discipline=5, vp=2)
    sit = Situation(secondary=("sec",), defensive_advantage=True)
    attacks = (Attack("att", "tgt", kind="close", situation=sit),)
    return ArmouredClashScenario((att, tgt, sec), attacks, rules=_rules(rules), focus="att")


def beside_tank(rules: dict) -> ArmouredClashScenario:
    """A charge at a tank (no MELEE score) escorted by infantry (a secondary combatant)."""
    att = _unit("att", "attacker", 6, defence=1, discipline=6, break_limit=1, vp=6)
    tank = Unit("tank", type="armour", category="heavy", models=2, defence=2, damage_limit=2,
                discipline=6, vp=5)  # fmt: skip
    esc = _unit("esc", "defender", 4, defence=1, discipline=6, vp=2)
    attacks = (Attack("att", "tank", kind="close", situation=Situation(secondary=("esc",))),)
    return ArmouredClashScenario((att, tank, esc), attacks, focus="att", rules=_rules(rules))


def opportunity(rules: dict) -> ArmouredClashScenario:
    """Opportunity fire at a suppressed transport (passengers aboard), then at an aircraft."""
    truck = Unit("truck", side="attacker", type="armour", category="heavy", models=3, defence=1,
                 discipline=5, capacity=3, carrying="foot", vp=6, suppressed=True,
                 fall_back_losses=1, break_limit=1)  # fmt: skip
    foot = Unit("foot", side="attacker", models=6, defence=1, discipline=5, break_limit=2, vp=4)
    plane = Unit("plane", side="attacker", type="aircraft", category="aerial", models=2,
                 defence=1, discipline=5, break_limit=1, vp=3)  # fmt: skip
    gun = Armaments(ranged=(RangedAttack("gun", dice=(2, 3, 4, 5), vs=("heavy", "aerial")),))
    flak = _unit("flak", "defender", 4, defence=1, discipline=6, armaments=gun)
    flak2 = _unit("flak2", "defender", 4, defence=1, discipline=6, armaments=gun)
    opp = Situation(opportunity_fire=True)
    attacks = (Attack("flak", "truck", situation=opp), Attack("flak2", "plane", situation=opp))
    units = (truck, foot, plane, flak, flak2)
    return ArmouredClashScenario(units, attacks, rules=_rules(rules))


def transport(rules: dict) -> ArmouredClashScenario:
    """Anti-tank guns shoot a loaded transport twice, in two activations."""
    truck = Unit("truck", type="armour", category="heavy", models=3, defence=2, damage_limit=2,
                 discipline=6, capacity=3, carrying="foot", vp=6)  # fmt: skip
    foot = Unit("foot", models=9, defence=1, discipline=6, break_limit=3, vp=4)
    at = Armaments(ranged=(RangedAttack("at", dice=(3, 5, 7), vs=("heavy",)),))
    guns = _unit("guns", "attacker", 3, defence=2, discipline=7, armaments=at)
    attacks = (
        Attack("guns", "truck", situation=Situation(short_range=True)),
        Attack("guns", "truck", situation=Situation(new_activation=True)),
    )
    return ArmouredClashScenario((guns, truck, foot), attacks, rules=_rules(rules))


def garrison(rules: dict) -> ArmouredClashScenario:
    """A garrison attacks the unit in contact from inside its building, then is shot."""
    g = _unit("g", "attacker", 6, defence=1, discipline=5, garrisoned=True, withdraw_losses=1,
              break_limit=1, vp=3)  # fmt: skip
    t = _unit("t", "defender", 6, defence=1, discipline=6, vp=4, withdraw_losses=1)
    attacks = (
        Attack("g", "t", kind="close", situation=Situation(charge=False)),
        Attack("t", "g"),
    )
    return ArmouredClashScenario((g, t), attacks, focus="g", rules=_rules(rules))


def _kernel(case):
    return lambda rules: kernel_counts(case(rules), SEED)


def _naive(case):
    run = lambda sc, n, seed: per_trial_counts(naive_run(sc, n, seed))  # noqa: E731
    return lambda rules: cached_run("armoured-clash", case(rules), N_NAIVE, SEED, run)


CASES = [
    (pytest.mark.rule_switch("armoured-clash", "embarked_tests"), ["on_fail"], transport),
    (pytest.mark.rule_switch("armoured-clash", "rally_test"), [False], charges),
    (pytest.mark.rule_switch("armoured-clash", "activations"), [False], activations),
    (pytest.mark.rule_switch("armoured-clash", "status_expiry"), ["all"], charges_fresh),
    (pytest.mark.rule_switch("armoured-clash", "secondary_retaliation"), ["always"], beside_tank),
    (pytest.mark.rule_switch("armoured-clash", "cannot_be_suppressed"), ["no_status"], opportunity),
    (pytest.mark.rule_switch("armoured-clash", "retaliation_annihilates"), ["most_kills"], close_small),
    (pytest.mark.rule_switch("armoured-clash", "secondaries_with_advantage"), ["after_charger"], close_small),
    (pytest.mark.rule_switch("armoured-clash", "garrison_exit"), ["when_charged"], garrison),
]  # fmt: skip


@pytest.mark.parametrize("field, value, default, case", list(switch_params(CASES, Rules())))
def test_switch_value_matches_naive(field, value, default, case):
    check_switch(field, value, default, case.__name__, _kernel(case), _naive(case))
    rules = {field: value}
    sc = case(rules)
    [(_, fast)] = check_strong(sc, SEED, f"{case.__name__} with {field}={value!r}").values()
    naive = naive_once((case.__name__, tuple(sorted(rules.items()))), lambda: _naive(case)(rules))
    assert_agree(fast, naive, f"{case.__name__} with {field}={value!r}: fast vs naive reference")
