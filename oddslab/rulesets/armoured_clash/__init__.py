"""Armoured Clash: ranged and close quarters attacks, damage, suppression cascades, VPs.

A scenario is a set of units (profiles with their armaments grids and statuses) and a
sequence of attacks resolved in order in every trial, all sharing the state of the units and
each side's C&C deck (cards drawn without replacement, so the deck carries over from attack
to attack). Every rule, default and assumption is documented in ``docs/armoured-clash.md``.

Modules: ``model`` (die, units), ``situation`` (attack situations, rule switches),
``scenario`` (the scenario object), ``validate`` (whole-scenario checks), ``reading`` (TOML ->
model), ``compile`` (arrays, Job, statistics, exact PMFs), ``layout`` (array columns),
``kernel`` / ``casualties`` (numba).

Example
-------
>>> from oddslab.rulesets.armoured_clash import *
>>> tanks = Unit("tanks", side="attacker", type="armour", category="heavy", models=3,
...              defence=4, damage_limit=3, discipline=7,
...              armaments=Armaments(ranged=(RangedAttack("gun", dice=(4, 7, 10)),)))
>>> foot = Unit("foot", side="defender", models=8, defence=2, discipline=6, break_limit=3)
>>> sc = ArmouredClashScenario(units=(tanks, foot), attacks=(Attack("tanks", "foot"),))
>>> job = sc.compile()
"""

from __future__ import annotations

from oddslab.ruleset import builtin as _builtin
from oddslab.rulesets.armoured_clash.model import (
    CATEGORIES,
    RATINGS,
    UNIT_TYPES,
    Armaments,
    Attack,
    AttackDie,
    RangedAttack,
    Rules,
    Situation,
    Unit,
    attack_pool_pmf,
    combat_rating,
    default_deck,
)
from oddslab.rulesets.armoured_clash.reading import from_table
from oddslab.rulesets.armoured_clash.scenario import ArmouredClashScenario
from oddslab.rulesets.armoured_clash.schema import SCHEMA as _SCHEMA

#: A tiny valid scenario (as ``tomllib`` would give it) that compiles the one Armoured Clash
#: kernel with the dtypes every scenario uses: ``oddslab warmup armoured-clash``.
WARMUP: dict = {
    "ruleset": "armoured-clash",
    "name": "armoured clash warm-up",
    "units": {
        "guns": {
            "side": "attacker",
            "type": "armour",
            "category": "heavy",
            "models": 1,
            "defence": 3,
            "discipline": 7,
            "melee": [1],
            "ranged": [{"name": "gun", "dice": [3]}],
        },
        "foot": {
            "side": "defender",
            "models": 2,
            "defence": 1,
            "discipline": 6,
            "break_limit": 1,
            "melee": [1, 2],
        },
    },
    "attacks": [
        {"attacker": "guns", "target": "foot"},
        {"attacker": "guns", "target": "foot", "kind": "close", "new_activation": True},
    ],
}

__all__ = [
    "RULESET",
    "WARMUP",
    "AttackDie",
    "RangedAttack",
    "Armaments",
    "Unit",
    "Situation",
    "Attack",
    "Rules",
    "ArmouredClashScenario",
    "attack_pool_pmf",
    "combat_rating",
    "default_deck",
    "from_table",
    "UNIT_TYPES",
    "CATEGORIES",
    "RATINGS",
]


#: The ruleset object (the :class:`oddslab.ruleset.Ruleset` protocol), registered in the
#: ``oddslab.rulesets`` entry-point group as ``armoured-clash``.
RULESET = _builtin("armoured-clash", "Armoured Clash", from_table, Rules, (WARMUP,), keys=_SCHEMA)
