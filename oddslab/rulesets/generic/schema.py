"""Every key of a generic scenario file, declared once (:mod:`oddslab.keys`).

Reading and validation (:mod:`.reading`), the JSON Schema (``oddslab schema generic``) and the
key table in ``docs/generic.md`` all come from :data:`SCHEMA`. Checks between keys (a switch
without its partner, ``damaged`` below ``wounds``, group names) are the model's and the
reader's. ``docs/scenario-format.md`` explains each key at length.
"""

from __future__ import annotations

from typing import Any

from oddslab._schema import Table
from oddslab.keys import KINDS, REQUIRED, Key, Schema, Section, run_keys
from oddslab.rulesets.generic.model import (
    ALLOCATION_POLICIES,
    DAMAGE_REROLL_MODES,
    DEVASTATING_RULES,
    REROLL_MODES,
    SPILL_MODES,
)
from oddslab.rulesets.generic.target import (
    ONE_OFF_ATTACKER,
    ONE_OFF_DEFENDER,
    SAVE_REROLL_MODES,
)

__all__ = ["SCHEMA", "GROUP"]

_STRINGS = 'an array of strings like ["infantry"]'


def _read_reroll(tbl: Table, key: str) -> str | tuple[int, ...]:
    if isinstance(tbl.raw(key), list):
        return tuple(tbl.int_list(key, min=1, max=6))
    return tbl.str(key, choices=REROLL_MODES)


_REROLL_JSON = {
    "anyOf": [
        {"type": "string", "enum": list(REROLL_MODES)},
        {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 6}},
    ]
}


def _reroll(name: str, help_: str) -> Key:
    return Key(
        name, "custom", "none", help_, what="string or array of natural rolls 1-6",
        custom=(_read_reroll, _REROLL_JSON),
    )  # fmt: skip


def _read_keywords(tbl: Table, key: str) -> Any:
    """``keywords`` as printed, checked by the keyword reader (with ``ignore_keywords``)."""
    from oddslab.rulesets.generic.keywords import parse_keywords

    raw = tbl.raw(key)
    ignore = tbl.data.get("ignore_keywords", [])
    ignore = [ignore] if isinstance(ignore, str) else ignore
    try:
        parse_keywords(raw, tuple(ignore) if isinstance(ignore, list) else ())
    except ValueError as exc:
        raise tbl.error(key, str(exc)) from None
    return raw


def _read_anti(tbl: Table, key: str) -> tuple[tuple[str, int], ...]:
    """``anti = { infantry = 4, monster = 5 }``: keyword -> X (critical wounds on X+)."""
    sub = tbl.table(key)
    out = [
        (kw.lower(), sub.int(kw, min=2, max=6, what="an anti-X roll from 2 to 6"))
        for kw in list(sub.data)
    ]
    sub.finish()
    return tuple(out)


def _dice(name: str, default: Any, help_: str) -> Key:
    return Key(name, "dice", default, help_)


def _flag(name: str, help_: str, default: bool = False) -> Key:
    return Key(name, "bool", default, help_)


def _words(name: str, help_: str) -> Key:
    return Key(name, "str_list", (), help_, what=_STRINGS)


