"""Scenario files (TOML tables) → the generic model; every error names its key.

Every key is declared once in :mod:`.schema`; this module reads the file through that
declaration and builds the model, whose own checks cover what involves more than one key.
"""

from __future__ import annotations

from oddslab._schema import ScenarioError, Table
from oddslab.keys import Values
from oddslab.rulesets.generic.model import (
    ModelGroup,
    Rules,
    Situation,
    Target,
    Weapon,
)
from oddslab.rulesets.generic.scenario import GenericScenario
from oddslab.rulesets.generic.schema import SCHEMA

__all__ = ["from_table"]

_KEYWORD_KEYS = (
    "keywords", "ignore_keywords", "range", "half_range", "blast", "melta", "rapid_fire",
    "heavy", "lance", "indirect_fire", "ignores_cover", "twin_linked", "extra_attacks",
    "hazardous", "precision",
)  # fmt: skip


def _make(v: Values, cls, kw: dict):
    """Build a dataclass; a cross-field ValueError names this table."""
    try:
        return cls(**kw)
    except ValueError as exc:
        raise v.error(
            "", str(exc).split(".", 1)[-1] if "." in str(exc)[:20] else str(exc)
        ) from None


def _weapon(v: Values, index: int) -> Weapon:
    kw = dict(v)
    kw["name"] = kw["name"] if kw["name"] is not None else f"weapon {index + 1}"
    kw["anti"] = kw["anti"] or ()
    kw["ignore_keywords"] = tuple(kw["ignore_keywords"])
    return _make(v, Weapon, kw)


def _group(v: Values, i: int, unit: dict) -> ModelGroup:
    kw = dict(v)
    kw["name"] = kw["name"] if kw["name"] is not None else f"group {i + 1}"
    for key in ("wounds", "save", "invulnerable", "feel_no_pain"):
        if kw[key] is None:
            kw[key] = unit[key]  # the unit's value
    kw["keywords"] = tuple(kw["keywords"])
    if kw["damaged"] >= kw["wounds"]:
        raise v.error("damaged", f"must be less than wounds ({kw['wounds']}), got {kw['damaged']}")
    return _make(v, ModelGroup, kw)


def _target(v: Values) -> Target:
    kw = {k: x for k, x in v.items() if k != "target_visible"}
    kw["keywords"] = tuple(kw["keywords"])
    groups = kw["models"] if isinstance(kw["models"], list) else None
    if groups is not None:
        kw["models"] = 1
        kw["groups"] = tuple(_group(g, i, kw) for i, g in enumerate(groups))
        names = [g.name for g in kw["groups"]]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise groups[i].error("name", f"another group is already named {name!r}")
        if kw["damaged"]:
            raise v.error(
                "damaged",
                "is not read for a unit with groups of models: give the group whose model has "
                "lost wounds its own damaged ([[target.models]] damaged = N)",
            )
    if kw["damaged"] >= kw["wounds"]:
        raise v.error("damaged", f"must be less than wounds ({kw['wounds']}), got {kw['damaged']}")
    return _make(v, Target, kw)


def from_table(root: Table) -> GenericScenario:
    """Build a :class:`GenericScenario` from a scenario file's root table."""
    v = SCHEMA.read(root)
    run = {k: v[k] for k in ("name", "description", "trials", "seed")}
    a = v["attacker"]
    weapons = tuple(_weapon(w, i) for i, w in enumerate(a["weapons"]))
    situation = dict(
        remained_stationary=a["remained_stationary"],
        charged=a["charged"],
        half_range=a["half_range"],
        reroll_one=a["reroll_one"],
        attacker_models=a["models"],
        attacker_wounds=a["wounds"],
        attacker_keywords=tuple(a["keywords"]),
        target_visible=v["target"]["target_visible"],
    )
    target = _target(v["target"])
    rules = Rules(**dict(v["rules"]))
    try:
        return GenericScenario(weapons, target, rules, situation=Situation(**situation), **run)
    except ValueError as exc:  # a switch without its partner: "rules.key needs ..."
        key, _, problem = str(exc).partition(" ")
        if not key.startswith(("rules.", "target.", "attacker.")):
            key, problem = "", str(exc)
        raise ScenarioError(root.source, key, problem) from None
