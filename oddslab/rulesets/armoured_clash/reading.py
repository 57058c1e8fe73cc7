"""Armoured Clash scenario files: TOML tables -> the model, errors naming the key.

Every key is declared once in :mod:`.schema` (type, range, choices, default, help); this
module reads the file through that declaration and builds the model, then runs the checks
that involve more than one key.
"""

from __future__ import annotations

from dataclasses import replace

from oddslab._schema import ScenarioError, Table
from oddslab.keys import Values
from oddslab.rulesets.armoured_clash.model import (
    FACE_KINDS,
    SIDES,
    Armaments,
    Attack,
    AttackDie,
    RangedAttack,
    Rules,
    Situation,
    Unit,
)
from oddslab.rulesets.armoured_clash.scenario import ArmouredClashScenario
from oddslab.rulesets.armoured_clash.schema import SCHEMA

__all__ = ["from_table"]

_RUN = ("name", "description", "trials", "seed")
_SITUATION = (
    "aiming", "short_range", "concealed", "exposed", "opportunity_fire", "reforming",
    "outflanking", "supported", "threatened", "defensive_advantage", "defender_supported",
    "defender_threatened", "secondary", "charge", "new_activation", "extra_rerolls",
    "extra_rerolls_from", "defender_extra_rerolls", "defender_extra_rerolls_from", "rating",
    "defender_rating",
)  # fmt: skip


def _tuple(v):
    return None if v is None else tuple(v)


def _ranged(v: Values, index: int) -> RangedAttack:
    return RangedAttack(
        name=v["name"] if v["name"] is not None else f"ranged {index + 1}",
        dice=tuple(v["dice"]),
        vs=tuple(v["vs"]),
        short=float(v["short"]),
        long=float(v["long"]),
        reload=v["reload"],
    )


def _unit(name: str, v: Values) -> Unit:
    kw = {k: x for k, x in v.items() if k not in ("ranged", "melee", "impact")}
    if isinstance(kw["vp"], list):
        kw["vp"] = tuple(kw["vp"])
    kw["armaments"] = Armaments(
        ranged=tuple(_ranged(r, i) for i, r in enumerate(v["ranged"])),
        melee=_tuple(v["melee"]),
        impact=_tuple(v["impact"]),
    )
    probe = Unit.__new__(Unit)
    for k, x in {"name": name, **kw}.items():
        object.__setattr__(probe, k, x)
    problems = probe.problems()
    if problems:
        key, text = problems[0]
        raise v.error(key, text)
    return Unit(name=name, **kw)  # type: ignore[arg-type]


def _attack(v: Values) -> Attack:
    s = Situation(**{k: v[k] for k in _SITUATION})
    a = Attack(
        attacker=v["attacker"], target=v["target"], kind=v["kind"], weapon=v["weapon"],
        situation=s,
    )  # fmt: skip
    object.__setattr__(a, "_repeat", v["repeat"])
    return a


def from_table(root: Table) -> ArmouredClashScenario:
    """Build an :class:`ArmouredClashScenario` from a scenario file's root table."""
    v = SCHEMA.read(root)
    run = {k: v[k] for k in _RUN}
    try:
        die = AttackDie(**{k: v["die"][k] for k in FACE_KINDS})
    except ValueError as exc:
        raise v["die"].error("", str(exc)) from None
    decks = {side: tuple(v["decks"][side]["cards"]) for side in SIDES if v["decks"][side]}
    if len(v["units"]) < 1:
        raise root.error("units", "expected at least two units ([units.NAME] tables)")
    units = tuple(_unit(name, u) for name, u in v["units"].items())
    attacks: list[Attack] = []
    for t in v["attacks"]:
        a = _attack(t)
        # one attack step per activation: each repetition is a later activation of its
        # active unit (rally test, statuses expiring), e.g. the same fire in later rounds
        again = replace(a, situation=replace(a.situation, new_activation=True))
        attacks += [a] + [again] * (getattr(a, "_repeat", 1) - 1)
    rules = Rules(**dict(v["rules"]))
    sc = ArmouredClashScenario.__new__(ArmouredClashScenario)
    kw = dict(
        units=units, attacks=tuple(attacks), die=die, decks=decks, rules=rules, focus=v["focus"]
    )
    for k, x in {**kw, **run}.items():
        object.__setattr__(sc, k, x)
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