_WEAPON = Section(
    "weapons",
    (
        Key("name", "str", None, "label (default: weapon N)"),
        Key("models", "int", 1, "models firing this profile", 0, 1000),
        _dice("attacks", REQUIRED, "attacks per model"),
        Key(
            "skill", "int", 4, "hit on this or more", 2, 6, what="a hit roll from 2 (2+) to 6 (6+)"
        ),
        Key("hit_modifier", "int", 0, "net modifier to the hit roll", -6, 6),
        _reroll("reroll_hits", "hit re-rolls"),
        Key("critical_hit", "int", 6, "unmodified hit rolls of this or more are critical", 2, 6),
        _dice("sustained_hits", 0, "extra hits per critical hit"),
        _flag("lethal_hits", "critical hits wound automatically"),
        _flag("torrent", "every attack hits automatically"),
        Key("strength", "int", 4, "against the target's toughness", 1, 30),
        Key(
            "wound",
            "int",
            None,
            "a fixed wound roll (default: S vs T); 7: criticals only",
            2,
            7,
            what="a wound roll from 2 (2+) to 7 (criticals only)",
        ),
        Key("wound_modifier", "int", 0, "net modifier to the wound roll", -6, 6),
        _reroll("reroll_wounds", "wound re-rolls"),
        Key(
            "critical_wound", "int", 6, "unmodified wound rolls of this or more are critical", 2, 6
        ),
        _flag("devastating_wounds", "a critical wound skips the saving throw"),
        Key(
            "ap",
            "int",
            0,
            "armour penetration as a positive number",
            0,
            6,
            what="AP as a positive number (AP -2 is 2) from 0 to 6",
        ),
        _dice("damage", 1, "damage per unsaved wound"),
        Key(
            "reroll_damage",
            "str",
            "none",
            "re-roll the damage roll once",
            choices=DAMAGE_REROLL_MODES,
        ),
        _dice("critical_extra_attacks", 0, "extra hit rolls per critical hit"),
        _dice("critical_hit_mortals", 0, "mortal wounds per critical hit"),
        _flag("critical_hit_mortals_instead", "the critical hit inflicts only those mortal wounds"),
        _dice("critical_wound_mortals", 0, "mortal wounds per critical wound"),
        _flag(
            "critical_wound_mortals_instead", "the critical wound inflicts only those mortal wounds"
        ),
        Key("critical_wound_ap", "int", 0, "extra AP of a critical wound", 0, 6),
        Key("critical_wound_damage", "int", 0, "extra damage of a critical wound", 0, 20),
        Key(
            "anti",
            "custom",
            None,
            "anti-X: { infantry = 4 } (keyword -> X)",
            what="table keyword -> 2-6",
            custom=(
                _read_anti,
                {
                    "type": "object",
                    "additionalProperties": {"type": "integer", "minimum": 2, "maximum": 6},
                },
            ),
        ),
        _words("ignore_keywords", "keywords accepted and ignored (they change nothing here)"),
        Key(
            "keywords",
            "custom",
            (),
            "weapon keywords as a datasheet prints them",
            what="string or array of strings",
            custom=(_read_keywords, KINDS["str_list"]),
        ),
        Key(
            "range",
            "int",
            None,
            "range (informational)",
            0,
            1000,
            unit="inches",
            what="the range in inches",
        ),
        Key(
            "half_range", "bool", None, "the target is within half range (default: the attacker's)"
        ),
        _flag("blast", "Blast: +1 attack per 5 models in the target unit"),
        Key("melta", "int", 0, "Melta X: +X damage within half range", 0, 20),
        Key("rapid_fire", "int", 0, "Rapid Fire X: +X attacks within half range", 0, 20),
        _flag("heavy", "Heavy: +1 to hit if the attacker remained stationary"),
        _flag("lance", "Lance: +1 to wound if the attacker charged"),
        _flag("indirect_fire", "Indirect Fire: penalties when the target is not visible"),
        _flag("ignores_cover", "Ignores Cover"),
        _flag("twin_linked", "Twin-linked: re-roll failed wound rolls"),
        _flag("extra_attacks", "Extra Attacks: used in addition to the others"),
        _flag("hazardous", "Hazardous: a D6 per model firing it after the attacks"),
        _flag("precision", "Precision: attacks may go to an attached character"),
    ),
    "weapon profiles, fired in this order",
    array=True,
    required=True,
    min_len=1,
)

_ATTACKER = Section(
    "attacker",
    (
        Key("name", "str", "attacker", "label only"),
        _WEAPON,
        _flag("remained_stationary", "the unit remained stationary (Heavy)"),
        _flag("charged", "the unit charged this turn (Lance)"),
        _flag("half_range", "the target is within half range of every weapon"),
        Key("reroll_one", "str", "none", "a one-off re-roll", choices=ONE_OFF_ATTACKER),
        Key(
            "models",
            "int",
            None,
            "models in the attacking unit (default: the most firing one profile)",
            1,
            1000,
        ),
        Key("wounds", "int", 1, "wounds per attacking model", 1, 100),
        _words(
            "keywords", "the attacking unit's keywords (Hazardous: Character, Monster, Vehicle)"
        ),
    ),
    "the attacking unit",
    required=True,
)

#: one ``[[target.models]]`` group (defaults None: the unit's value)
GROUP = Section(
    "models",
    (
        Key("name", "str", None, "unique in the unit (default: group N)"),
        Key("models", "int", 1, "models in the group", 1, 1000),
        Key("wounds", "int", None, "wounds per model (default: the unit's)", 1, 100),
        Key(
            "save",
            "int",
            None,
            "armour save (default: the unit's)",
            2,
            7,
            what="a save from 2 (2+) to 7",
        ),
        Key("invulnerable", "int", None, "invulnerable save (default: the unit's)", 2, 6),
        Key("feel_no_pain", "int", None, "feel-no-pain (default: the unit's)", 2, 6),
        Key("toughness", "int", None, "toughness (default: the unit's)", 1, 30),
        _words("keywords", "this group's keywords"),
        _flag("character", "a character (an attached leader)"),
        Key("damaged", "int", 0, "wounds already lost by one model of the group", 0, 99),
    ),
    "a mixed unit: one table per group of models",
    array=True,
    min_len=1,
)


