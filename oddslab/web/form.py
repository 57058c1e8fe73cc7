"""The generic scenario form, derived from the generic ruleset's declared keys.

Every key the generic ruleset declares (``oddslab.keys``: type, range or choices, default,
unit, plain-words help) for a weapon profile, the target and the rule switches becomes a form
field, so the form, the reader, the JSON Schema and the docs' key tables share one
declaration, and a key added there appears in the form without touching the page.

The web app is a front end: it imports no game. The generic ruleset is found by name through
the ruleset registry (:func:`oddslab.ruleset.get`), as scenario files find it.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["generic_form", "COMMON"]

#: Fields shown at once; the rest are under "more options".
COMMON = {
    "weapon": ("name", "models", "attacks", "skill", "strength", "ap", "damage"),
    "target": ("name", "models", "wounds", "toughness", "save", "invulnerable", "feel_no_pain"),
    "rules": (),
}


def _declared():
    """The generic ruleset's declared keys, found by name as ``ruleset = "generic"`` is."""
    from oddslab import ruleset

    return ruleset.get("generic").keys


def _sections() -> dict[str, Any]:
    """The form's groups: the weapon profile, the target and the rule switches."""
    root = {item.name: item for item in _declared().root.items}
    weapons = next(i for i in root["attacker"].items if i.name == "weapons")
    return {"weapon": weapons, "target": root["target"], "rules": root["rules"]}


def _kind(key: Any) -> tuple[str, list[str] | None]:
    """The form's field kind (int|bool|dice|choice|text|list|anti) and choices of a key."""
    if key.choices is not None:
        return "choice", list(key.choices)
    if key.kind == "custom":
        if key.name == "anti":
            return "anti", None
        if key.name == "models":
            return "int", None  # a count (groups of models are written in the editor)
        enum = next((b.get("enum") for b in key.custom[1].get("anyOf", []) if "enum" in b), None)
        if enum:  # a re-roll mode (the editor takes the array form too)
            return "choice", list(enum)
        return "list", None  # keywords as printed: a list or one string
    return {"int": "int", "float": "int", "bool": "bool", "dice": "dice", "str": "text"}.get(
        key.kind, "list"
    ), None


def _section(section: Any, group: str) -> list[dict[str, Any]]:
    from oddslab.keys import REQUIRED as _REQUIRED

    fields = []
    for key in section.items:
        if not hasattr(key, "kind"):
            continue  # a sub-table ([[target.models]] groups): the editor's
        kind, choices = _kind(key)
        default = None if key.default is _REQUIRED else key.default
        if isinstance(default, tuple):
            default = list(default)
        fields.append(
            {
                "key": key.name,
                "label": key.name.replace("_", " "),
                "kind": kind,
                "default": default,
                "optional": key.default is None,
                "choices": choices,
                "help": key.help
                + (f" ({key.unit})" if key.unit and key.unit not in key.help else ""),
                "common": key.name in COMMON[group],
                "required": key.required,
            }
        )
    return fields


@functools.cache
def generic_form() -> dict[str, Any]:
    """The form's description: ``{"weapon": [field...], "target": [...], "rules": [...]}``;
    each field ``{key, label, kind (int|bool|dice|choice|text|list|anti), default, optional,
    choices, help, common, required}``."""
    return {group: _section(section, group) for group, section in _sections().items()}
