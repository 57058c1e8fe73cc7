"""Every key of an assault-phase scenario file, declared once (:mod:`oddslab.keys`).

Reading and validation (:mod:`.reading`), the JSON Schema (``oddslab schema assault-phase``)
and the key table in ``docs/assault-phase.md`` all come from :data:`SCHEMA`. Checks between
keys (contact and supporting models against the group's count, names used twice, targets
that are not enemies) are the reader's.
"""

from __future__ import annotations

from oddslab.keys import Key, Schema, Section, run_keys
from oddslab.rulesets.assault_phase.model import (
    FRAG_MODES,
    GRENADES,
    LD_MODES,
    MAJORITY,
    MAX_SPLIT,
    PLASMA_MODES,
    REACH_MODES,
    SWEEP_SUPPORT,
    TIE_SAVE,
    TIE_T,
    WEAPONS,
)

__all__ = ["SCHEMA"]

_SAVE = "a save from 2 (2+) to 7 (none)"


def _stat(name: str, default: int, help_: str, lo: int = 1) -> Key:
    return Key(name, "int", default, help_, lo, 10)


def _flag(name: str, help_: str) -> Key:
    return Key(name, "bool", False, help_)


_GROUP = Section(
    "groups",
    (
        Key("name", "str", None, "unique in the unit (default: group 1, 2, ...)"),
        Key("count", "int", 1, "models in the group", 1, 100, unit="models"),
        _stat("ws", 4, "Weapon Skill"),
        _stat("s", 4, "Strength"),
        _stat("t", 4, "Toughness"),
        _stat("w", 1, "Wounds"),
        _stat("i", 4, "Initiative"),
        _stat("a", 1, "Attacks on the profile", lo=0),
        _stat("ld", 8, "Leadership"),
        Key("save", "int", 7, "armour save (7 = none)", 2, 7, what=_SAVE),
        Key("invulnerable", "int", 7, "invulnerable save (7 = none)", 2, 7, what=_SAVE),
        _flag("two_weapons", "extra close combat weapon or pistol: +1 attack in base contact"),
        Key("weapon", "str", "none", "special close combat weapon", choices=WEAPONS),
        _flag("rending", "a to-hit roll of 6 wounds automatically, no armour save"),
        Key(
            "poisoned",
            "int",
            None,
            "wounds on this roll instead of S v T",
            2,
            6,
            what="a wound roll from 2 to 6 (2+, 4+)",
        ),
        _flag("heavy", "heavy weapon: armour saves better than 4+ count as 4+"),
        _flag("monstrous", "monstrous creature: ignores armour saves"),
        _flag("independent", "independent character: fights and takes wounds separately"),
        Key("contact", "int", None, "models in base contact (default: all)", 0, 100, unit="models"),
        Key(
            "supporting",
            "int",
            0,
            'models within 2" of an engaged friend',
            0,
            100,
            unit="models",
        ),
        Key(
            "target",
            "str_list",
            None,
            "the enemy unit or independent character it attacks (default: the first enemy "
            "unit); an independent character may name several to split his hits",
            max_len=MAX_SPLIT,
            min_len=1,
            what=(
                "a unit or independent character name, or a list of 1 to "
                f"{MAX_SPLIT} names (an independent character splitting his hits)"
            ),
        ),
        Key("split", "int_list", None, "hits dealt to each target per round", 1, 100),
    ),
    "model groups: models sharing a profile",
    array=True,
    required=True,
    min_len=1,
)

_RENAMED = Key(
    "charge_distance",
    "removed",
    None,
    "renamed: the distance a charge must cover through difficult terrain is now "
    "'difficult_terrain_distance'",
)


def _units(side: str) -> Section:
    common = (
        Key("name", "str", None, "unique on its side (default: unit 1, 2, ...)"),
        _GROUP,
        _flag("fast", "bikes / jump packs: fall back and sweep with 3D6"),
        _flag("trapped", "its fall-back corridor is blocked"),
    )
    if side == "attacker":
        own: tuple[Key, ...] = (
            Key("grenades", "str", "none", "assault grenades", choices=GRENADES),
            _flag("fired", "fired this turn: no +1 charge attack"),
            Key(
                "difficult_terrain_distance",
                "int",
                0,
                "inches the charge covers through difficult terrain (0 = none)",
                0,
                6,
                unit="inches",
                what="inches through difficult terrain from 0 (none) to 6",
            ),
            _RENAMED,
        )
    else:
        own = (
            _flag("in_cover", "in or behind cover: strikes first when charged"),
            _flag("falling_back", "assaulted while falling back: must regroup"),
        )
    return Section(
        "units", (*common, *own), f"the {side}'s units", array=True, required=True, min_len=1
    )


def _switch(name: str, default: str, choices: tuple[str, ...], help_: str) -> Key:
    return Key(name, "str", default, help_, choices=choices, switch=True)


def _chart(name: str, help_: str) -> Key:
    return Key(
        name,
        "int_matrix",
        None,
        help_,
        2,
        7,
        max_len=10,
        cols=10,
        switch=True,
        what="10 rows of 10 rolls (2..7, 7 = impossible)",
        item_what="10 rolls from 2 to 7 (7 = impossible)",
    )


_RULES = Section(
    "rules",
    (
        Key("max_turns", "int", 1, "turns of combat at most", 1, 20, unit="turns"),
        Key(
            "double_one_passes",
            "bool",
            False,
            "a double 1 always passes a Leadership test",
            switch=True,
        ),
        Key("below_half_penalty", "bool", False, "-1 Leadership below half strength", switch=True),
        _switch("unit_leadership", "highest", LD_MODES, "the Leadership a mixed unit tests on"),
        _switch("reach", "engaged", REACH_MODES, "whose models wounds can reach"),
        _switch("tie_save", "better", TIE_SAVE, "a tied majority of saves"),
        _switch("tie_toughness", "higher", TIE_T, "a tied majority of Toughness"),
        Key("fist_strikes_last", "bool", True, "power fists strike at Initiative 1", switch=True),
        _switch("sweep_support", "profile", SWEEP_SUPPORT, "sweeping advance roll"),
        Key("pile_in", "bool", True, "models pile in after the first turn", switch=True),
        _switch("majority", "most-common", MAJORITY, "what a majority is"),
        _switch("frag_grenades", "target", FRAG_MODES, "which units frag grenades work against"),
        _switch("plasma_grenades", "per-unit", PLASMA_MODES, "plasma grenades' reach"),
        _chart("to_hit_chart", "the to-hit chart (default: the standard chart)"),
        _chart("to_wound_chart", "the to-wound chart (default: the standard chart)"),
    ),
    "rule switches (docs/assault-phase.md, Assumptions and options)",
)


def _side(side: str) -> Section:
    return Section(
        side,
        (Key("name", "str", side, "shown in output"), _units(side)),
        "the charging side" if side == "attacker" else "the side charged",
        required=True,
    )


#: The keys of an ``assault-phase`` scenario file.
SCHEMA = Schema(
    "assault-phase",
    Section(
        "", (*run_keys("assault-phase", "assault"), _side("attacker"), _side("defender"), _RULES)
    ),
    title="oddslab scenario (assault-phase)",
)
