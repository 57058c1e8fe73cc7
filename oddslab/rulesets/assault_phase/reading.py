"""Scenario files: the ``assault-phase`` TOML tables -> :class:`AssaultScenario`.

Every key is declared once in :mod:`.schema`; this module reads the file through that
declaration, then checks what involves more than one key. Every problem is one
:class:`ScenarioError` naming the file and the key path.
"""

from __future__ import annotations

from typing import Any

from oddslab._schema import ScenarioError, Table
from oddslab.keys import Values
from oddslab.rulesets.assault_phase.model import SIDES, ModelGroup, Rules, Side, Unit
from oddslab.rulesets.assault_phase.scenario import AssaultScenario
from oddslab.rulesets.assault_phase.schema import SCHEMA

__all__ = ["from_table"]


def _group(v: Values, index: int) -> ModelGroup:
    count = v["count"]
    for key in ("contact", "supporting"):
        if v[key] is not None and v[key] > count:
            raise v.error(key, f"expected 0 to count ({count}), got {v[key]}")
    contact, supporting = v["contact"], v["supporting"]
    c = count if contact is None else contact
    if c + supporting > count:
        raise v.error(
            "supporting", f"contact ({c}) + supporting ({supporting}) exceeds count ({count})"
        )
    if v["weapon"] == "lightning-claw" and v["two_weapons"]:
        raise v.error(
            "two_weapons",
            "a single lightning claw gets no two-weapon bonus; use weapon = 'lightning-claws'",
        )
    raw = v["target"]
    if raw is not None and len(set(raw)) != len(raw):
        raise v.error("target", "a target is named twice")
    target: Any = raw if raw is None or len(raw) > 1 else raw[0]
    targets = raw if raw is not None and len(raw) > 1 else ()
    if len(targets) > 1:
        if not v["independent"]:
            raise v.error(
                "target", "only an independent character may split his hits between targets"
            )
        if v["weapon"] == "force-weapon":
            raise v.error("target", "a force weapon's hits cannot be split (one psychic test)")
    split = None if v["split"] is None else tuple(v["split"])
    if split is not None and len(split) != max(1, len(targets)):
        raise v.error("split", f"expected one number of hits per target ({max(1, len(targets))})")
    kw = {k: x for k, x in v.items() if k not in ("name", "target", "split")}
    name = v["name"] if v["name"] is not None else f"group {index + 1}"
    try:
        return ModelGroup(name=name, target=target, split=split, **kw)
    except ValueError as exc:
        raise v.error("target", str(exc)) from None


def _unit(v: Values, index: int) -> Unit:
    groups = tuple(_group(g, i) for i, g in enumerate(v["groups"]))
    kw = {k: x for k, x in v.items() if k not in ("name", "groups", "charge_distance")}
    return Unit(v["name"] if v["name"] is not None else f"unit {index + 1}", groups, **kw)


def _side(v: Values) -> Side:
    units = tuple(_unit(u, i) for i, u in enumerate(v["units"]))
    units_seen: set[str] = set()
    targets_seen: set[str] = set()  # unit names and independent characters' names
    for i, unit in enumerate(units):
        if unit.name in units_seen:
            raise v.error(f"units[{i}].name", f"unit name '{unit.name}' is used twice")
        units_seen.add(unit.name)
        targets_seen.add(unit.name)
    for i, unit in enumerate(units):
        group_seen: set[str] = set()
        for j, grp in enumerate(unit.groups):
            key = f"units[{i}].groups[{j}].name"
            if grp.name in group_seen:
                raise v.error(key, f"group name '{grp.name}' is used twice in this unit")
            group_seen.add(grp.name)
            if grp.independent:
                if grp.name in targets_seen:
                    raise v.error(
                        key, f"independent character '{grp.name}' needs a name of its own"
                    )
                targets_seen.add(grp.name)
    return Side(v["name"], units)


def _check_targets(root: Table, sides: tuple[Side, Side]) -> None:
    for s, side in enumerate(sides):
        enemy = sides[1 - s]
        names = {u.name for u in enemy.units} | {
            g.name for u in enemy.units for g in u.groups if g.independent
        }
        for i, unit in enumerate(side.units):
            for j, grp in enumerate(unit.groups):
                for t in grp.targets:
                    if t not in names:
                        raise ScenarioError(
                            root.source,
                            f"{SIDES[s]}.units[{i}].groups[{j}].target",
                            f"'{t}' is not an enemy unit or independent character "
                            f"(known: {', '.join(sorted(names))})",
                        )


def from_table(root: Table) -> AssaultScenario:
    """Build an :class:`AssaultScenario` from a scenario file's root table."""
    v = SCHEMA.read(root)
    run = {k: v[k] for k in ("name", "description", "trials", "seed")}
    attacker, defender = _side(v["attacker"]), _side(v["defender"])
    rules = Rules(**dict(v["rules"]))
    _check_targets(root, (attacker, defender))
    try:
        return AssaultScenario(attacker, defender, rules, **run)
    except ValueError as exc:  # pragma: no cover - guarded by the readers above
        raise ScenarioError(root.source, "", str(exc)) from None
