"""TOML table → :class:`.compile.HexPlatoonScenario`, every error naming its key.

Layout (docs/hex-platoon.md has every key)::

    ruleset = "hex-platoon"
    [rules]            # optional switches
    [[hexes]]          # name, terrain, defence, defence_hard, improved_position
    [[hexes.units]]    # counters in that hex (with [[hexes.units.support]])
    [[steps]]          # kind = "fire" | "mortar" | ... played in order
"""

from __future__ import annotations

from typing import Any

from oddslab._schema import ScenarioError, Table
from oddslab.keys import Values

from .compile import BadInput, HexPlatoonScenario
from .model import Hex, Rules, Step, SupportWeapon, Unit
from .schema import _RULES, _UNIT, SCHEMA, STEP_KEYS

__all__ = ["STEP_KEYS", "from_table", "read_unit", "read_rules"]


def _unit(v: Values, index: int) -> Unit:
    kw: dict[str, Any] = {k: x for k, x in v.items() if k != "support"}
    if kw["name"] is None:
        kw["name"] = f"unit {index + 1}"
    sws = tuple(
        SupportWeapon(
            name=s["name"] if s["name"] is not None else f"support weapon {j + 1}",
            he=s["he"], ap=s["ap"], range=s["range"], augmented=s["augmented"],
        )
        for j, s in enumerate(v["support"])
    )  # fmt: skip
    kw["support"] = sws
    infantry = (
        kw["infantry"] if kw["infantry"] is not None else kw["type"] in ("infantry", "engineer")
    )
    if sws and not infantry:
        raise v.error("support", "support weapons can only be assigned to an infantry platoon")
    try:
        return Unit(**kw)
    except ValueError as exc:  # pragma: no cover - the schema checks ranges
        raise v.error("", str(exc)) from None


def read_unit(tbl: Table, index: int) -> Unit:
    """One ``[[hexes.units]]`` table."""
    return _unit(_UNIT.read(tbl), index)


def _hex(v: Values, index: int) -> Hex:
    units = tuple(_unit(u, j) for j, u in enumerate(v["units"]))
    if sum(u.is_hq for u in units) > 1:
        raise v.error("units", "no more than 1 HQ/sHQ per hex")
    if any(u.is_hq for u in units) and not any(u.type not in ("hq", "aircraft") for u in units):
        # 1.3.2: an (s)HQ "must remain/move with 1+ unit of its formation"
        raise v.error("units", "an (s)HQ must be stacked with 1+ unit of its formation")
    name = v["name"] if v["name"] is not None else f"hex {index + 1}"
    kw = {k: v[k] for k in ("terrain", "defence", "defence_hard", "improved_position")}
    return Hex(name, units=units, **kw)


def _step(v: Values) -> Step:
    kind = v["kind"]
    kw: dict[str, Any] = {"kind": kind, "label": v["label"]}
    kw.update({k: v[k] for k in STEP_KEYS[kind]})
    if kind == "artillery" and not kw["hexes"]:
        raise v.error(
            "hexes", "required key is missing (impact hex first, then up to 6 neighbours)"
        )
    if kind == "artillery" and kw.get("firepower", 0) < 1:
        raise v.error("firepower", "expected the mission firepower (>= 1)")
    if kind == "artillery" and len(kw["hexes"]) > 7:
        raise v.error("hexes", "an artillery mission strikes at most 7 hexes")
    return Step(**kw)


def read_rules(tbl: Table) -> Rules:
    """The ``[rules]`` table (every key optional)."""
    return Rules(**dict(_RULES.read(tbl)))


def from_table(root: Table) -> HexPlatoonScenario:
    """Build a :class:`HexPlatoonScenario` from a scenario file's root table."""
    v = SCHEMA.read(root)
    run = {k: v[k] for k in ("name", "description", "trials", "seed")}
    rules = Rules(**dict(v["rules"]))
    hexes = tuple(_hex(h, i) for i, h in enumerate(v["hexes"]))
    steps = tuple(_step(s) for s in v["steps"])
    try:
        sc = HexPlatoonScenario(hexes, steps, rules, primary=v["primary"], **run)
        sc.stat_plan()
    except BadInput as exc:
        raise ScenarioError(root.source, exc.key, exc.problem) from None
    except ValueError as exc:
        raise ScenarioError(root.source, "", str(exc)) from None
    return sc
