"""Every key of a hex-platoon scenario file, declared once (:mod:`oddslab.keys`).

Reading and validation (:mod:`.reading`), the JSON Schema (``oddslab schema hex-platoon``) and
the key table in ``docs/hex-platoon.md`` all come from :data:`SCHEMA`. Checks between keys
(one HQ per hex, support weapons on infantry only, an artillery mission's hexes and
firepower, names a step refers to) are the reader's and :mod:`.validate`'s.
"""

from __future__ import annotations

from dataclasses import fields

from oddslab.keys import REQUIRED, Key, Schema, Section, run_keys
from oddslab.rulesets.hex_platoon.model import (
    BANDS,
    RULE_CHOICES,
    STEP_KINDS,
    TERRAINS,
    TYPES,
    Rules,
)

__all__ = ["SCHEMA", "STEP_KEYS"]

_TO_HIT = "a To Hit number from 1 to 7"


def _dice(name: str, help_: str) -> Key:
    return Key(name, "int", 0, help_, 0, 30, unit="dice")


def _flag(name: str, help_: str, default: bool = False) -> Key:
    return Key(name, "bool", default, help_)


_SUPPORT = Section(
    "support",
    (
        Key("name", "str", None, "the weapon's name (default: support weapon 1, 2, ...)"),
        _dice("he", "HE firepower"),
        _dice("ap", "AP firepower"),
        Key("range", "int", 0, "range", 0, 30, unit="hexes"),
        _flag("augmented", "augmented (+)"),
    ),
    "support weapons of an infantry platoon",
    array=True,
)

_UNIT = Section(
    "units",
    (
        Key("name", "str", None, "unique in the scenario; names statistics (default: unit N)"),
        Key("type", "str", "infantry", "class", choices=TYPES),
        _dice("he", "firepower against soft targets (High Explosive)"),
        _dice("ap", "firepower against hard targets (Armor Piercing)"),
        _dice("aa", "blue (anti-aircraft) firepower"),
        Key("range", "int", 0, "range", 0, 30, unit="hexes"),
        _dice("armor", "armor factor"),
        _dice("leadership", "(s)HQ leadership"),
        _flag("he_plus", "HE firepower augmented (+)"),
        _flag("ap_plus", "AP firepower augmented (+)"),
        _flag("aa_plus", "blue firepower augmented (+)"),
        _flag("range_underlined", "underlined range: no extended or reduced range"),
        _flag("assault_counter_only", "* : may counter-attack, not initiate"),
        _flag("assault_plus", "+ after the Assault factor"),
        _flag("reduced", "starts reduced"),
        _flag("disrupted", "starts disrupted"),
        _flag("ops_complete", "starts with an Ops Complete marker"),
        _flag("out_of_command", "starts out of command"),
        _flag(
            "adjacent_enemy", "adjacent to a Good Order unit of the firing side (no concealment)"
        ),
        _flag("spotted", "spotted by a Good Order enemy recon unit (no concealment)"),
        Key("to_hit", "int", 5, "To Hit number", 1, 7, what=_TO_HIT),
        Key(
            "assault",
            "int",
            None,
            "Assault factor; absent: may not attack or counter-attack",
            0,
            30,
        ),
        Key("assault_to_hit", "int", 5, "Assault To Hit number", 1, 7, what=_TO_HIT),
        Key("hard", "bool", None, "a hard target (default: afv and aircraft)"),
        Key(
            "infantry",
            "bool",
            None,
            "infantry for concealment and assault (default: infantry, engineer)",
        ),
        Key("save", "int", 6, "Save Number", 1, 7, what="a Save Number from 1 to 7"),
        Key(
            "leadership_reduced",
            "int",
            None,
            "(s)HQ leadership on its reduced side (default: leadership)",
            0,
            30,
        ),
        Key(
            "morale",
            "int",
            7,
            "the formation's morale (2D6 <= morale passes)",
            0,
            13,
            what="a morale from 0 to 13 (2D6 <= morale passes)",
        ),
        Key(
            "concealed",
            "str",
            "auto",
            "auto: from terrain and the conditions",
            choices=("auto", "yes", "no"),
        ),
        _SUPPORT,
    ),
    "the stack: counters on the side they show now",
    array=True,
)

_HEX = Section(
    "hexes",
    (
        Key("name", "str", None, "unique (default: hex N)"),
        _UNIT,
        Key("terrain", "str", "open", "terrain", choices=TERRAINS),
        Key("defence", "int", 0, "the terrain's infantry Defensive Bonus", 0, 10, unit="dice"),
        Key(
            "defence_hard",
            "int",
            None,
            "Defensive Bonus for hard targets (default: defence)",
            0,
            10,
            unit="dice",
        ),
        _flag("improved_position", "nullifies the first hit of any attack; conceals"),
    ),
    "the hexes",
    array=True,
    required=True,
    min_len=1,
)


def _names(name: str, help_: str) -> Key:
    return Key(name, "str_list", (), help_, what="an array of names")


