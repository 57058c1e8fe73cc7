"""The generic d6 attack pipeline ("mathhammer"): hit, wound, save, damage, feel-no-pain.

Several weapon profiles fire in sequence at one target unit in one trial. Each profile:
attacks (fixed or a dice expression, per model) × models → hit rolls (skill, modifier,
re-rolls, critical hits with sustained hits and/or lethal hits) → wound rolls (fixed
threshold or Strength vs Toughness, re-rolls, critical wounds with devastating wounds) →
saving throws (armour with AP and cover, or invulnerable, whichever is better) → damage
(fixed or dice) → feel-no-pain per damage point → allocation model by model with the chosen
spill rule. See ``docs/generic.md`` for every rule and default.

Modules: ``model`` (dataclasses and validation), ``reading`` (scenario files), ``compile``
(lookup tables, statistics, the Job), ``exact`` (exact PMFs), ``kernel`` (numba).
"""

from oddslab.rulesets.generic.model import (
    REROLL_MODES,
    GenericScenario,
    Rules,
    Target,
    Weapon,
    wound_threshold,
)
from oddslab.rulesets.generic.reading import from_table

__all__ = [
    "GenericScenario",
    "REROLL_MODES",
    "Rules",
    "Target",
    "Weapon",
    "from_table",
    "wound_threshold",
]
