"""Every Vom Kriege rule switch, each value, against the reference's exact distribution.

The scenarios are those of tests/test_vom_kriege_kernel.py and
tests/test_vom_kriege_melee_readings.py that reach each switch, or the part of one that
reaches it (the whole has too many rolls to enumerate, or costs seconds to), plus skirmish and
horse artillery fire: each reaches the general kernel. For every value the kernel's whole
distribution of every statistic (``N_KERNEL`` trials) agrees with the exact distribution of
``tests/naive_vom_kriege.py`` (every roll's outcomes enumerated, tests/exact_vom_kriege.py;
chi-square, Bonferroni over the statistics), the comparison is checked to fail had the kernel
moved 0.5 pp of any statistic between neighbouring outcomes, and, for a value other than the
default, the kernel's answer differs from its answer at the default (tests/switches.py).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from exact_vom_kriege import assert_exact, exact_pmfs
from switches import assert_differs, kernel_once, switch_params
from test_vom_kriege_kernel import _cavalry_fight, _charge, _flanks
from test_vom_kriege_melee_readings import _squares_attack

from oddslab import simulate
from oddslab._schema import ScenarioError
from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
from oddslab.rulesets.vom_kriege.model import Action, Rules, Unit

N_KERNEL = 1_000_000
SEED = 27


def assault(rules):
    """The assault of tests/test_vom_kriege_kernel.py, its battery's shot and the grenadiers'
    melee (without its order bonus and supports): guns at a blocked line in fieldworks, then
    an elite column attacks it uphill."""
    units = (
        Unit("battery", "attacker", "artillery", guns=8, kind="heavy"),
        Unit("grenadiers", "attacker", "infantry", quality="elite", formation="column"),
        Unit("line", "defender", "infantry", terrain="fieldworks", retreat_blocked=True),
    )
    actions = (
        Action("shoot", "battery", "line", range=5),
        Action("melee", "grenadiers", "line", uphill=True),
    )
    return VomKriegeScenario(units=units, actions=actions, rules=Rules(**rules))


def assault_retire(rules):
    """The assault's last melee: lancers charge a skirmish screen that retires (from cavalry
    only under ``retire_vs_cavalry``), with a follow-up at the shaken line in fieldworks."""
    units = (
        Unit("hussars", "attacker", "cavalry", kind="lancers"),
        Unit(
            "jaegers", "defender", "infantry", kind="light", formation="open_order", skirmish=True
        ),
        Unit("line", "defender", "infantry", terrain="fieldworks", retreat_blocked=True, hits=2),
    )
    actions = (Action("melee", "hussars", "jaegers", reaction="retire", follow_up="line"),)
    return VomKriegeScenario(units=units, actions=actions, rules=Rules(**rules))


def charge(rules):
    """The charge of tests/test_vom_kriege_kernel.py (cuirassiers with the order bonus and a
    support at a line, a battery joining the defensive fire) without its follow-up, whose
    rolls are too many to enumerate under some readings."""
    sc = _charge(**rules)
    return replace(sc, actions=(replace(sc.actions[0], follow_up=None),))


def cavalry_fight(rules):
    return _cavalry_fight(**rules)


def flanks(rules):
    return _flanks(**rules)


def retires(rules):
    """The first melee of the retires scenario of tests/test_vom_kriege_melee_readings.py:
    infantry contacts cavalry that retires (``retire_vs_cavalry``), then follows up at
    shaken grenadiers."""
    units = (
        Unit("inf", "attacker", "infantry"),
        Unit("cav", "defender", "cavalry", hits=1),
        Unit("gren", "defender", "infantry", quality="elite", hits=2),
    )
    act = Action("melee", "inf", "cav", reaction="retire", follow_up="gren",
                 follow_up_reaction="none")  # fmt: skip
    return VomKriegeScenario(
        units=units, actions=(act,), rules=Rules(**{"retire_vs_cavalry": True, **rules})
    )


def squares(rules):
    """The squares-and-woods scenario's charge at a square: hussars (1 hit) charge an elite
    square that fires at them."""
    units = (
        Unit("hus", "attacker", "cavalry", hits=1),
        Unit("sq", "defender", "infantry", formation="square", quality="elite"),
    )
    actions = (Action("melee", "hus", "sq", reaction="defensive_fire"),)
    return VomKriegeScenario(units=units, actions=actions, rules=Rules(**rules))


def woods(rules):
    """The squares-and-woods scenario's wood: guns with the order bonus and a support fire at
    (sk) infantry in woods, then heavy cavalry charges it (rough terrain)."""
    units = (
        Unit("guns", "attacker", "artillery", kind="light", guns=8),
        Unit("drag", "attacker", "cavalry", kind="heavy"),
        Unit("wood", "defender", "infantry", terrain="woods", skirmish=True, hits=1),
    )
    actions = (
        Action("shoot", "guns", "wood", range=5, order_bonus=True, supports=1),
        Action("melee", "drag", "wood", order_bonus=True, supports=1, reaction="none"),
    )
    return VomKriegeScenario(units=units, actions=actions, rules=Rules(**rules))


def squares_attack(rules):
    return _squares_attack(**rules)


def fire_line(rules):
    """Skirmishers in open order at 3-6" (2 dice by the table), then an obscured two-rank
    line with an order bonus (halving) fire at a line."""
    units = (
        Unit("jaeger", "attacker", "infantry", kind="light", formation="open_order", skirmish=True),
        Unit("fusiliers", "attacker", "infantry", formation="two_rank_line"),
        Unit("line", "defender", "infantry"),
    )
    actions = (
        Action("shoot", "jaeger", "line", range=5),
        Action("shoot", "fusiliers", "line", range=2, order_bonus=True, obscured=True),
    )
    return VomKriegeScenario(units=units, actions=actions, rules=Rules(**rules))


def fire_open(rules):
    """A horse battery at an open-order line that is no (sk) unit (the focus), and
    skirmishers at another line."""
    units = (
        Unit("horse guns", "attacker", "artillery", kind="horse"),
        Unit("jaeger", "attacker", "infantry", kind="light", formation="open_order", skirmish=True),
        Unit("open", "defender", "infantry", kind="light", formation="open_order"),
        Unit("line", "defender", "infantry"),
    )
    actions = (
        Action("shoot", "horse guns", "open", range=5),
        Action("shoot", "jaeger", "line", range=5),
    )
    return VomKriegeScenario(units=units, actions=actions, rules=Rules(**rules))


def rough_follow_up(rules):
    """Hussars charge a line through rough ground (disordered before the melee) with a
    follow-up at the guns."""
    units = (
        Unit("hus", "attacker", "cavalry"),
        Unit("line", "defender", "infantry", hits=1),
        Unit("guns", "defender", "artillery"),
    )
    actions = (Action("melee", "hus", "line", through_rough=True, follow_up="guns"),)
    return VomKriegeScenario(units=units, actions=actions, rules=Rules(**rules))


def supported_defence(rules):
    """Elite grenadiers attack a line that has two supports of its own."""
    units = (
        Unit("gren", "attacker", "infantry", quality="elite"),
        Unit("def", "defender", "infantry"),
    )
    actions = (Action("melee", "gren", "def", defender_supports=2, reaction="none"),)
    return VomKriegeScenario(units=units, actions=actions, rules=Rules(**rules))


def check(field, value, default, case, equivalent=False):
    """The kernel at ``field = value`` in ``case`` against the reference's exact distribution
    with the power check (:func:`exact_vom_kriege.assert_exact`), and (``value != default``)
    its answer differs from the default's; with ``equivalent`` (a value shown to change no
    number) the kernel's histograms at both values are bit-identical for the seed instead."""

    def run(rules):
        key = (case.__name__, tuple(sorted(rules.items())))
        return kernel_once(key, lambda: simulate(case(rules), trials=N_KERNEL, seed=SEED).counts)

    k = run({field: value})
    assert_exact(k, exact_pmfs(case({field: value})), f"{case.__name__} with {field}={value!r}")
    if value == default:
        return
    k0 = run({field: default})
    if equivalent:
        for name in k0:
            np.testing.assert_array_equal(k[name], k0[name], err_msg=f"{case.__name__}: {name}")
    else:
        assert_differs(k, k0, f"{case.__name__}: {field}={value!r} against {default!r}")


