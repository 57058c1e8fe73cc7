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

from .compile import BadInput, HexPlatoonScenario
from .model import (
    BANDS,
    RULE_CHOICES,
    STEP_KINDS,
    TERRAINS,
    TYPES,
    Hex,
    Rules,
    Step,
    SupportWeapon,
    Unit,
)

__all__ = ["from_table", "read_unit", "read_rules"]

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


def _dice(tbl: Table, key: str, default: int = 0) -> int:
    return tbl.int(key, default, min=0, max=30)


def read_unit(tbl: Table, index: int) -> Unit:
    """One ``[[hexes.units]]`` table."""
    kw: dict[str, Any] = {
        "name": tbl.str("name", f"unit {index + 1}"),
        "type": tbl.str("type", "infantry", choices=TYPES),
    }
    for key in ("he", "ap", "aa", "range", "armor", "leadership"):
        kw[key] = _dice(tbl, key)
    for key in (
        "he_plus",
        "ap_plus",
        "aa_plus",
        "range_underlined",
        "assault_counter_only",
        "assault_plus",
        "reduced",
        "disrupted",
        "ops_complete",
        "out_of_command",
        "adjacent_enemy",
        "spotted",
    ):
        kw[key] = tbl.bool(key, False)
    kw["to_hit"] = tbl.int("to_hit", 5, min=1, max=7, what="a To Hit number from 1 to 7")
    kw["assault"] = tbl.int("assault", None, min=0, max=30)
    kw["assault_to_hit"] = tbl.int(
        "assault_to_hit", 5, min=1, max=7, what="a To Hit number from 1 to 7"
    )
    kw["hard"] = tbl.bool("hard", None) if tbl.has("hard") else None
    kw["infantry"] = tbl.bool("infantry", None) if tbl.has("infantry") else None
    kw["save"] = tbl.int("save", 6, min=1, max=7, what="a Save Number from 1 to 7")
    kw["leadership_reduced"] = tbl.int("leadership_reduced", None, min=0, max=30)
    kw["morale"] = tbl.int(
        "morale", 7, min=0, max=13, what="a morale from 0 to 13 (2D6 <= morale passes)"
    )
    kw["concealed"] = tbl.str("concealed", "auto", choices=("auto", "yes", "no"))
    sws = []
    for j, st in enumerate(tbl.tables("support", [])):
        sws.append(SupportWeapon(
            name=st.str("name", f"support weapon {j + 1}"), he=_dice(st, "he"), ap=_dice(st, "ap"),
            range=_dice(st, "range"), augmented=st.bool("augmented", False),
        ))  # fmt: skip
        st.finish()
    kw["support"] = tuple(sws)
    tbl.finish()
    if sws and not (
        kw["infantry"] if kw["infantry"] is not None else kw["type"] in ("infantry", "engineer")
    ):
        raise tbl.error("support", "support weapons can only be assigned to an infantry platoon")
    try:
        return Unit(**kw)
    except ValueError as exc:  # pragma: no cover - the readers above check ranges
        raise tbl.error("", str(exc)) from None


def _read_hex(tbl: Table, index: int) -> Hex:
    name = tbl.str("name", f"hex {index + 1}")
    units = tuple(read_unit(t, j) for j, t in enumerate(tbl.tables("units", [])))
    kw = dict(
        terrain=tbl.str("terrain", "open", choices=TERRAINS),
        defence=tbl.int("defence", 0, min=0, max=10),
        defence_hard=tbl.int("defence_hard", None, min=0, max=10),
        improved_position=tbl.bool("improved_position", False),
    )
    tbl.finish()
    if sum(u.is_hq for u in units) > 1:
        raise tbl.error("units", "no more than 1 HQ/sHQ per hex")
    if any(u.is_hq for u in units) and not any(u.type not in ("hq", "aircraft") for u in units):
        # 1.3.2: an (s)HQ "must remain/move with 1+ unit of its formation"
        raise tbl.error("units", "an (s)HQ must be stacked with 1+ unit of its formation")
    return Hex(name, units=units, **kw)


def _str_list(tbl: Table, key: str) -> tuple[str, ...]:
    raw = tbl.raw(key, [])
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise tbl.error(key, "expected an array of names")
    return tuple(raw)


def _read_step(tbl: Table, index: int) -> Step:
    kind = tbl.str("kind", choices=STEP_KINDS)
    kw: dict[str, Any] = {"kind": kind, "label": tbl.str("label", "")}
    for key in STEP_KEYS[kind]:
        if key in ("units", "hexes", "aa"):
            kw[key] = _str_list(tbl, key)
        elif key == "band":
            kw[key] = tbl.str(key, "normal", choices=BANDS)
        elif key == "distance":
            kw[key] = tbl.int(key, None, min=0, max=100)
        elif key in ("opportunity", "mines"):
            kw[key] = tbl.bool(key, False)
        elif key in ("can_retreat", "adjacent_at_start"):
            kw[key] = tbl.bool(key, True)
        elif key == "firepower":
            kw[key] = tbl.int(key, 0, min=0, max=30)
        elif key == "to_hit":
            kw[key] = tbl.int(key, min=1, max=7, what="the mission To Hit from 1 to 7")
        elif key == "morale":
            kw[key] = tbl.int(key, None, min=0, max=13)
        else:
            kw[key] = tbl.str(key, "")
    if kind == "artillery" and not kw["hexes"]:
        raise tbl.error(
            "hexes", "required key is missing (impact hex first, then up to 6 neighbours)"
        )
    if kind == "artillery" and kw.get("firepower", 0) < 1:
        raise tbl.error("firepower", "expected the mission firepower (>= 1)")
    if kind == "artillery" and len(kw["hexes"]) > 7:
        raise tbl.error("hexes", "an artillery mission strikes at most 7 hexes")
    tbl.finish()
    return Step(**kw)


def read_rules(tbl: Table) -> Rules:
    """The ``[rules]`` table (every key optional)."""
    defaults = Rules()
    kw: dict[str, Any] = {}
    for key, value in defaults.__dict__.items():
        if key in RULE_CHOICES:
            kw[key] = tbl.str(key, value, choices=RULE_CHOICES[key])
        else:
            kw[key] = tbl.bool(key, value)
    tbl.finish()
    return Rules(**kw)


def from_table(root: Table) -> HexPlatoonScenario:
    """Build a :class:`HexPlatoonScenario` from a scenario file's root table."""
    from oddslab.scenario import read_run_options

    run = read_run_options(root, "hex platoon")
    primary = root.str("primary", None)
    rules = read_rules(root.table("rules", {}))
    hexes = tuple(_read_hex(t, i) for i, t in enumerate(root.tables("hexes", min_len=1)))
    steps = tuple(_read_step(t, i) for i, t in enumerate(root.tables("steps", min_len=1)))
    root.finish()
    try:
        sc = HexPlatoonScenario(hexes, steps, rules, primary=primary, **run)
        sc.stat_plan()
    except BadInput as exc:
        raise ScenarioError(root.source, exc.key, exc.problem) from None
    except ValueError as exc:
        raise ScenarioError(root.source, "", str(exc)) from None
    return sc
