"""Scenario files: the ``assault-phase`` TOML tables -> :class:`AssaultScenario`.

Every problem is one :class:`ScenarioError` naming the file and the key path.
"""

from __future__ import annotations

import difflib
from typing import Any

from oddslab._schema import ScenarioError, Table
from oddslab.rulesets.assault_phase.model import (
    FRAG_MODES,
    GRENADES,
    LD_MODES,
    MAJORITY,
    MAX_SPLIT,
    PLASMA_MODES,
    REACH_MODES,
    SIDES,
    SWEEP_SUPPORT,
    TIE_SAVE,
    TIE_T,
    WEAPONS,
    ModelGroup,
    Rules,
    Side,
    Unit,
)
from oddslab.rulesets.assault_phase.scenario import AssaultScenario

__all__ = ["from_table"]

ROOT_KEYS = ("ruleset", "name", "description", "trials", "seed", "attacker", "defender", "rules")
SIDE_KEYS = ("name", "units")


def _check_keys(tbl: Table, known: tuple[str, ...]) -> None:
    """Report a typo'd key (with its did-you-mean) before the missing key it causes."""
    for name in tbl.data:
        if name not in known and name != "charge_distance":  # renamed: its own message
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise tbl.error(name, f"unknown key{hint} (known keys here: {', '.join(known)})")


def _read_group(tbl: Table, index: int) -> ModelGroup:
    def stat(key: str, default: Any, lo: int = 1) -> int:
        return tbl.int(key, default, min=lo, max=10)

    poisoned = tbl.int("poisoned", None, min=2, max=6, what="a wound roll from 2 to 6 (2+, 4+)")
    count = tbl.int("count", 1, min=1, max=100)
    contact = tbl.int("contact", None, min=0, max=count, what=f"0 to count ({count})")
    supporting = tbl.int("supporting", 0, min=0, max=count, what=f"0 to count ({count})")
    kwargs = dict(
        name=tbl.str("name", f"group {index + 1}"),
        count=count,
        ws=stat("ws", 4),
        s=stat("s", 4),
        t=stat("t", 4),
        w=stat("w", 1),
        i=stat("i", 4),
        a=stat("a", 1, lo=0),
        ld=stat("ld", 8),
        save=tbl.int("save", 7, min=2, max=7, what="a save from 2 (2+) to 7 (none)"),
        invulnerable=tbl.int(
            "invulnerable", 7, min=2, max=7, what="a save from 2 (2+) to 7 (none)"
        ),
        two_weapons=tbl.bool("two_weapons", False),
        weapon=tbl.str("weapon", "none", choices=WEAPONS),
        rending=tbl.bool("rending", False),
        poisoned=poisoned,
        heavy=tbl.bool("heavy", False),
        monstrous=tbl.bool("monstrous", False),
        independent=tbl.bool("independent", False),
        contact=contact,
        supporting=supporting,
        target=_read_target(tbl),
        split=_read_split(tbl),
    )
    c = count if contact is None else contact
    if c + supporting > count:
        raise tbl.error(
            "supporting", f"contact ({c}) + supporting ({supporting}) exceeds count ({count})"
        )
    if kwargs["weapon"] == "lightning-claw" and kwargs["two_weapons"]:
        raise tbl.error(
            "two_weapons",
            "a single lightning claw gets no two-weapon bonus; use weapon = 'lightning-claws'",
        )
    targets = kwargs["target"] if isinstance(kwargs["target"], tuple) else ()
    if len(targets) > 1:
        if not kwargs["independent"]:
            raise tbl.error(
                "target", "only an independent character may split his hits between targets"
            )
        if kwargs["weapon"] == "force-weapon":
            raise tbl.error("target", "a force weapon's hits cannot be split (one psychic test)")
    split = kwargs["split"]
    if split is not None and len(split) != max(1, len(targets)):
        raise tbl.error("split", f"expected one number of hits per target ({max(1, len(targets))})")
    tbl.finish()
    try:
        return ModelGroup(**kwargs)
    except ValueError as exc:
        raise tbl.error("target", str(exc)) from None


def _read_target(tbl: Table) -> str | tuple[str, ...] | None:
    raw = tbl.raw("target", None)
    if raw is None or isinstance(raw, str):
        return raw
    ok = isinstance(raw, list) and 1 <= len(raw) <= MAX_SPLIT
    if not ok or not all(isinstance(x, str) for x in raw):
        raise tbl.error(
            "target",
            f"expected a unit or independent character name, or a list of 1 to {MAX_SPLIT} "
            f"names (an independent character splitting his hits), got {raw!r}",
        )
    if len(set(raw)) != len(raw):
        raise tbl.error("target", "a target is named twice")
    return tuple(raw) if len(raw) > 1 else raw[0]


def _read_split(tbl: Table) -> tuple[int, ...] | None:
    raw = tbl.int_list("split", None, min=1, max=100)
    return None if raw is None else tuple(raw)


UNIT_KEYS = ("name", "groups", "fast", "trapped")
ATTACKER_UNIT_KEYS = (
    *UNIT_KEYS,
    "grenades",
    "fired",
    "difficult_terrain_distance",
    "charge_distance",
)
DEFENDER_UNIT_KEYS = (*UNIT_KEYS, "in_cover", "falling_back")


