"""Scenario files (TOML tables) → the generic model; every error names its key."""

from __future__ import annotations

from oddslab._schema import ScenarioError, Table
from oddslab.rulesets.generic.model import (
    ALLOCATION_POLICIES,
    DAMAGE_REROLL_MODES,
    DEVASTATING_RULES,
    REROLL_MODES,
    SAVE_REROLL_MODES,
    SPILL_MODES,
    GenericScenario,
    ModelGroup,
    Rules,
    Situation,
    Target,
    Weapon,
)
from oddslab.rulesets.generic.target import ONE_OFF_ATTACKER, ONE_OFF_DEFENDER

__all__ = ["from_table"]


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
            **_read_keyword_keys(tbl),
        ),
    )
    tbl.finish()
    return w


def _read_keyword_keys(tbl: Table) -> dict:
    """``keywords`` as printed (checked here so an error names the key) and every keyword's
    own key."""
    from oddslab.rulesets.generic.keywords import parse_keywords

    ignore = tuple(_str_list(tbl, "ignore_keywords"))
    raw = tbl.raw("keywords", [])
    try:
        parse_keywords(raw, ignore)
    except ValueError as exc:
        raise tbl.error("keywords", str(exc)) from None
    half = tbl.raw("half_range", None)
    return dict(
        keywords=raw,
        ignore_keywords=ignore,
        range=tbl.int("range", None, min=0, max=1000, what="the range in inches"),
        half_range=None if half is None else tbl.bool("half_range"),
        blast=tbl.bool("blast", False),
        melta=tbl.int("melta", 0, min=0, max=20),
        rapid_fire=tbl.int("rapid_fire", 0, min=0, max=20),
        heavy=tbl.bool("heavy", False),
        lance=tbl.bool("lance", False),
        indirect_fire=tbl.bool("indirect_fire", False),
        ignores_cover=tbl.bool("ignores_cover", False),
        twin_linked=tbl.bool("twin_linked", False),
        extra_attacks=tbl.bool("extra_attacks", False),
        hazardous=tbl.bool("hazardous", False),
        precision=tbl.bool("precision", False),
    )


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


def _read_group(tbl: Table, i: int, unit: dict) -> ModelGroup:
    """One ``[[target.models]]`` group; wounds, save... default to the unit's keys."""
    g = _make(
        tbl,
        ModelGroup,
        dict(
            name=tbl.str("name", f"group {i + 1}"),
            models=tbl.int("models", 1, min=1, max=1000),
            wounds=tbl.int("wounds", unit["wounds"], min=1, max=100),
            save=tbl.int("save", unit["save"], min=2, max=7, what="a save from 2 (2+) to 7"),
            invulnerable=tbl.int("invulnerable", unit["invulnerable"], min=2, max=6),
            feel_no_pain=tbl.int("feel_no_pain", unit["feel_no_pain"], min=2, max=6),
            toughness=tbl.int("toughness", None, min=1, max=30),
            keywords=tuple(_str_list(tbl, "keywords")),
            character=tbl.bool("character", False),
        ),
    )
    tbl.finish()
    return g


def _read_target(tbl: Table) -> Target:
    grouped = isinstance(tbl.data.get("models"), list)
    kw = {
        "name": tbl.str("name", "target"),
        "models": 1 if grouped else tbl.int("models", min=1, max=1000),
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
        "reroll_one": tbl.str("reroll_one", "none", choices=ONE_OFF_DEFENDER),
    }
    if grouped:
        tables = tbl.tables("models", min_len=1)
        kw["groups"] = tuple(_read_group(t, i, kw) for i, t in enumerate(tables))
        names = [g.name for g in kw["groups"]]
        for i, name in enumerate(names):
            if name in names[:i]:
                raise tables[i].error("name", f"another group is already named {name!r}")
        if kw["damaged"]:
            raise tbl.error("damaged", "not supported for a unit with groups of models")
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
        allocation=tbl.str("allocation", "listed", choices=ALLOCATION_POLICIES),
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
    situation = dict(
        remained_stationary=attacker.bool("remained_stationary", False),
        charged=attacker.bool("charged", False),
        half_range=attacker.bool("half_range", False),
        reroll_one=attacker.str("reroll_one", "none", choices=ONE_OFF_ATTACKER),
        attacker_models=attacker.int("models", None, min=1, max=1000),
        attacker_wounds=attacker.int("wounds", 1, min=1, max=100),
        attacker_keywords=tuple(_str_list(attacker, "keywords")),
    )
    attacker.finish()
    target_tbl = root.table("target")
    situation["target_visible"] = target_tbl.bool("target_visible", True)
    target = _read_target(target_tbl)
    rules = _read_rules(root.table("rules", {}))
    root.finish()
    try:
        return GenericScenario(weapons, target, rules, situation=Situation(**situation), **run)
    except ValueError as exc:  # a switch without its partner: "rules.key needs ..."
        key, _, problem = str(exc).partition(" ")
        if not key.startswith(("rules.", "target.", "attacker.")):
            key, problem = "", str(exc)
        raise ScenarioError(root.source, key, problem) from None
