"""Every key of a Vom Kriege scenario file, declared once (:mod:`oddslab.keys`).

A file is a combat (``kind = "combat"``, the default) or a command-dice roll
(``kind = "command"``): the two kinds are variants of one schema. Reading and validation
(:mod:`.reading`), the JSON Schema (``oddslab schema vom-kriege``) and the key table in
``docs/vom-kriege.md`` all come from :data:`SCHEMA`. Checks between keys (a unit's kind for
its troop, a leader's side, names an action refers to, cp against units) are the model's,
:mod:`.validate`'s and the readers'.
"""

from __future__ import annotations

from typing import Any

from oddslab._schema import Table
from oddslab.keys import REQUIRED, Key, Schema, Section, run_keys
from oddslab.rulesets.vom_kriege.layout import (
    DEFAULT_FACES,
    FORMATIONS,
    QUALITIES,
    REACTIONS,
    SIDES,
    SYMBOLS,
    TERRAINS,
    TROOPS,
)
from oddslab.rulesets.vom_kriege.model import Rules
from oddslab.rulesets.vom_kriege.orders import ORDERS, SABER_READINGS

__all__ = ["SCHEMA", "read_leader_quality"]

KINDS_OF_SCENARIO = ("combat", "command")


def read_leader_quality(tbl: Table, key: str) -> int:
    """A leader's quality: 0-3 or "L0"-"L3"."""
    q = tbl.raw(key)
    if isinstance(q, str) and q.upper() in ("L0", "L1", "L2", "L3"):
        q = int(q[1])
    if isinstance(q, bool) or not isinstance(q, int) or not 0 <= q <= 3:
        raise tbl.error(key, f'expected 0-3 or "L0"-"L3", got {q!r}')
    return q


_QUALITY_JSON = {
    "anyOf": [
        {"type": "integer", "minimum": 0, "maximum": 3},
        {"type": "string", "pattern": "^[lL][0-3]$"},
    ]
}


def _quality(name: str, help_: str) -> Key:
    return Key(
        name, "custom", 1, help_, what='0-3 or "L0"-"L3"',
        custom=(read_leader_quality, _QUALITY_JSON),
    )  # fmt: skip


def _read_saber_wild(tbl: Table, key: str) -> str:
    if isinstance(tbl.raw(key), bool):
        raise tbl.error(
            key,
            f"expected one of {', '.join(SABER_READINGS)} (the old true is now "
            '"any_symbol", false "assault_only")',
        )
    return tbl.str(key, choices=SABER_READINGS)


def _flag(name: str, help_: str) -> Key:
    return Key(name, "bool", False, help_)


def _supports(name: str, help_: str) -> Key:
    return Key(name, "int", 0, help_, 0, 6, unit="units")


_DICE = Section(
    "dice",
    (
        Key(
            "faces", "str_list", DEFAULT_FACES, "the die's faces (2 to 20)",
            what=f"a list of face symbols among {', '.join(SYMBOLS)}",
        ),
    ),
    "command and battle dice (default: the text's die)",
)  # fmt: skip

_UNIT = Section(
    "units",
    (
        Key(
            "side", "str", REQUIRED, "the active (initiative) player is the attacker", choices=SIDES
        ),
        Key("troop", "str", REQUIRED, "troop type", choices=TROOPS),
        Key("kind", "str", "", "unit type (default: line / light / heavy by troop)"),
        Key("quality", "str", "regular", "quality", choices=QUALITIES),
        _flag("skirmish", "an (sk) unit: may use skirmish fire (infantry)"),
        Key("guns", "int", 6, "artillery battery size", 6, 8),
        Key("strength", "int", None, "maximum hits (default: from the text)", 1, 10),
        Key("hits", "int", 0, "hits already taken", 0, 10),
        _flag("disordered", "disordered"),
        Key(
            "formation",
            "str",
            None,
            "formation (default: line; artillery unlimbered)",
            choices=FORMATIONS,
        ),
        Key("terrain", "str", "open", "where the unit stands", choices=TERRAINS),
        _flag("shooting_marker", "it has already fired this initiative"),
        Key("leader", "str", None, "its command (division) leader: a leader of its side"),
        _flag("retreat_blocked", "impassable terrain or the table edge behind it"),
    ),
    "one table per unit, [units.NAME]",
    mapping=True,
    required=True,
)

