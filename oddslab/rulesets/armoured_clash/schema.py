"""Every key of an Armoured Clash scenario file, declared once (:mod:`oddslab.keys`).

Reading and validation (:mod:`.reading`), the JSON Schema (``oddslab schema armoured-clash``)
and the key table in ``docs/armoured-clash.md`` all come from :data:`SCHEMA`. Checks that
involve more than one key (a unit's break limit against its models, an attack's weapon
against its attacker's armaments) are the model's and :mod:`.validate`'s.
"""

from __future__ import annotations

from oddslab.keys import REQUIRED, Key, Schema, Section, run_keys
from oddslab.rulesets.armoured_clash.model import (
    CATEGORIES,
    FACE_KINDS,
    FORMATIONS,
    LEVELS,
    MAX_DICE,
    MAX_MODELS,
    OFFICER_MODES,
    RATINGS,
    REROLLABLE,
    SIDES,
    UNIT_TYPES,
    AttackDie,
)
from oddslab.rulesets.armoured_clash.situation import (
    CANNOT_BE_SUPPRESSED,
    EXPIRY,
    GARRISON_EXIT,
    REROLL_SOURCES,
    RETALIATION_ANNIHILATES,
    SECONDARIES_WITH_ADVANTAGE,
    SECONDARY_RETALIATION,
)

__all__ = ["SCHEMA"]


def _status(name: str, help_: str) -> Key:
    return Key(name, "bool", False, help_)


def _losses(name: str, help_: str) -> Key:
    return Key(name, "int", 0, help_, 0, MAX_MODELS, unit="models")


_DIE = tuple(
    Key(kind, "int", getattr(AttackDie(), kind), f"faces showing {kind}", 0, 1000, unit="faces")
    for kind in FACE_KINDS
)

_RANGED = Section(
    "ranged",
    (
        Key("name", "str", None, "the weapon's name (default: ranged 1, 2, ...)"),
        Key(
            "dice",
            "int_list",
            REQUIRED,
            "attack dice by model count (index = models left)",
            0,
            MAX_DICE,
            unit="dice",
            min_len=1,
        ),
        Key(
            "vs",
            "str_list",
            ("light", "heavy"),
            "categories it may target",
            choices=CATEGORIES,
            min_len=1,
            what=f"expected a list of categories among {', '.join(CATEGORIES)}",
        ),
        Key("short", "float", 0.0, "short range (informational)", 0, 1000, unit="inches"),
        Key("long", "float", 0.0, "long range (informational)", 0, 1000, unit="inches"),
        Key("reload", "bool", False, "the weapon must reload after firing"),
    ),
    "ranged armaments, one row per weapon",
    array=True,
)

_UNIT = Section(
    "units",
    (
        Key("side", "str", REQUIRED, "whose unit it is", choices=SIDES),
        Key("type", "str", "infantry", "unit type", choices=UNIT_TYPES),
        Key("category", "str", "light", "target category", choices=CATEGORIES),
        Key("models", "int", REQUIRED, "models in the unit", 1, MAX_MODELS),
        Key("defence", "int", REQUIRED, "DEFENCE", 1, 50),
        Key("damage_limit", "int", 1, "damage tokens that destroy one model", 1, 50),
        Key("discipline", "int", REQUIRED, "DISCIPLINE (suppression and rally tests)", -5, 100),
        Key("damage", "int", 0, "damage tokens already on the unit", 0, 49),
        Key("break_limit", "int", None, "models left at which the unit breaks", 0, MAX_MODELS),
        Key("vp", "int_or_list", 0, "victory points (or [basic, reinforced, full])", 0, 10_000),
        Key("reinforcement", "str", "basic", "reinforcement level", choices=LEVELS),
        Key("formation", "str", "open", "formation", choices=FORMATIONS),
        Key(
            "officer",
            "str",
            None,
            "when the officer model is removed (default: last; a reading of the text)",
            choices=OFFICER_MODES,
        ),
        _status("commander_nearby", "a commander is within range"),
        _status("suppressed", "status: suppressed"),
        _status("disordered", "status: disordered"),
        _status("taking_cover", "status: taking cover"),
        _status("garrisoned", "status: garrisoned in a building"),
        _status("reloading", "status: reloading"),
        Key("melee", "int_list", None, "MELEE dice by model count", 0, MAX_DICE, min_len=1),
        Key("impact", "int_list", None, "IMPACT dice by model count", 0, MAX_DICE, min_len=1),
        Key("capacity", "int", 0, "transport capacity", 0, 100, unit="models"),
        Key("carrying", "str", None, "the unit embarked in this transport"),
        _losses("fall_back_losses", "models lost when the unit falls back"),
        _status("flees_field", "the unit leaves the field when it falls back"),
        _losses("withdraw_losses", "models lost when the unit withdraws"),
        _RANGED,
    ),
    "one table per unit, [units.NAME]",
    mapping=True,
    required=True,
)


