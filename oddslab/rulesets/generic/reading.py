"""Scenario files (TOML tables) → the generic model; every error names its key."""

from __future__ import annotations

from typing import Any

from oddslab._schema import ScenarioError, Table
from oddslab.rulesets.generic.model import (
    DAMAGE_REROLL_MODES,
    DEVASTATING_RULES,
    REROLL_MODES,
    SAVE_REROLL_MODES,
    SPILL_MODES,
    GenericScenario,
    Rules,
    Target,
    Weapon,
)

__all__ = ["from_table", "write_dict"]


def _reroll(tbl: Table, key: str) -> str | tuple[int, ...]:
    raw = tbl.raw(key, "none")
    if isinstance(raw, list):
        return tuple(tbl.int_list(key, min=1, max=6))
    return tbl.str(key, "none", choices=REROLL_MODES)


def _read_weapon(tbl: Table, index: int) -> Weapon:
    w = _make(
        tbl,
        Weapon,
        dict(
            name=tbl.str("name", f"weapon {index + 1}"),
            models=tbl.int("models", 1, min=0, max=1000),
            attacks=tbl.dice("attacks"),
            skill=tbl.int("skill", 4, min=2, max=6, what="a hit roll from 2 (2+) to 6 (6+)"),
            hit_modifier=tbl.int("hit_modifier", 0, min=-6, max=6),
            reroll_hits=_reroll(tbl, "reroll_hits"),
            critical_hit=tbl.int("critical_hit", 6, min=2, max=6),
            sustained_hits=tbl.dice("sustained_hits", 0),
            lethal_hits=tbl.bool("lethal_hits", False),
            torrent=tbl.bool("torrent", False),
            strength=tbl.int("strength", 4, min=1, max=30),
            wound=tbl.int(
                "wound", None, min=2, max=7, what="a wound roll from 2 (2+) to 7 (criticals only)"
            ),
            wound_modifier=tbl.int("wound_modifier", 0, min=-6, max=6),
            reroll_wounds=_reroll(tbl, "reroll_wounds"),
            critical_wound=tbl.int("critical_wound", 6, min=2, max=6),
            devastating_wounds=tbl.bool("devastating_wounds", False),
            ap=tbl.int(
                "ap", 0, min=0, max=6, what="AP as a positive number (AP -2 is 2) from 0 to 6"
            ),
            damage=tbl.dice("damage", 1),
            reroll_damage=tbl.str("reroll_damage", "none", choices=DAMAGE_REROLL_MODES),
            critical_extra_attacks=tbl.dice("critical_extra_attacks", 0),
            critical_hit_mortals=tbl.dice("critical_hit_mortals", 0),
            critical_hit_mortals_instead=tbl.bool("critical_hit_mortals_instead", False),
            critical_wound_mortals=tbl.dice("critical_wound_mortals", 0),
            critical_wound_mortals_instead=tbl.bool("critical_wound_mortals_instead", False),
            critical_wound_ap=tbl.int("critical_wound_ap", 0, min=0, max=6),
            critical_wound_damage=tbl.int("critical_wound_damage", 0, min=0, max=20),
            anti=_read_anti(tbl),
        ),
    )
    tbl.finish()
    return w


def _read_anti(tbl: Table) -> tuple[tuple[str, int], ...]:
    """``anti = { infantry = 4, monster = 5 }``: keyword → X (critical wounds on X+)."""
    sub = tbl.table("anti", {})
    out = []
    for kw in list(sub.data):
        out.append((kw.lower(), sub.int(kw, min=2, max=6, what="an anti-X roll from 2 to 6")))
    sub.finish()
    return tuple(out)


def _make(tbl: Table, cls, kw: dict):
    """Build a dataclass; a cross-field ValueError names this table."""
    try:
        return cls(**kw)
    except ValueError as exc:
        raise tbl.error(
            "", str(exc).split(".", 1)[-1] if "." in str(exc)[:20] else str(exc)
        ) from None