def _read_models(tbl: Table, key: str) -> int | list:
    """``models``: a count, or the unit's groups (``[[target.models]]``)."""
    if isinstance(tbl.raw(key), list):
        return [GROUP.read(t) for t in tbl.tables(key, min_len=1)]
    return tbl.int(key, min=1, max=1000)


_MODELS = Key(
    "models", "custom", REQUIRED, "models in the unit, or its groups ([[target.models]])",
    what="integer 1-1000 or array of groups",
    custom=(
        _read_models,
        {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 1000}, GROUP.json_schema()]},
        GROUP,
    ),
)  # fmt: skip

_TARGET = Section(
    "target",
    (
        Key("name", "str", "target", "label"),
        Key("target_visible", "bool", True, "some firing model can see the target"),
        _MODELS,
        Key("wounds", "int", 1, "wounds per model", 1, 100),
        Key("toughness", "int", 4, "toughness", 1, 30),
        Key(
            "save",
            "int",
            7,
            "armour save (7 = none)",
            2,
            7,
            what="a save from 2 (2+) to 7 (no save)",
        ),
        Key("invulnerable", "int", None, "invulnerable save", 2, 6),
        Key("feel_no_pain", "int", None, "feel-no-pain", 2, 6),
        Key("damaged", "int", 0, "wounds already lost by the first model to take damage", 0, 99),
        _flag("cover", "benefit of cover"),
        _words("keywords", "keywords for anti-X weapons"),
        Key("save_modifier", "int", 0, "added to every saving throw", -6, 6),
        Key("reroll_saves", "str", "none", "re-roll saving throws", choices=SAVE_REROLL_MODES),
        Key(
            "reroll_invulnerable",
            "str",
            "none",
            "re-roll invulnerable saves",
            choices=SAVE_REROLL_MODES,
        ),
        _flag("ignore_ap", "AP does not worsen this unit's armour save"),
        Key("ap_reduction", "int", 0, "each attack's AP is worsened by this", 0, 6),
        Key("damage_reduction", "int", 0, "subtract from each attack's damage (minimum 1)", 0, 20),
        _flag("halve_damage", "halve each attack's damage, rounding up"),
        Key("feel_no_pain_mortal", "int", None, "a feel-no-pain against mortal wounds only", 2, 6),
        Key(
            "reroll_one", "str", "none", "the defender's one-off re-roll", choices=ONE_OFF_DEFENDER
        ),
    ),
    "the target unit",
    required=True,
)

_RULES = Section(
    "rules",
    (
        Key(
            "spill",
            "str",
            "none",
            "excess damage on a slain model",
            choices=SPILL_MODES,
            switch=True,
        ),
        Key("natural_one_fails", "bool", True, "an unmodified 1 fails", switch=True),
        Key("natural_six_succeeds", "bool", True, "a critical roll always succeeds", switch=True),
        Key("cover_limit", "bool", True, "no cover bonus to a 3+ save against AP 0", switch=True),
        Key(
            "devastating_wounds",
            "str",
            "current",
            "which devastating-wounds rule",
            choices=DEVASTATING_RULES,
            switch=True,
        ),
        Key("modifier_cap", "bool", True, "hit and wound modifiers capped at -1 / +1", switch=True),
        Key(
            "stack_feel_no_pain",
            "bool",
            False,
            "a mortal-wound point must pass both feel-no-pains",
            switch=True,
        ),
        Key(
            "damage_modifiers_on_devastating",
            "bool",
            True,
            "damage modifiers change a devastating wound's damage",
            switch=True,
        ),
        Key(
            "allocation",
            "str",
            "listed",
            "a mixed unit: the order the defender removes groups",
            choices=ALLOCATION_POLICIES,
            switch=True,
        ),
    ),
    "rule switches (docs/generic.md, Assumptions)",
)

#: The keys of a ``generic`` scenario file.
SCHEMA = Schema(
    "generic",
    Section("", (*run_keys("generic", "generic attack"), _ATTACKER, _TARGET, _RULES)),
    title="oddslab scenario (generic)",
)
