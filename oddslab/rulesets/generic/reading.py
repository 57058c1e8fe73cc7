"""Scenario files (TOML tables) → the generic model; every error names its key."""

from __future__ import annotations

from oddslab._schema import ScenarioError, Table
from oddslab.rulesets.generic.model import (
    REROLL_MODES,
    SPILL_MODES,
    GenericScenario,
    Rules,
    Target,
    Weapon,
)

__all__ = ["from_table"]


def _reroll(tbl: Table, key: str) -> str | tuple[int, ...]:
    raw = tbl.raw(key, "none")
    if isinstance(raw, list):
        return tuple(tbl.int_list(key, min=1, max=6))
    return tbl.str(key, "none", choices=REROLL_MODES)


def _read_weapon(tbl: Table, index: int) -> Weapon:
    w = Weapon(
        name=tbl.str("name", f"weapon {index + 1}"),
        models=tbl.int("models", 1, min=1, max=1000),
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
        ap=tbl.int("ap", 0, min=0, max=6, what="AP as a positive number (AP -2 is 2) from 0 to 6"),
        damage=tbl.dice("damage", 1),
    )
    tbl.finish()
    return w


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
    }
    if kw["damaged"] >= kw["wounds"]:
        raise tbl.error(
            "damaged", f"must be less than wounds ({kw['wounds']}), got {kw['damaged']}"
        )
    tbl.finish()
    return Target(**kw)


def _read_rules(tbl: Table) -> Rules:
    r = Rules(
        spill=tbl.str("spill", "none", choices=SPILL_MODES),
        natural_one_fails=tbl.bool("natural_one_fails", True),
        natural_six_succeeds=tbl.bool("natural_six_succeeds", True),
        cover_limit=tbl.bool("cover_limit", True),
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