_K = {
    k.name: k
    for k in (
        Key("firer", "str", "", "the firing unit (a mortar for a mortar step)"),
        Key("target", "str", "", "the target: a unit (fire) or a hex (mortar, air strike)"),
        Key("band", "str", "normal", "range band", choices=BANDS),
        Key("distance", "int", None, "distance (instead of band)", 0, 100, unit="hexes"),
        Key("hq", "str", "", "the (s)HQ adding its leadership"),
        _flag("opportunity", "opportunity fire"),
        Key("spotter", "str", "", "the unit spotting a mission out of line of sight"),
        _names("hexes", "impact hex first, then up to 6 neighbours"),
        Key("firepower", "int", 0, "mission or strike firepower", 0, 30, unit="dice"),
        Key(
            "to_hit",
            "int",
            REQUIRED,
            "the mission's To Hit",
            1,
            7,
            what="the mission To Hit from 1 to 7",
        ),
        Key("stack", "str", "", "a hex: its stack"),
        _flag("mines", "the hex entered is mined"),
        _names("units", "the units (instead of stack)"),
        Key("morale", "int", None, "morale for the command check", 0, 13),
        Key("attacker", "str", "", "the attacking hex (assault) or AFVs' hex (overrun)"),
        Key("defender", "str", "", "the defending hex"),
        Key("attacker_hq_unit", "str", "", "the attacker's (s)HQ"),
        Key("defender_hq_unit", "str", "", "the defender's (s)HQ"),
        _flag("can_retreat", "the defender has a hex to retreat to", True),
        _flag("adjacent_at_start", "the attacker was adjacent at the start of the turn", True),
        Key("aircraft", "str", "", "the striking aircraft"),
        _names("aa", "AA units firing at the aircraft"),
        Key("adjacent", "str", "", "the hex a strike gone astray hits"),
    )
}

#: keys each step kind accepts (besides ``kind`` and ``label``)
STEP_KEYS = {
    "fire": ("firer", "target", "band", "distance", "hq", "opportunity"),
    "mortar": ("firer", "target", "band", "distance", "hq", "spotter"),
    "artillery": ("hexes", "firepower", "to_hit", "spotter"),
    "move": ("stack", "mines"),
    "clear-mines": ("units", "stack"),
    "rally": ("units", "stack"),
    "command": ("stack", "morale"),
    "assault": (
        "attacker",
        "defender",
        "attacker_hq_unit",
        "defender_hq_unit",
        "can_retreat",
        "adjacent_at_start",
    ),
    "overrun": ("attacker", "defender"),
    "air-strike": ("aircraft", "target", "aa", "adjacent", "firepower"),
}

_STEP = Section(
    "steps",
    (
        Key("kind", "str", REQUIRED, "what the step plays", choices=STEP_KINDS),
        Key("label", "str", "", "shown in tables"),
    ),
    "what happens, in order",
    array=True,
    required=True,
    min_len=1,
    variants=tuple((kind, tuple(_K[k] for k in keys)) for kind, keys in STEP_KEYS.items()),
)

#: one line of help per rule switch (docs/hex-platoon.md, "Rule switches", has the text)
_RULE_HELP = {
    "extended_range": "6.1 extended range",
    "hq_bonus": "Additional Rule: (s)HQ leadership bonus",
    "augment": "several augmentations",
    "concealed_infantry_not_reduced": "Additional Rule: concealed infantry",
    "concealed_infantry_scope": 'reading of "direct fire"',
    "concealment_in_cap": "concealment die inside the hard-target cap of 2",
    "concealment_lost_after_fire": "second firer and concealment",
    "armor_bonus_cover_5plus": 'Additional Rule "Armor Bonus for cover ????"',
    "artillery_extra_die": "Additional Rule: mortars and artillery extra die",
    "artillery_ignore_first_hard_hit": "Additional Rule: first artillery hit on a hard target ignored",
    "artillery_soft_extra_defence": "Additional Rule: soft target in a hex with a hard target",
    "artillery_soft_extra_scope": "the same rule: per soft target or per hex",
    "infantry_assault_armour_adjacent": "Additional Rule: assault combat",
    "excess_hits": "hits beyond elimination",
    "assault_result": "assault result",
    "mine_roll": "mines",
    "clear_roll": "clearing mines",
    "air_failed_strike_return": "return roll after a strike gone astray",
    "disrupted_aircraft_strikes": "a disrupted aircraft's strike",
    "air_concealed": '"+1 if concealed" for a hex',
    "improved_position": "which hit an improved position nullifies",
    "hq_reduced_again": "a reduced HQ reduced again",
    "mortar_mission_roll": "observed mortar fire as an artillery mission",
    "city_assault_bonus": "6.3 city +1 Assault factor",
    "hq_assault_bonus": "(s)HQ leadership in an assault",
    "hit_ladder": "6.1 several hits: one step each, or one per attack",
    "move_ops_complete": "5.0 when a moving stack gets its Ops Complete marker",
    "mines_stop_movement": "6.2 a unit hit by mines stops its stack",
    "mines_improved_position": "8.1 an improved position against mines",
    "overrun_defender_augmented": "6.4 a defender's + in an overrun",
    "aa_vs_hard": "11.1 AA firepower at hard targets",
    "artillery_hard_ignore": "ignored first artillery hit: per hard target or per attack",
    "ops_complete_bars": "6.1, 11.2 what an Ops Complete marker ends",
}


def _rule(f) -> Key:
    help_ = _RULE_HELP[f.name]  # a new switch needs its line of help here
    if f.name in RULE_CHOICES:
        return Key(f.name, "str", f.default, help_, choices=RULE_CHOICES[f.name], switch=True)
    return Key(f.name, "bool", f.default, help_, switch=True)


_RULES = Section(
    "rules", tuple(_rule(f) for f in fields(Rules)), "rule switches (docs/hex-platoon.md)"
)

#: The keys of a ``hex-platoon`` scenario file.
SCHEMA = Schema(
    "hex-platoon",
    Section(
        "",
        (
            *run_keys("hex-platoon", "hex platoon"),
            Key("primary", "str", None, "the statistic plotted by default"),
            _RULES,
            _HEX,
            _STEP,
        ),
    ),
    title="oddslab scenario (hex-platoon)",
)
