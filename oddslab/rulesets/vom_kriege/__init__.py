"""Vom Kriege (Napoleonic): battle dice, shooting, the melee sequence with reactions, battle
back, retreats, squares and follow-ups, the leader cascade, and command dice.

Two kinds of scenario share ``ruleset = "vom-kriege"``: ``kind = "combat"`` (default; a
sequence of shooting and melee actions, :class:`VomKriegeScenario`) and ``kind = "command"``
(:class:`CommandScenario`: the chance that a command roll can issue a set of orders, exact
with the optimal reroll policy). See ``docs/vom-kriege.md``.
"""

from __future__ import annotations

from oddslab.ruleset import builtin as _builtin
from oddslab.rulesets.vom_kriege.command import CommandScenario, Order, command_points
from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
from oddslab.rulesets.vom_kriege.model import Action, Battery, Dice, Leader, Rules, Unit
from oddslab.rulesets.vom_kriege.reading import from_table
from oddslab.rulesets.vom_kriege.schema import SCHEMA as _SCHEMA
from oddslab.rulesets.vom_kriege.tables import (
    hits_flags_pmf,
    melee_dice,
    shooting_dice,
    square_test_probability,
)

__all__ = [
    "RULESET",
    "VomKriegeScenario",
    "CommandScenario",
    "Unit",
    "Leader",
    "Battery",
    "Action",
    "Rules",
    "Dice",
    "Order",
    "command_points",
    "shooting_dice",
    "melee_dice",
    "hits_flags_pmf",
    "square_test_probability",
    "from_table",
    "WARMUP",
    "WARMUP_COMMAND",
    "WARMUP_SHOT",
    "WARMUPS",
]

#: a tiny combat scenario that compiles the combat kernel (``oddslab warmup vom-kriege``)
WARMUP: dict = {
    "ruleset": "vom-kriege",
    "name": "warm-up",
    "units": {
        "hussars": {"side": "attacker", "troop": "cavalry", "kind": "heavy"},
        "line": {"side": "defender", "troop": "infantry"},
        "guns": {"side": "defender", "troop": "artillery"},
    },
    "actions": [
        {"kind": "melee", "actor": "hussars", "target": "line", "follow_up": "guns"},
    ],
}

#: a tiny command-dice scenario that compiles the command kernel
WARMUP_COMMAND: dict = {
    "ruleset": "vom-kriege",
    "kind": "command",
    "command": {"cp": 2, "leader_quality": 1, "orders": [{"order": "assault"}]},
}

#: a single shot (the fast-path kernel)
WARMUP_SHOT: dict = {
    "ruleset": "vom-kriege",
    "units": {
        "guns": {"side": "attacker", "troop": "artillery"},
        "line": {"side": "defender", "troop": "infantry"},
    },
    "actions": [{"kind": "shoot", "actor": "guns", "target": "line", "range": 6}],
}

#: every kernel this ruleset uses: combat sequence, single shot, command dice
WARMUPS: tuple[dict, ...] = (WARMUP, WARMUP_SHOT, WARMUP_COMMAND)


#: The ruleset object (the :class:`oddslab.ruleset.Ruleset` protocol), registered in the
#: ``oddslab.rulesets`` entry-point group as ``vom-kriege``.
RULESET = _builtin(
    "vom-kriege", "Vom Kriege (Napoleonic)", from_table, Rules, tuple(WARMUPS), keys=_SCHEMA
)