def _opt(name: str, help_: str) -> Key:
    return Key(name, "bool", None, help_ + " (derived when absent)")


_ATTACK = Section(
    "attacks",
    (
        Key("attacker", "str", REQUIRED, "the active unit's name"),
        Key("target", "str", REQUIRED, "the target unit's name"),
        Key(
            "kind", "str", "ranged", "ranged attack or close quarters", choices=("ranged", "close")
        ),
        Key("weapon", "str", None, "ranged row name, or melee / impact"),
        Key(
            "repeat", "int", 1, "resolve the attack this many times, each a new activation", 1, 100
        ),
        _opt("new_activation", "the step starts a new activation of the active unit"),
        Key("aiming", "bool", False, "the attacker aims"),
        Key("short_range", "bool", False, "the target is at short range"),
        Key("concealed", "bool", False, "the target is concealed"),
        Key("exposed", "int", None, "models of the target exposed", 1, MAX_MODELS),
        Key("opportunity_fire", "bool", False, "the attack is opportunity fire"),
        Key("reforming", "bool", False, "a garrison exits before it attacks"),
        Key("outflanking", "bool", False, "the attacker outflanks the target"),
        _opt("supported", "the attacker is supported"),
        _opt("threatened", "the attacker is threatened"),
        Key("defensive_advantage", "bool", False, "the target has a defensive advantage"),
        _opt("defender_supported", "the target is supported"),
        _opt("defender_threatened", "the target is threatened"),
        Key("secondary", "str_list", (), "secondary combatants' unit names"),
        Key("charge", "bool", True, "a close quarters attack is a charge"),
        Key(
            "extra_rerolls",
            "str_list",
            (),
            "faces the attacker may also re-roll",
            choices=REROLLABLE,
        ),
        Key("extra_rerolls_from", "str", "command", "their source", choices=REROLL_SOURCES),
        Key(
            "defender_extra_rerolls",
            "str_list",
            (),
            "faces the target may also re-roll",
            choices=REROLLABLE,
        ),
        Key(
            "defender_extra_rerolls_from", "str", "command", "their source", choices=REROLL_SOURCES
        ),
        Key(
            "rating",
            "str",
            None,
            "the attacker's combat rating (derived when absent)",
            choices=RATINGS,
        ),
        Key(
            "defender_rating",
            "str",
            None,
            "the target's combat rating (derived when absent)",
            choices=RATINGS,
        ),
    ),
    "the sequence: one table per attack step",
    array=True,
    required=True,
    min_len=1,
)


def _switch(name: str, default: str, choices: tuple[str, ...], help_: str) -> Key:
    return Key(name, "str", default, help_, choices=choices, switch=True)


_RULES = Section(
    "rules",
    (
        _switch(
            "embarked_tests",
            "always",
            ("always", "on_fail"),
            "when an embarked unit tests with its transport",
        ),
        Key("rally_test", "bool", True, "suppressed units take rally tests", switch=True),
        Key(
            "activations",
            "bool",
            True,
            "statuses expire with activations in the sequence",
            switch=True,
        ),
        _switch("status_expiry", "held_at_start", EXPIRY, "which statuses an activation ends"),
        _switch(
            "secondary_retaliation",
            "with_target",
            SECONDARY_RETALIATION,
            "when secondaries retaliate",
        ),
        _switch(
            "cannot_be_suppressed",
            "no_test",
            CANNOT_BE_SUPPRESSED,
            "opportunity fire's target and aircraft",
        ),
        _switch(
            "retaliation_annihilates",
            "action_ends",
            RETALIATION_ANNIHILATES,
            "a retaliation that annihilates",
        ),
        _switch(
            "secondaries_with_advantage",
            "with_target",
            SECONDARIES_WITH_ADVANTAGE,
            "when secondaries strike under a defensive advantage",
        ),
        _switch("garrison_exit", "any_loss", GARRISON_EXIT, "which losing garrisons exit"),
    ),
    "rule switches (docs/armoured-clash.md, Rule switches)",
)

_DECK = tuple(
    Section(
        side,
        (
            Key(
                "cards",
                "int_list",
                REQUIRED,
                "the deck's cards",
                -100,
                100,
                min_len=1,
                max_len=1000,
            ),
        ),
        f"the {side}'s C&C deck",
    )
    for side in SIDES
)

#: The keys of an ``armoured-clash`` scenario file.
SCHEMA = Schema(
    "armoured-clash",
    Section(
        "",
        (
            *run_keys("armoured-clash", "armoured clash"),
            Key(
                "focus", "str", None, "the unit the statistics describe (default: the first target)"
            ),
            Section("die", _DIE, "the attack die's faces"),
            Section("decks", _DECK, "C&C decks (default: the standard deck)"),
            _UNIT,
            _ATTACK,
            _RULES,
        ),
    ),
    title="oddslab scenario (armoured-clash)",
)
