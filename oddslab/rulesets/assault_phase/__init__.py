"""The assault phase: charges, Initiative-stepped close combat, assault results and morale.

A combat is two :class:`Side` s (attacker = the charging player, defender), each one or more
:class:`Unit` s made of :class:`ModelGroup` s (models sharing a profile). One trial plays
the whole combat: charge (difficult terrain), regroup of a defender caught falling back,
rounds of close combat by Initiative step with casualties removed after each step, the
majority-save procedure for mixed armour, the assault result, the losers' Leadership
tests, fall back, sweeping advance, and further turns while the combat lasts. Every rule
and every assumption is listed in ``docs/assault-phase.md``.

Modules: :mod:`.model` (dataclasses, validation), :mod:`.scenario` (the scenario object),
:mod:`.reading` (TOML -> model),
:mod:`.compile` (model -> arrays, statistics, :class:`~oddslab.engine.Job`),
:mod:`.layout` (array column constants), :mod:`.resolved` (``resolved()``), and the numba
kernels :mod:`.fight` (dice, majorities, saves), :mod:`.step` (one Initiative step) and
:mod:`.kernel` (one whole combat, the per-chunk prologue and trial loop).
"""

from __future__ import annotations

from oddslab.ruleset import builtin as _builtin
from oddslab.rulesets.assault_phase.model import (
    GRENADES,
    WEAPONS,
    ModelGroup,
    Rules,
    Side,
    Unit,
    to_hit,
    to_wound,
)
from oddslab.rulesets.assault_phase.reading import from_table
from oddslab.rulesets.assault_phase.scenario import AssaultScenario
from oddslab.rulesets.assault_phase.schema import SCHEMA as _SCHEMA

#: a tiny valid scenario (as ``tomllib`` would give it) compiling every kernel a real
#: assault uses, with the same array dtypes: ``oddslab warmup assault-phase``
WARMUP: dict = {
    "ruleset": "assault-phase",
    "name": "warm-up",
    "attacker": {"units": [{"name": "A", "groups": [{"name": "a", "count": 2}]}]},
    "defender": {"units": [{"name": "D", "groups": [{"name": "d", "count": 2}]}]},
}

__all__ = [
    "RULESET",
    "WARMUP",
    "AssaultScenario",
    "ModelGroup",
    "Unit",
    "Side",
    "Rules",
    "WEAPONS",
    "GRENADES",
    "to_hit",
    "to_wound",
    "from_table",
]


#: The ruleset object (the :class:`oddslab.ruleset.Ruleset` protocol), registered in the
#: ``oddslab.rulesets`` entry-point group as ``assault-phase``.
RULESET = _builtin(
    "assault-phase",
    "Assault phase",
    from_table,
    Rules,
    (WARMUP,),
    keys=_SCHEMA,
    example_prefix="assault",
)