_LEADER = Section(
    "leaders",
    (
        Key("side", "str", REQUIRED, "the leader's side", choices=SIDES),
        _quality("quality", "leader quality"),
        Key("hits", "int", 0, "hits already taken", 0, 2),
        Key(
            "units",
            "int",
            None,
            "units in the whole command (default: the units naming it)",
            0,
            100,
        ),
        _flag("army", "the army leader (one per side)"),
        Key("with_unit", "str", None, "a unit of its side it stands with"),
    ),
    "one table per leader, [leaders.NAME]",
    mapping=True,
)

_BATTERY = Section(
    "batteries",
    (
        Key("unit", "str", REQUIRED, "a defending artillery unit"),
        Key("range", "float", 3.0, "its range to the charger", 0.1, 24.0, unit="inches"),
    ),
    "defending artillery firing at the charger before contact",
    array=True,
)

_ACTION = Section(
    "actions",
    (
        Key("kind", "str", REQUIRED, "shoot or melee", choices=("shoot", "melee")),
        Key("actor", "str", REQUIRED, "the attacking unit"),
        Key("target", "str", REQUIRED, "the defending unit (a melee's may be a leader)"),
        Key("range", "float", 3.0, "shooting range", 0.1, 24.0, unit="inches"),
        _flag("order_bonus", "a doubled order: shoot or melee with +1"),
        _supports("supports", "fire-support or melee-support units"),
        _flag("enfilade", "the target is enfiladed"),
        _flag("obscured", "visible to less than half the shooter's front stands"),
        Key("reaction", "str", "auto", "the defender's reaction", choices=REACTIONS),
        _BATTERY,
        _flag("flank", "attack on the flank or rear: no battle back"),
        _flag("uphill", "the defender is uphill of the attacker"),
        _flag("through_rough", "a cavalry charge through rough terrain"),
        _supports("defender_supports", "used only with rules.battle_back_supports"),
        Key("follow_up", "str", None, "the second target of a melee follow-up"),
        Key("follow_up_reaction", "str", "auto", "its reaction", choices=REACTIONS),
        _supports("follow_up_supports", "the second melee's supports"),
        _flag("follow_up_flank", "the second melee is on the flank or rear"),
    ),
    "the actions, in order",
    array=True,
    required=True,
    min_len=1,
)

#: one line of help per rule switch (docs/vom-kriege.md, "Readings and switches")
_RULE_HELP = {
    "sabers": "where sabers score: shooting and melee, or melee only",
    "or_rows": 'rows of the pattern "X, or Y or Z | -1 -2"',
    "artillery_rows": "artillery-target rows read by who fires, or by the target",
    "horse_artillery": "horse artillery's fire points",
    "halving": "halve after or before the adjustments",
    "halving_floor": "a halved count is never below 1, or only a positive count is halved",
    "same_roll_at_max": "flags and hits in the roll that brings a unit to maximum",
    "defensive_fire_flags": "flags from defensive fire",
    "dice_state": "dice from the unit's state when it rolls, or before the melee",
    "counter_charge": "how a counter-charge resolves",
    "skirmish_dice": "skirmish fire dice: the table's, or one",
    "square_battle_back": "a square's battle back against cavalry",
    "rough_charge": "cavalry charging through rough terrain",
    "skirmish_target": "what a skirmish target is",
    "skirmish_range": 'the range of the "skirmish at 3"-6"" row',
    "order_support_row": "the order bonus and supports row",
    "retire_follow_up": "who may follow up after a retire",
    "cavalry_square_flags": "cavalry's flags against a square",
    "cavalry_square_sabers": "cavalry battling back against a square",
    "leader_with_unit": "a leader standing with the charged unit",
    "battle_back_supports": "defender_supports count when battling back",
    "square_may_fire": "a square also fires",
    "retire_vs_cavalry": "units may retire from cavalry too",
    "disordered_follow_up": "a disordered unit may follow up",
    "retiring_cavalry_disordered": "retiring cavalry is disordered",
    "blocked_retreat_disorders": "a blocked retreat disorders",
    "min_dice": "at least this many dice for shooting and melee (0 or 1)",
}

