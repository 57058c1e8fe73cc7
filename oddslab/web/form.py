"""The generic scenario form, derived from the generic model itself.

Every field of the generic ruleset's ``Weapon``, ``Target`` and ``Rules`` dataclasses becomes
a form field: its name is the scenario key, its default the dataclass default, its help the
plain words of the model's docstring (the same words docs/generic.md gives), its choices the
model's constants. A key added to the model appears in the form without touching the page.

The web app is a front end: it imports no game. The generic package is found by name through
the scenario loader's registry (:data:`oddslab.scenario.RULESETS`), as scenario files find it.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import typing
from typing import Any

__all__ = ["generic_form", "COMMON"]

#: Fields shown at once; the rest are under "more options".
COMMON = {
    "weapon": ("name", "models", "attacks", "skill", "strength", "ap", "damage"),
    "target": ("name", "models", "wounds", "toughness", "save", "invulnerable", "feel_no_pain"),
    "rules": (),
}

#: Keys a scenario file must give (the reader has no default for them).
REQUIRED = {"weapon": ("attacks",), "target": ("models",), "rules": ()}

#: Keys read as dice expressions (``2``, ``"D6"``, ``"D3+1"``).
_DICE = {
    "attacks",
    "sustained_hits",
    "damage",
    "critical_extra_attacks",
    "critical_hit_mortals",
    "critical_wound_mortals",
}


#: Plain words for the keys whose docstring entry has none.
_EXTRA_HELP = {
    "name": "A name for the tables and plots.",
    "wound_modifier": "Added to the wound roll (net value; the unmodified roll decides criticals).",
    "toughness": "Toughness of each model, against the weapon's strength.",
    "critical_hit_mortals_instead": "The critical hit's mortal wounds replace its wound roll.",
    "critical_wound_mortals_instead": "The critical wound's mortal wounds replace its save and damage.",
}


def _doc_params(cls) -> dict[str, str]:
    """``name -> help`` from a numpy-style ``Parameters`` section (one line per paragraph)."""
    doc = cls.__doc__ or ""
    body = doc.split("Parameters", 1)[-1].split("----------", 1)[-1]
    out: dict[str, str] = {}
    name = None
    for line in body.splitlines():
        m = re.match(r"^    (\w+) :", line)
        if m:
            name = m.group(1)
            out[name] = ""
        elif name and line.startswith("        "):
            out[name] = (out[name] + " " + line.strip()).strip()
        elif line.strip() and not line.startswith("    "):
            break
    return {k: v.replace("``", "") for k, v in out.items()}


def _kind(name: str, annotation: Any, default: Any) -> str:
    text = str(annotation)
    if name in _DICE:
        return "dice"
    if isinstance(default, bool) or "bool" in text:
        return "bool"
    if name in ("keywords",):
        return "list"
    if name == "anti":
        return "anti"
    if "int" in text:
        return "int"
    return "text"


def _generic():
    """The generic ruleset's package, found as a scenario file's ``ruleset = "generic"`` is."""
    import importlib

    from oddslab.scenario import RULESETS

    return importlib.import_module(RULESETS["generic"])


def _choices(cls_name: str, name: str) -> list[str] | None:
    m = _generic().model  # the package's model module (its constants)
    table = {
        "reroll_hits": m.REROLL_MODES,
        "reroll_wounds": m.REROLL_MODES,
        "reroll_damage": m.DAMAGE_REROLL_MODES,
        "reroll_saves": m.SAVE_REROLL_MODES,
        "reroll_invulnerable": m.SAVE_REROLL_MODES,
        "spill": m.SPILL_MODES,
        "devastating_wounds": m.DEVASTATING_RULES if cls_name == "Rules" else None,
    }
    got = table.get(name)
    return list(got) if got else None


def _section(cls, group: str) -> list[dict[str, Any]]:
    helps = _doc_params(cls)
    hints = typing.get_type_hints(cls)
    fields = []
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else None
        if isinstance(default, tuple):
            default = list(default)
        kind = _kind(f.name, hints.get(f.name), default)
        choices = _choices(cls.__name__, f.name)
        if choices:
            kind = "choice"
        if kind == "dice" and default is not None:
            default = str(default)
        optional = "None" in str(hints.get(f.name)) or f.default is None
        fields.append(
            {
                "key": f.name,
                "label": f.name.replace("_", " "),
                "kind": kind,
                "default": default,
                "optional": optional,
                "choices": choices,
                "help": helps.get(f.name) or _EXTRA_HELP.get(f.name, ""),
                "common": f.name in COMMON[group],
                "required": f.name in REQUIRED[group],
            }
        )
    return fields


@functools.cache
def generic_form() -> dict[str, Any]:
    """The form's description: ``{"weapon": [field...], "target": [...], "rules": [...]}``;
    each field ``{key, label, kind (int|bool|dice|choice|text|list|anti), default, optional,
    choices, help, common, required}``."""
    generic = _generic()
    return {
        "weapon": _section(generic.Weapon, "weapon"),
        "target": _section(generic.Target, "target"),
        "rules": _section(generic.Rules, "rules"),
    }