CASES = [
    (pytest.mark.rule_switch("vom-kriege", "sabers"), ["melee"], assault),
    (pytest.mark.rule_switch("vom-kriege", "or_rows"), ["stack"], assault),
    (pytest.mark.rule_switch("vom-kriege", "artillery_rows"), ["target"], assault),
    (pytest.mark.rule_switch("vom-kriege", "horse_artillery"), ["heavy"], fire_open),
    (pytest.mark.rule_switch("vom-kriege", "halving"), ["before"], fire_line),
    (pytest.mark.rule_switch("vom-kriege", "min_dice"), [1], flanks),
    (pytest.mark.rule_switch("vom-kriege", "same_roll_at_max"), ["absorb"], flanks),
    (pytest.mark.rule_switch("vom-kriege", "defensive_fire_flags"), ["ignore"], charge),
    (pytest.mark.rule_switch("vom-kriege", "dice_state"), ["before_melee"], charge),
    (pytest.mark.rule_switch("vom-kriege", "battle_back_supports"), [True], supported_defence),
    (pytest.mark.rule_switch("vom-kriege", "square_may_fire"), [True], charge),
    (pytest.mark.rule_switch("vom-kriege", "counter_charge"), ["simultaneous"], cavalry_fight),
    (pytest.mark.rule_switch("vom-kriege", "retire_vs_cavalry"), [True], assault_retire),
    (pytest.mark.rule_switch("vom-kriege", "disordered_follow_up"), [True], rough_follow_up),
    (pytest.mark.rule_switch("vom-kriege", "skirmish_dice"), ["one"], fire_line),
    (pytest.mark.rule_switch("vom-kriege", "square_battle_back"), ["half", "extra_half"], squares),
    (pytest.mark.rule_switch("vom-kriege", "rough_charge"), ["stopped"], woods),
    (pytest.mark.rule_switch("vom-kriege", "skirmish_target"), ["open_order", "either"], fire_open),
    (pytest.mark.rule_switch("vom-kriege", "order_support_row"), ["largest"], woods),
    (pytest.mark.rule_switch("vom-kriege", "retiring_cavalry_disordered"), [False], retires),
    (pytest.mark.rule_switch("vom-kriege", "blocked_retreat_disorders"), [True], assault),
    (pytest.mark.rule_switch("vom-kriege", "cavalry_square_flags"), ["ignore"], squares_attack),
    (pytest.mark.rule_switch("vom-kriege", "cavalry_square_sabers"), ["attacking"], squares_attack),
]  # fmt: skip