def _read_target(tbl: Table) -> Target:
    kw = {
        "name": tbl.str("name", "target"),
        "models": tbl.int("models", min=1, max=1000),
        "wounds": tbl.int("wounds", 1, min=1, max=100),
        "toughness": tbl.int("toughness", 4, min=1, max=30),
        "save": tbl.int("save", 7, min=2, max=7, what="a save from 2 (2+) to 7 (no save)"),
        "invulnerable": tbl.int("invulnerable", None, min=2, max=6),
        "feel_no_pain": tbl.int("feel_no_pain", None, min=2, max=6),
        "damaged": tbl.int("damaged", 0, min=0, max=99),
        "cover": tbl.bool("cover", False),
        "keywords": tuple(_str_list(tbl, "keywords")),
        "save_modifier": tbl.int("save_modifier", 0, min=-6, max=6),
        "reroll_saves": tbl.str("reroll_saves", "none", choices=SAVE_REROLL_MODES),
        "reroll_invulnerable": tbl.str("reroll_invulnerable", "none", choices=SAVE_REROLL_MODES),
        "ignore_ap": tbl.bool("ignore_ap", False),
        "ap_reduction": tbl.int("ap_reduction", 0, min=0, max=6),
        "damage_reduction": tbl.int("damage_reduction", 0, min=0, max=20),
        "halve_damage": tbl.bool("halve_damage", False),
        "feel_no_pain_mortal": tbl.int("feel_no_pain_mortal", None, min=2, max=6),
    }
    if kw["damaged"] >= kw["wounds"]:
        raise tbl.error(
            "damaged", f"must be less than wounds ({kw['wounds']}), got {kw['damaged']}"
        )
    tbl.finish()
    return _make(tbl, Target, kw)


def _str_list(tbl: Table, key: str) -> list[str]:
    raw = tbl.raw(key, [])
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise tbl.error(key, f'expected an array of strings like ["infantry"], got {raw!r}')
    return raw


def _read_rules(tbl: Table) -> Rules:
    r = Rules(
        spill=tbl.str("spill", "none", choices=SPILL_MODES),
        natural_one_fails=tbl.bool("natural_one_fails", True),
        natural_six_succeeds=tbl.bool("natural_six_succeeds", True),
        cover_limit=tbl.bool("cover_limit", True),
        devastating_wounds=tbl.str("devastating_wounds", "current", choices=DEVASTATING_RULES),
        modifier_cap=tbl.bool("modifier_cap", True),
        stack_feel_no_pain=tbl.bool("stack_feel_no_pain", False),
        damage_modifiers_on_devastating=tbl.bool("damage_modifiers_on_devastating", True),
    )
    tbl.finish()
    return r


def from_table(root: Table) -> GenericScenario:
    """Build a :class:`GenericScenario` from a scenario file's root table."""
    from oddslab.scenario import read_run_options

    run = read_run_options(root, "generic attack")
    attacker = root.table("attacker")
    attacker.str("name", "attacker")
    weapons = tuple(_read_weapon(t, i) for i, t in enumerate(attacker.tables("weapons", min_len=1)))
    attacker.finish()
    target = _read_target(root.table("target"))
    rules = _read_rules(root.table("rules", {}))
    root.finish()
    try:
        return GenericScenario(weapons, target, rules, **run)
    except ValueError as exc:  # pragma: no cover - guarded by the readers above
        raise ScenarioError(root.source, "", str(exc)) from None


def write_dict(sc: GenericScenario) -> dict[str, Any]:
    """The scenario as the dict :func:`from_table` reads (every key written, ``None`` left
    out): the inverse of reading, for scenarios built in Python."""
    import dataclasses

    from oddslab.dice import DiceExpr

    def plain(v: Any) -> Any:
        if isinstance(v, DiceExpr):
            text = str(v)
            return int(text) if text.isdigit() else text
        if isinstance(v, tuple):
            return [plain(x) for x in v]
        return v

    def table(obj: Any) -> dict[str, Any]:
        out = {}
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            if v is None:
                continue
            out[f.name] = dict(v) if f.name == "anti" else plain(v)
        return out

    data: dict[str, Any] = {"ruleset": "generic", "name": sc.name}
    if sc.description:
        data["description"] = sc.description
    for key in ("trials", "seed"):
        if getattr(sc, key) is not None:
            data[key] = getattr(sc, key)
    data["attacker"] = {"weapons": [table(w) for w in sc.weapons]}
    data["target"] = table(sc.target)
    data["rules"] = table(sc.rules)
    return data