def _read_unit(tbl: Table, index: int, attacking: bool) -> Unit:
    _check_keys(tbl, ATTACKER_UNIT_KEYS if attacking else DEFENDER_UNIT_KEYS)
    name = tbl.str("name", f"unit {index + 1}")
    groups = tuple(_read_group(t, i) for i, t in enumerate(tbl.tables("groups", min_len=1)))
    kw: dict[str, Any] = {"fast": tbl.bool("fast", False), "trapped": tbl.bool("trapped", False)}
    if attacking:
        kw["grenades"] = tbl.str("grenades", "none", choices=GRENADES)
        kw["fired"] = tbl.bool("fired", False)
        if tbl.has("charge_distance"):
            raise tbl.error(
                "charge_distance",
                "renamed: the distance a charge must cover through difficult terrain is now "
                "'difficult_terrain_distance'",
            )
        kw["difficult_terrain_distance"] = tbl.int(
            "difficult_terrain_distance",
            0,
            min=0,
            max=6,
            what="inches through difficult terrain from 0 (none) to 6",
        )
    else:
        kw["in_cover"] = tbl.bool("in_cover", False)
        kw["falling_back"] = tbl.bool("falling_back", False)
    tbl.finish()
    return Unit(name, groups, **kw)


def _read_side(tbl: Table, attacking: bool) -> Side:
    name = tbl.str("name", "attacker" if attacking else "defender")
    units = tuple(_read_unit(t, i, attacking) for i, t in enumerate(tbl.tables("units", min_len=1)))
    tbl.finish()
    units_seen: set[str] = set()
    targets_seen: set[str] = set()  # unit names and independent characters' names
    for i, unit in enumerate(units):
        if unit.name in units_seen:
            raise tbl.error(f"units[{i}].name", f"unit name '{unit.name}' is used twice")
        units_seen.add(unit.name)
        targets_seen.add(unit.name)
    for i, unit in enumerate(units):
        group_seen: set[str] = set()
        for j, grp in enumerate(unit.groups):
            key = f"units[{i}].groups[{j}].name"
            if grp.name in group_seen:
                raise tbl.error(key, f"group name '{grp.name}' is used twice in this unit")
            group_seen.add(grp.name)
            if grp.independent:
                if grp.name in targets_seen:
                    raise tbl.error(
                        key, f"independent character '{grp.name}' needs a name of its own"
                    )
                targets_seen.add(grp.name)
    return Side(name, units)


def _read_chart(tbl: Table, key: str) -> tuple[tuple[int, ...], ...] | None:
    raw = tbl.raw(key, None)
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 10:
        raise tbl.error(key, "expected 10 rows of 10 rolls (2..7, 7 = impossible)")
    rows = []
    for r, row in enumerate(raw):
        ok = isinstance(row, list) and len(row) == 10
        ok = ok and all(isinstance(v, int) and not isinstance(v, bool) and 2 <= v <= 7 for v in row)
        if not ok:
            raise ScenarioError(
                tbl.source, f"{tbl.key(key)}[{r}]", "expected 10 rolls from 2 to 7 (7 = impossible)"
            )
        rows.append(tuple(row))
    return tuple(rows)


def _read_rules(tbl: Table) -> Rules:
    r = Rules(
        max_turns=tbl.int("max_turns", 1, min=1, max=20),
        double_one_passes=tbl.bool("double_one_passes", False),
        below_half_penalty=tbl.bool("below_half_penalty", False),
        unit_leadership=tbl.str("unit_leadership", "highest", choices=LD_MODES),
        reach=tbl.str("reach", "engaged", choices=REACH_MODES),
        tie_save=tbl.str("tie_save", "better", choices=TIE_SAVE),
        tie_toughness=tbl.str("tie_toughness", "higher", choices=TIE_T),
        fist_strikes_last=tbl.bool("fist_strikes_last", True),
        sweep_support=tbl.str("sweep_support", "profile", choices=SWEEP_SUPPORT),
        pile_in=tbl.bool("pile_in", True),
        majority=tbl.str("majority", "most-common", choices=MAJORITY),
        frag_grenades=tbl.str("frag_grenades", "target", choices=FRAG_MODES),
        plasma_grenades=tbl.str("plasma_grenades", "per-unit", choices=PLASMA_MODES),
        to_hit_chart=_read_chart(tbl, "to_hit_chart"),
        to_wound_chart=_read_chart(tbl, "to_wound_chart"),
    )
    tbl.finish()
    return r


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
    from oddslab.scenario import read_run_options

    _check_keys(root, ROOT_KEYS)
    for side in ("attacker", "defender"):
        if isinstance(root.raw(side, None), dict):
            _check_keys(root.table(side), SIDE_KEYS)
    run = read_run_options(root, "assault")
    attacker = _read_side(root.table("attacker"), True)
    defender = _read_side(root.table("defender"), False)
    rules = _read_rules(root.table("rules", {}))
    root.finish()
    _check_targets(root, (attacker, defender))
    try:
        return AssaultScenario(attacker, defender, rules, **run)
    except ValueError as exc:  # pragma: no cover - guarded by the readers above
        raise ScenarioError(root.source, "", str(exc)) from None