_DEFAULT_RULES = Rules()
_RULES = Section(
    "rules",
    (
        *(
            Key(k, "str", getattr(_DEFAULT_RULES, k), _RULE_HELP[k], choices=v, switch=True)
            for k, v in Rules.CHOICES.items()
        ),
        Key("min_dice", "int", 0, _RULE_HELP["min_dice"], 0, 1, switch=True),
        *(
            Key(k, "bool", getattr(_DEFAULT_RULES, k), _RULE_HELP[k], switch=True)
            for k in Rules.FLAGS
        ),
    ),
    "readings of the text (docs/vom-kriege.md, Readings and switches)",
)

_ORDER = Section(
    "orders",
    (
        Key("order", "str", REQUIRED, "the order", choices=tuple(ORDERS)),
        _flag("double", "a doubled order (two symbols)"),
        _flag("far", "a unit far from its leader"),
        _flag("against_doctrine", "an order against doctrine"),
        _flag("disordered", "a disordered unit"),
    ),
    "the orders wanted, in order",
    array=True,
    required=True,
    min_len=1,
)

_COMMAND = Section(
    "command",
    (
        Key("units", "int", None, "the command's units (for the base CP)", 1, 100),
        Key("bonus", "int", 0, "bonus markers", 0, 6),
        Key("leader_hits", "int", 0, "hits on the leader", 0, 2),
        Key("cp", "int", None, "command points (instead of units)", 1, 6),
        _quality("leader_quality", "the leader's quality (re-rolls)"),
        _ORDER,
        Key(
            "saber_wild",
            "custom",
            "order",
            "what a saber stands for",
            switch=True,
            what="string: " + ", ".join(SABER_READINGS),
            custom=(_read_saber_wild, {"type": "string", "enum": list(SABER_READINGS)}),
        ),
        Key(
            "reroll",
            "str",
            "together",
            "re-rolled dice: chosen together or one by one",
            choices=("together", "sequential"),
            switch=True,
        ),
        Key("policy", "str", "optimal", "which dice to re-roll", choices=("optimal", "simple")),
        Key(
            "pair_substitution",
            "bool",
            True,
            "any pair of dice may become one die of the player's choice",
            switch=True,
        ),
    ),
    "the command roll",
    required=True,
)

_ROOT_ITEMS: tuple[Any, ...] = (
    *run_keys("vom-kriege", None),
    Key("kind", "str", "combat", "a combat, or a command-dice roll", choices=KINDS_OF_SCENARIO),
    _DICE,
)

#: The keys of a ``vom-kriege`` scenario file.
SCHEMA = Schema(
    "vom-kriege",
    Section(
        "",
        _ROOT_ITEMS,
        variants=(
            (
                "combat",
                (
                    _RULES,
                    _UNIT,
                    _LEADER,
                    _ACTION,
                    Key(
                        "focus_attacker",
                        "str",
                        None,
                        "whose fate the statistics report (attacker side)",
                    ),
                    Key(
                        "focus_defender",
                        "str",
                        None,
                        "whose fate the statistics report (defender side)",
                    ),
                ),
            ),
            ("command", (_COMMAND,)),
        ),
    ),
    title="oddslab scenario (vom-kriege)",
)
