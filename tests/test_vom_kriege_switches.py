"""Every Vom Kriege rule switch, each value, against the naive reference.

The scenarios are those of tests/test_vom_kriege_kernel.py and
tests/test_vom_kriege_melee_readings.py that reach each switch, plus a skirmish and horse
artillery fire. For every value the kernel's whole distribution of every statistic agrees
with ``tests/naive_vom_kriege.py`` (two-sample chi-square, naive run once per session) and,
for a value other than the default, differs from the kernel's answer at the default
(tests/switches.py).
"""

from __future__ import annotations

import naive_vom_kriege as naive
import pytest
from naive_cache import cached_run
from switches import check_switch, counter_counts, switch_params
from test_vom_kriege_kernel import _assault, _cavalry_fight, _charge, _flanks
from test_vom_kriege_melee_readings import _retires, _squares_and_woods, _squares_attack

from oddslab import simulate
from oddslab._schema import ScenarioError
from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
from oddslab.rulesets.vom_kriege.model import Action, Rules, Unit

N_KERNEL = 200_000
N_NAIVE = 2_000
SEED = 27


def assault(rules):
    return _assault(**rules)


def charge(rules):
    return _charge(**rules)


def cavalry_fight(rules):
    return _cavalry_fight(**rules)


def flanks(rules):
    return _flanks(**rules)


def retires(rules):
    return _retires(**{"retire_vs_cavalry": True, **rules})


def squares_and_woods(rules):
    return _squares_and_woods(**rules)


def squares_attack(rules):
    return _squares_attack(**rules)


def fire_rows(rules):
    """Skirmishers at 3-6" (open order: 2 dice by the table), a horse battery at an
    open-order line that is no (sk) unit, an obscured two-rank line with an order bonus
    (halving), then hussars charge the line."""
    units = (
        Unit("jaeger", "attacker", "infantry", kind="light", formation="open_order", skirmish=True),
        Unit("horse guns", "attacker", "artillery", kind="horse"),
        Unit("fusiliers", "attacker", "infantry", formation="two_rank_line"),
        Unit("hus", "attacker", "cavalry"),
        Unit("line", "defender", "infantry"),
        Unit("open", "defender", "infantry", kind="light", formation="open_order"),
    )
    actions = (
        Action("shoot", "jaeger", "line", range=5),
        Action("shoot", "horse guns", "open", range=5),
        Action("shoot", "fusiliers", "line", range=2, order_bonus=True, obscured=True),
        Action("melee", "hus", "line"),
    )
    return VomKriegeScenario(units=units, actions=actions, rules=Rules(**rules))


def melee_extras(rules):
    """Hussars charge through rough ground (disordered before the melee) with a follow-up at
    the guns; grenadiers attack a line that has two supports of its own."""
    units = (
        Unit("hus", "attacker", "cavalry"),
        Unit("gren", "attacker", "infantry", quality="elite"),
        Unit("line", "defender", "infantry", hits=1),
        Unit("guns", "defender", "artillery"),
        Unit("def", "defender", "infantry"),
    )
    actions = (
        Action("melee", "hus", "line", through_rough=True, follow_up="guns"),
        Action("melee", "gren", "def", defender_supports=2, reaction="none"),
    )
    return VomKriegeScenario(units=units, actions=actions, rules=Rules(**rules))


def _kernel(case):
    return lambda rules: simulate(case(rules), trials=N_KERNEL, seed=SEED).counts


def _naive(case):
    run = lambda sc, n, seed: counter_counts(naive.simulate(sc, n, seed))  # noqa: E731
    return lambda rules: cached_run("vom-kriege", case(rules), N_NAIVE, SEED, run)


CASES = [
    (pytest.mark.rule_switch("vom-kriege", "sabers"), ["melee"], assault),
    (pytest.mark.rule_switch("vom-kriege", "or_rows"), ["stack"], assault),
    (pytest.mark.rule_switch("vom-kriege", "artillery_rows"), ["target"], assault),
    (pytest.mark.rule_switch("vom-kriege", "horse_artillery"), ["heavy"], fire_rows),
    (pytest.mark.rule_switch("vom-kriege", "halving"), ["before"], fire_rows),
    (pytest.mark.rule_switch("vom-kriege", "min_dice"), [1], flanks),
    (pytest.mark.rule_switch("vom-kriege", "same_roll_at_max"), ["absorb"], flanks),
    (pytest.mark.rule_switch("vom-kriege", "defensive_fire_flags"), ["ignore"], charge),
    (pytest.mark.rule_switch("vom-kriege", "dice_state"), ["before_melee"], charge),
    (pytest.mark.rule_switch("vom-kriege", "battle_back_supports"), [True], melee_extras),
    (pytest.mark.rule_switch("vom-kriege", "square_may_fire"), [True], charge),
    (pytest.mark.rule_switch("vom-kriege", "counter_charge"), ["simultaneous"], cavalry_fight),
    (pytest.mark.rule_switch("vom-kriege", "retire_vs_cavalry"), [True], assault),
    (pytest.mark.rule_switch("vom-kriege", "disordered_follow_up"), [True], melee_extras),
    (pytest.mark.rule_switch("vom-kriege", "skirmish_dice"), ["one"], fire_rows),
    (pytest.mark.rule_switch("vom-kriege", "square_battle_back"), ["half", "extra_half"], squares_and_woods),
    (pytest.mark.rule_switch("vom-kriege", "rough_charge"), ["stopped"], squares_and_woods),
    (pytest.mark.rule_switch("vom-kriege", "skirmish_target"), ["open_order", "either"], fire_rows),
    (pytest.mark.rule_switch("vom-kriege", "order_support_row"), ["largest"], squares_and_woods),
    (pytest.mark.rule_switch("vom-kriege", "retiring_cavalry_disordered"), [False], retires),
    (pytest.mark.rule_switch("vom-kriege", "blocked_retreat_disorders"), [True], assault),
    (pytest.mark.rule_switch("vom-kriege", "cavalry_square_flags"), ["ignore"], squares_attack),
    (pytest.mark.rule_switch("vom-kriege", "cavalry_square_sabers"), ["attacking"], squares_attack),
]  # fmt: skip


@pytest.mark.parametrize("field, value, default, case", list(switch_params(CASES, Rules())))
def test_switch_value_matches_naive(field, value, default, case):
    check_switch(field, value, default, case.__name__, _kernel(case), _naive(case))


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
    the naive reference). "cavalry": an infantry follow-up after a retire is refused as input,
    and a cavalry follow-up is made as under "any" (bit-identical histograms)."""
    field = "retire_follow_up"
    check_switch(field, "any", "any", "retires", _kernel(retires), _naive(retires))
    with pytest.raises((ScenarioError, ValueError), match="only cavalry"):
        retires({field: "cavalry"})
    case = cavalry_retire
    check_switch(
        field, "cavalry", "any", case.__name__, _kernel(case), _naive(case), equivalent=True
    )
