"""The generic d6 attack pipeline ("mathhammer"): hit, wound, save, damage, feel-no-pain.

Several weapon profiles fire in sequence at one target unit in one trial. Each profile:
attacks (fixed or a dice expression, per model) × models → hit rolls (skill, modifier,
re-rolls, critical hits with sustained hits and/or lethal hits) → wound rolls (fixed
threshold or Strength vs Toughness, re-rolls, critical wounds with devastating wounds) →
saving throws (armour with AP and cover, or invulnerable, whichever is better) → damage
(fixed or dice) → feel-no-pain per damage point → allocation model by model with the chosen
spill rule. See ``docs/generic.md`` for every rule and default.

Modules: ``model`` (dataclasses and validation), ``target`` (the target unit and the
attacker's situation), ``keywords`` (weapon keywords as printed), ``reading`` (scenario files), ``compile``
(lookup tables, statistics, the Job), ``resolved`` (the inputs as read, for people),
``exact`` (static PMFs), ``chain`` (exact allocation to models), ``kernel`` (numba).
"""

from oddslab.ruleset import builtin as _builtin
from oddslab.rulesets.generic.model import (
    DAMAGE_REROLL_MODES,
    DEVASTATING_RULES,
    REROLL_MODES,
    SAVE_REROLL_MODES,
    GenericScenario,
    ModelGroup,
    Rules,
    Situation,
    Target,
    Weapon,
    wound_threshold,
)
from oddslab.rulesets.generic.reading import from_table
from oddslab.rulesets.generic.schema import SCHEMA as _SCHEMA

#: a tiny valid scenario (as ``tomllib`` would give it) that compiles every generic kernel
#: with the dtypes a real scenario uses: ``simulate(from_dict(WARMUP), trials=1)``
WARMUP: dict = {
    "ruleset": "generic",
    "name": "generic warm-up",
    "attacker": {"weapons": [{"attacks": 2, "damage": "D3", "devastating_wounds": True}]},
    "target": {"models": 2, "wounds": 2, "feel_no_pain": 6},
}

__all__ = [
    "RULESET",
    "DAMAGE_REROLL_MODES",
    "DEVASTATING_RULES",
    "GenericScenario",
    "ModelGroup",
    "REROLL_MODES",
    "SAVE_REROLL_MODES",
    "WARMUP",
    "Rules",
    "Situation",
    "Target",
    "Weapon",
    "from_table",
    "wound_threshold",
]


#: The ruleset object (the :class:`oddslab.ruleset.Ruleset` protocol), registered in the
#: ``oddslab.rulesets`` entry-point group as ``generic``.
RULESET = _builtin(
    "generic", "Generic d6 attack pipeline", from_table, Rules, (WARMUP,), keys=_SCHEMA
)
