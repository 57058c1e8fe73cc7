"""Scenario files: the ``assault-phase`` TOML tables -> :class:`AssaultScenario`.

Every problem is one :class:`ScenarioError` naming the file and the key path.
"""

from __future__ import annotations

from typing import Any

from oddslab._schema import ScenarioError, Table
from oddslab.rulesets.assault_phase.model import (
    GRENADES,
    LD_MODES,
    REACH_MODES,
    SIDES,
    SWEEP_SUPPORT,
    TIE_SAVE,
    TIE_T,
    WEAPONS,
    AssaultScenario,
    ModelGroup,
    Rules,
    Side,
    Unit,
)

__all__ = ["from_table"]


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
        target=tbl.str("target", None),
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
    tbl.finish()
    return ModelGroup(**kwargs)


def _read_unit(tbl: Table, index: int, attacking: bool) -> Unit:
    name = tbl.str("name", f"unit {index + 1}")
    groups = tuple(_read_group(t, i) for i, t in enumerate(tbl.tables("groups", min_len=1)))
    kw: dict[str, Any] = {"fast": tbl.bool("fast", False), "trapped": tbl.bool("trapped", False)}
    if attacking:
        kw["grenades"] = tbl.str("grenades", "none", choices=GRENADES)
        kw["fired"] = tbl.bool("fired", False)
        kw["charge_distance"] = tbl.int(
            "charge_distance", 0, min=0, max=6, what="inches from 0 (no difficult terrain) to 6"
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
                if grp.target is not None and grp.target not in names:
                    raise ScenarioError(
                        root.source,
                        f"{SIDES[s]}.units[{i}].groups[{j}].target",
                        f"'{grp.target}' is not an enemy unit or independent character "
                        f"(known: {', '.join(sorted(names))})",
                    )


def from_table(root: Table) -> AssaultScenario:
    """Build an :class:`AssaultScenario` from a scenario file's root table."""
    from oddslab.scenario import read_run_options

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
