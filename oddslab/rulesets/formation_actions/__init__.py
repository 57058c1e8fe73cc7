"""Formation actions: strategy roll, action tests, retaining the initiative, Shock, rallying.

A tempo game rather than a damage one: two armies of formations take turns to pass action
tests over N turns; failed tests give Shock, Shock breaks formations, the end phase rallies
them. Rules, readings and switches: ``docs/formation-actions.md``.
"""

from __future__ import annotations

from oddslab.ruleset import builtin as _builtin
from oddslab.rulesets.formation_actions.chain import (
    ChainResult,
    formation_chain,
    formation_state,
    pass_chances,
    strategy_probs,
    strategy_turn_probs,
    strategy_wins_pmf,
)
from oddslab.rulesets.formation_actions.compile import FormationActionsScenario
from oddslab.rulesets.formation_actions.curves import (
    army_summary,
    formation_summary,
    plot_broken_by_turn,
    turn_curves,
)
from oddslab.rulesets.formation_actions.model import Army, Formation, OutsideShock, Rules
from oddslab.rulesets.formation_actions.reading import from_table
from oddslab.rulesets.formation_actions.schema import SCHEMA as _SCHEMA

__all__ = [
    "RULESET",
    "Army",
    "ChainResult",
    "Formation",
    "FormationActionsScenario",
    "OutsideShock",
    "Rules",
    "WARMUP",
    "army_summary",
    "formation_chain",
    "formation_state",
    "formation_summary",
    "from_table",
    "pass_chances",
    "plot_broken_by_turn",
    "strategy_probs",
    "strategy_turn_probs",
    "strategy_wins_pmf",
    "turn_curves",
]

#: A tiny valid scenario (as ``tomllib`` would give it) that compiles the one kernel every
#: formation-actions scenario uses (same dtypes: int64 tables, float64 CDF table).
WARMUP: dict = {
    "ruleset": "formation-actions",
    "name": "warm-up",
    "turns": 2,
    "armies": {
        "blue": {
            "strategy": 3,
            "retain": "always",
            "formations": {
                "a": {"command": 4, "units": 2, "outside_shock": [0.5, 0.5]},
                "b": {"command": 3, "units": 2, "outside_shock": "D3-2"},
            },
        },
        "red": {"strategy": 3, "formations": {"c": {"command": 4, "units": 2}}},
    },
}


#: The ruleset object (the :class:`oddslab.ruleset.Ruleset` protocol), registered in the
#: ``oddslab.rulesets`` entry-point group as ``formation-actions``.
RULESET = _builtin(
    "formation-actions", "Formation actions (tempo)", from_table, Rules, (WARMUP,), keys=_SCHEMA
)
