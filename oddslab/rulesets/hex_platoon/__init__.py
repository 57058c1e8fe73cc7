"""Hex platoon ruleset (``ruleset = "hex-platoon"``): WW2 platoon fire, assault and support.

Ranged and opportunity fire with extended/reduced range, augmented firepower, (s)HQ
leadership and support weapons; concealment; soft and hard saves; disrupt → reduce →
eliminate; morale, command and rally; (s)HQ reduction; assault and overrun; mortars;
artillery missions over 7 hexes; mines; close air support against AA fire. Every rule and
every reading (with its switch) is in ``docs/hex-platoon.md``.
"""

from __future__ import annotations

from oddslab.ruleset import builtin as _builtin
from oddslab.rulesets.hex_platoon.schema import SCHEMA as _SCHEMA

from .compile import STATES, BadInput, HexPlatoonScenario, fire_numbers
from .model import Hex, Rules, Step, SupportWeapon, Unit
from .reading import from_table

__all__ = [
    "RULESET",
    "HexPlatoonScenario",
    "Hex",
    "Unit",
    "SupportWeapon",
    "Step",
    "Rules",
    "STATES",
    "BadInput",
    "fire_numbers",
    "from_table",
    "WARMUP",
]

#: a tiny scenario touching every kernel path (``oddslab warmup hex-platoon``)
WARMUP: dict = {
    "ruleset": "hex-platoon",
    "name": "warm-up",
    "hexes": [
        {
            "name": "A",
            "terrain": "wood",
            "defence": 1,
            "units": [
                {
                    "name": "rifles",
                    "type": "infantry",
                    "he": 3,
                    "range": 4,
                    "to_hit": 5,
                    "assault": 2,
                },
                {"name": "HQ", "type": "hq", "leadership": 1},
            ],
        },
        {
            "name": "B",
            "units": [
                {"name": "mg", "type": "infantry", "he": 2, "range": 6, "to_hit": 5, "assault": 1}
            ],
        },
        {
            "name": "C",
            "units": [{"name": "mortar", "type": "mortar", "he": 2, "range": 10, "to_hit": 5}],
        },
        {
            "name": "sky",
            "units": [
                {"name": "plane", "type": "aircraft", "he": 3, "to_hit": 4, "armor": 1, "save": 5}
            ],
        },
    ],
    "steps": [
        {"kind": "fire", "firer": "mg", "target": "rifles"},
        {"kind": "mortar", "firer": "mortar", "target": "A"},
        {"kind": "artillery", "hexes": ["A", "B"], "firepower": 3, "to_hit": 5},
        {"kind": "move", "stack": "B", "mines": True},
        {"kind": "rally", "stack": "A"},
        {"kind": "command", "stack": "A"},
        {"kind": "clear-mines", "units": ["rifles"]},
        {"kind": "assault", "attacker": "B", "defender": "A"},
        {"kind": "air-strike", "aircraft": "plane", "target": "A"},
    ],
}


#: The ruleset object (the :class:`oddslab.ruleset.Ruleset` protocol), registered in the
#: ``oddslab.rulesets`` entry-point group as ``hex-platoon``.
RULESET = _builtin(
    "hex-platoon", "Hex platoon (WW2 hex and counter)", from_table, Rules, (WARMUP,), keys=_SCHEMA
)