@pytest.mark.parametrize("field, value, default, case", list(switch_params(CASES, Rules())))
def test_switch_value_matches_the_exact_reference(field, value, default, case):
    check(field, value, default, case)


def cavalry_retire(rules):
    """Hussars charge a screen that retires from cavalry; they follow up at the battery."""
    units = (
        Unit("hus", "attacker", "cavalry"),
        Unit("screen", "defender", "infantry", kind="light", formation="open_order"),
        Unit("bat", "defender", "artillery"),
    )
    act = Action("melee", "hus", "screen", reaction="retire", follow_up="bat")
    return VomKriegeScenario(
        units=(units), actions=(act,), rules=Rules(retire_vs_cavalry=True, **rules)
    )


@pytest.mark.rule_switch("vom-kriege", "retire_follow_up")
def test_retire_follow_up():
    """ "any" (default): infantry follows up after a retire (the retires scenario, against
    the reference's exact distribution). "cavalry": an infantry follow-up after a retire is refused as input,
    and a cavalry follow-up is made as under "any" (bit-identical histograms)."""
    field = "retire_follow_up"
    check(field, "any", "any", retires)
    with pytest.raises((ScenarioError, ValueError), match="only cavalry"):
        retires({field: "cavalry"})
    check(field, "cavalry", "any", cavalry_retire, equivalent=True)
