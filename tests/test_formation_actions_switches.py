"""Every formation-actions rule switch, each value, against the naive reference.

One mixed game (both armies retaining, outside Shock of every kind, a suppressed and a broken
formation, formations that break) reaches every switch. For every value the kernel's whole
distribution of every statistic agrees with ``tests/naive_formation_actions.py`` (two-sample
chi-square, naive games played once per session) and, for a value other than the default,
differs from the kernel's answer at the default (tests/switches.py).
"""

from __future__ import annotations

import dataclasses

import pytest
from naive_cache import cached_run
from switches import check_switch, counts_of, switch_params

from oddslab import simulate
from oddslab.dice import DiceExpr
from oddslab.rulesets.formation_actions import (
    Army,
    Formation,
    FormationActionsScenario,
    OutsideShock,
    Rules,
)
from tests import naive_formation_actions as naive

N_KERNEL = 200_000
N_NAIVE = 1_500
SEED = 27


def mixed(rules: dict) -> FormationActionsScenario:
    """Two turns; blue retains always, red when the chance is good; outside Shock from dice, a
    fixed point and a table; a suppressed and a broken formation at the start; command 6
    (only a natural six can fail) and formations one Shock point from breaking."""
    blue = (
        Formation("hq", command=6, units=2),
        Formation(
            "a",
            command=4,
            units=3,
            shock=1,
            outside_shock=OutsideShock(dice=DiceExpr.parse("D3-1")),
        ),
        Formation(
            "b", command=6, units=3, suppressed=1, broken=True, outside_shock=OutsideShock(fixed=1)
        ),
        Formation("c", command=3, units=2, outside_shock=OutsideShock(table=(0.5, 0.5))),
    )
    red = (
        Formation("hq", command=7, units=2),
        Formation("x", command=3, units=3, suppressed=1),
        Formation("z", command=2, units=2, shock=1),
    )
    armies = (
        Army("blue", blue, strategy=3, retain="always"),
        Army("red", red, strategy=3, retain="if-chance", retain_chance=0.5, choose="second"),
    )
    return FormationActionsScenario(armies, 2, dataclasses.replace(Rules(), **rules))


def _kernel(rules):
    return simulate(mixed(rules), trials=N_KERNEL, seed=SEED).counts


def _naive(rules):
    def run(sc, n, seed):
        return {k: counts_of(v) for k, v in naive.simulate(sc, n, seed).items()}

    return cached_run("formation-actions", mixed(rules), N_NAIVE, SEED, run)


START = {"outside_timing": "start-of-turn"}

CASES = [
    (
        pytest.mark.rule_switch("formation-actions", "action_penalty"),
        ["shock", "either", "both"],
        None,
    ),
    (pytest.mark.rule_switch("formation-actions", "natural_one_passes"), [True], None),
    (pytest.mark.rule_switch("formation-actions", "natural_six_fails"), [True], None),
    (pytest.mark.rule_switch("formation-actions", "rally_action_penalty"), [True], None),
    (pytest.mark.rule_switch("formation-actions", "retain_limit"), ["once-per-turn"], None),
    (pytest.mark.rule_switch("formation-actions", "withdrawal"), ["removed"], None),
    # Shock rises in the action phase only on the formation's own failed test, after it acted:
    # breaking then or at the end phase differs when outside Shock lands at the start of turn
    (pytest.mark.rule_switch("formation-actions", "break_check"), ["end-phase"], START),
    (pytest.mark.rule_switch("formation-actions", "outside_timing"), ["start-of-turn"], None),
    (pytest.mark.rule_switch("formation-actions", "first_turn_tie"), ["blue", "red"], None),
]


@pytest.mark.parametrize("field, value, default, extra", list(switch_params(CASES, Rules())))
def test_switch_value_matches_naive(field, value, default, extra):
    check_switch(field, value, default, "mixed", _kernel, _naive, extra_rules=extra)
