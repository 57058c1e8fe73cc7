"""Armoured Clash scenario files: TOML tables -> the model, errors naming the key."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from oddslab._schema import ScenarioError, Table
from oddslab.rulesets.armoured_clash.model import (
    CATEGORIES,
    EXPIRY,
    FACE_KINDS,
    FORMATIONS,
    LEVELS,
    MAX_DICE,
    MAX_MODELS,
    OFFICER_MODES,
    RATINGS,
    REROLL_SOURCES,
    REROLLABLE,
    SIDES,
    UNIT_TYPES,
    Armaments,
    Attack,
    AttackDie,
    RangedAttack,
    Rules,
    Situation,
    Unit,
)
from oddslab.rulesets.armoured_clash.scenario import ArmouredClashScenario
from oddslab.rulesets.armoured_clash.situation import (
    CANNOT_BE_SUPPRESSED,
    GARRISON_EXIT,
    RETALIATION_ANNIHILATES,
    SECONDARIES_WITH_ADVANTAGE,
    SECONDARY_RETALIATION,
)

__all__ = ["from_table"]


def _int_col(tbl: Table, key: str, default: Any = None) -> tuple[int, ...] | None:
    if not tbl.has(key):
        tbl.raw(key, None)
        return default
    vals = tbl.int_list(key, min=0, max=MAX_DICE)
    if not vals:
        raise tbl.error(key, "expected at least one entry")
    return tuple(vals)


def _read_ranged(tbl: Table, index: int) -> RangedAttack:
    vs = tbl.raw("vs", ["light", "heavy"])
    if isinstance(vs, str):
        vs = [vs]
    if not isinstance(vs, list) or not vs or any(v not in CATEGORIES for v in vs):
        raise tbl.error("vs", f"expected a list of categories among {', '.join(CATEGORIES)}")
    r = RangedAttack(
        name=tbl.str("name", f"ranged {index + 1}"),
        dice=_int_col(tbl, "dice", None) or (),
        vs=tuple(vs),
        short=tbl.float("short", 0.0, min=0.0, max=1000.0),
        long=tbl.float("long", 0.0, min=0.0, max=1000.0),
        reload=tbl.bool("reload", False),
    )
    if not r.dice:
        raise tbl.error("dice", "required key is missing")
    tbl.finish()
    return r


def _read_unit(name: str, tbl: Table) -> Unit:
    vp_raw = tbl.raw("vp", 0)
    if isinstance(vp_raw, list):
        vp: int | tuple[int, ...] = tuple(tbl.int_list("vp", min=0, max=10_000))
    else:
        vp = tbl.int("vp", 0, min=0, max=10_000)
    ranged = tuple(_read_ranged(t, i) for i, t in enumerate(tbl.tables("ranged", [])))
    kw = dict(
        name=name,
        side=tbl.str("side", choices=SIDES),
        type=tbl.str("type", "infantry", choices=UNIT_TYPES),
        category=tbl.str("category", "light", choices=CATEGORIES),
        models=tbl.int("models", min=1, max=MAX_MODELS),
        defence=tbl.int("defence", min=1, max=50),
        damage_limit=tbl.int("damage_limit", 1, min=1, max=50),
        discipline=tbl.int("discipline", min=-5, max=100),
        damage=tbl.int("damage", 0, min=0, max=49),
        break_limit=tbl.int("break_limit", None, min=0, max=MAX_MODELS),
        vp=vp,
        reinforcement=tbl.str("reinforcement", "basic", choices=LEVELS),
        formation=tbl.str("formation", "open", choices=FORMATIONS),
        officer=tbl.str("officer", None, choices=OFFICER_MODES),
        commander_nearby=tbl.bool("commander_nearby", False),
        suppressed=tbl.bool("suppressed", False),
        disordered=tbl.bool("disordered", False),
        taking_cover=tbl.bool("taking_cover", False),
        garrisoned=tbl.bool("garrisoned", False),
        reloading=tbl.bool("reloading", False),
        armaments=Armaments(
            ranged=ranged, melee=_int_col(tbl, "melee"), impact=_int_col(tbl, "impact")
        ),
        capacity=tbl.int("capacity", 0, min=0, max=100),
        carrying=tbl.str("carrying", None),
        fall_back_losses=tbl.int("fall_back_losses", 0, min=0, max=MAX_MODELS),
        flees_field=tbl.bool("flees_field", False),
        withdraw_losses=tbl.int("withdraw_losses", 0, min=0, max=MAX_MODELS),
    )
    tbl.finish()
    probe = Unit.__new__(Unit)
    for k, v in kw.items():
        object.__setattr__(probe, k, v)
    problems = probe.problems()
    if problems:
        key, text = problems[0]
        raise tbl.error(key, text)
    return Unit(**kw)  # type: ignore[arg-type]


def _str_list(tbl: Table, key: str, choices: Sequence[str] | None = None) -> tuple[str, ...]:
    v = tbl.raw(key, [])
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or any(not isinstance(x, str) for x in v):
        raise tbl.error(key, "expected a list of strings")
    if choices is not None:
        for x in v:
            if x not in choices:
                raise tbl.error(key, f"'{x}' is not one of {', '.join(choices)}")
    return tuple(v)


def _opt_bool(tbl: Table, key: str) -> bool | None:
    """``true`` / ``false``, or None when the key is absent (the value is then derived)."""
    return tbl.bool(key) if tbl.has(key) else None


def _read_attack(tbl: Table) -> Attack:
    exposed = tbl.int("exposed", None, min=1, max=MAX_MODELS)
    s = Situation(
        aiming=tbl.bool("aiming", False),
        short_range=tbl.bool("short_range", False),
        concealed=tbl.bool("concealed", False),
        exposed=exposed,
        opportunity_fire=tbl.bool("opportunity_fire", False),
        reforming=tbl.bool("reforming", False),
        outflanking=tbl.bool("outflanking", False),
        supported=_opt_bool(tbl, "supported"),
        threatened=_opt_bool(tbl, "threatened"),
        defensive_advantage=tbl.bool("defensive_advantage", False),
        defender_supported=_opt_bool(tbl, "defender_supported"),
        defender_threatened=_opt_bool(tbl, "defender_threatened"),
        secondary=_str_list(tbl, "secondary"),
        charge=tbl.bool("charge", True),
        new_activation=_opt_bool(tbl, "new_activation"),
        extra_rerolls=_str_list(tbl, "extra_rerolls", REROLLABLE),
        extra_rerolls_from=tbl.str("extra_rerolls_from", "command", choices=REROLL_SOURCES),
        defender_extra_rerolls=_str_list(tbl, "defender_extra_rerolls", REROLLABLE),
        defender_extra_rerolls_from=tbl.str(
            "defender_extra_rerolls_from", "command", choices=REROLL_SOURCES
        ),
        rating=tbl.str("rating", None, choices=RATINGS),
        defender_rating=tbl.str("defender_rating", None, choices=RATINGS),
    )
    a = Attack(
        attacker=tbl.str("attacker"),
        target=tbl.str("target"),
        kind=tbl.str("kind", "ranged", choices=("ranged", "close")),
        weapon=tbl.str("weapon", None),
        situation=s,
    )
    repeat = tbl.int("repeat", 1, min=1, max=100)
    tbl.finish()
    object.__setattr__(a, "_repeat", repeat)
    return a


def from_table(root: Table) -> ArmouredClashScenario:
    """Build an :class:`ArmouredClashScenario` from a scenario file's root table."""
    from oddslab.scenario import read_run_options

    run = read_run_options(root, "armoured clash")
    dt = root.table("die", {})
    die_kw = {k: dt.int(k, getattr(AttackDie(), k), min=0, max=1000) for k in FACE_KINDS}
    dt.finish()
    try:
        die = AttackDie(**die_kw)
    except ValueError as exc:
        raise dt.error("", str(exc)) from None
    decks: dict[str, tuple[int, ...]] = {}
    dk = root.table("decks", {})
    for side in SIDES:
        if dk.has(side):
            t = dk.table(side)
            cards = t.int_list("cards", min=-100, max=100)
            if not 1 <= len(cards) <= 1000:
                raise t.error("cards", "expected 1 to 1000 cards")
            decks[side] = tuple(cards)
            t.finish()
    dk.finish()
    ut = root.table("units")
    if not ut.data:
        raise root.error("units", "expected at least two units ([units.NAME] tables)")
    units = tuple(_read_unit(name, ut.table(name)) for name in list(ut.data))
    ut.finish()
    attacks: list[Attack] = []
    for t in root.tables("attacks", min_len=1):
        a = _read_attack(t)
        # one attack step per activation: each repetition is a later activation of its
        # active unit (rally test, statuses expiring), e.g. the same fire in later rounds
        again = replace(a, situation=replace(a.situation, new_activation=True))
        attacks += [a] + [again] * (getattr(a, "_repeat", 1) - 1)
    rt = root.table("rules", {})
    rules = Rules(
        embarked_tests=rt.str("embarked_tests", "always", choices=("always", "on_fail")),
        rally_test=rt.bool("rally_test", True),
        activations=rt.bool("activations", True),
        status_expiry=rt.str("status_expiry", "held_at_start", choices=EXPIRY),
        secondary_retaliation=rt.str(
            "secondary_retaliation", "with_target", choices=SECONDARY_RETALIATION
        ),
        cannot_be_suppressed=rt.str(
            "cannot_be_suppressed", "no_test", choices=CANNOT_BE_SUPPRESSED
        ),
        retaliation_annihilates=rt.str(
            "retaliation_annihilates", "action_ends", choices=RETALIATION_ANNIHILATES
        ),
        secondaries_with_advantage=rt.str(
            "secondaries_with_advantage", "with_target", choices=SECONDARIES_WITH_ADVANTAGE
        ),
        garrison_exit=rt.str("garrison_exit", "any_loss", choices=GARRISON_EXIT),
    )
    rt.finish()
    focus = root.str("focus", None)
    root.finish()
    sc = ArmouredClashScenario.__new__(ArmouredClashScenario)
    kw = dict(units=units, attacks=tuple(attacks), die=die, decks=decks, rules=rules, focus=focus)
    for k, v in {**kw, **run}.items():
        object.__setattr__(sc, k, v)
    problems = sc.problems()
    if problems:
        key, text = problems[0]
        raise ScenarioError(root.source, _file_key(key, root, attacks), text)
    return ArmouredClashScenario(**kw, **run)  # type: ignore[arg-type]


def _file_key(key: str, root: Table, attacks: list[Attack]) -> str:
    """Map an attack index after ``repeat`` expansion back to its ``attacks[i]`` table."""
    if not key.startswith("attacks["):
        return key
    i = int(key[len("attacks[") : key.index("]")])
    seen = 0
    j = 0
    for t_index, item in enumerate(root.data.get("attacks", [])):
        rep = int(item.get("repeat", 1)) if isinstance(item, dict) else 1
        if i < seen + rep:
            j = t_index
            break
        seen += rep
    return f"attacks[{j}]" + key[key.index("]") + 1 :]
