"""Armoured Clash statistics: names by whose fate they are, plain-words labels, headlines.

The statistics describe the **focus unit** (default: the first attack's target) and the
two sides. Every name starts with the side the thing happened *to*: the focus unit's side
``S`` ("attacker" or "defender", from its ``side``) or the other side ``O``; e.g. with a
defending focus unit: ``defender_models_lost`` (the focus unit's models lost),
``hits_on_defender``, ``attacker_models_lost`` (every unit of the other side),
``attacker_vp`` (VPs *scored by* the attacker). Only statistics the scenario can produce
are reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from oddslab.outcome import Headline, Stat
from oddslab.rulesets.armoured_clash import layout as K
from oddslab.rulesets.armoured_clash.validate import (
    activation_plan,
    close_column,
    ranged_row,
    retaliating,
)

if TYPE_CHECKING:
    from oddslab.rulesets.armoured_clash.model import Unit
    from oddslab.rulesets.armoured_clash.scenario import ArmouredClashScenario

__all__ = ["Reported", "reported", "stats", "headlines", "primary"]


@dataclass(frozen=True)
class Reported:
    """One reported statistic: its kernel index ``K.ST_*`` and how it is shown."""

    index: int
    stat: Stat


def _plain(name: str) -> str:
    return name.replace("_", " ")


def _other(side: str) -> str:
    return "defender" if side == "attacker" else "attacker"


def _focus(sc: ArmouredClashScenario) -> Unit:
    return next(u for u in sc.units if u.name == sc.focus_unit)


def _per_die(sc: ArmouredClashScenario) -> int:
    """Most hits one original die can score: a heroic strike (2) plus its added die (2)."""
    d = sc.die
    return 4 if d.heroic > 0 else (1 if d.strike > 0 else 0)


def _hits_bound(sc: ArmouredClashScenario, f: Unit) -> int:
    by = {u.name: u for u in sc.units}
    per_die = _per_die(sc)
    hits = 0
    for a in sc.attacks:
        att = by[a.attacker]
        if a.target == f.name:
            if a.kind == "ranged":
                row = ranged_row(a, att, by[a.target])
                assert row is not None
                hits += per_die * max(row.dice)
            else:
                hits += per_die * max(close_column(a, att) or (0,))
        if a.kind == "close" and a.attacker == f.name:
            for nm in retaliating(sc, a):
                hits += per_die * max(by[nm].armaments.melee or (0,))
    return hits


def _test_kind(sc: ArmouredClashScenario, f: Unit, i: int) -> int:
    """The suppression test unit ``f`` can take in step ``i``: 0 none, 1 one whose failure
    can make it suppressed, 2 one whose failure cannot ("cannot be suppressed": the target of
    opportunity fire or an aircraft, with ``[rules] cannot_be_suppressed = "no_status"``)."""
    tested = 0
    a = sc.attacks[i]
    if a.kind == "ranged" and a.target == f.name:
        if not a.situation.opportunity_fire:
            tested = 1
        elif sc.rules.cannot_be_suppressed == "no_status":
            tested = 2
    if a.kind == "close" and f.name in (a.attacker, a.target):
        tested = 1
    for c in sc.units:
        if c.carrying == f.name:  # a passenger tests when its transport does
            tested = max(tested, _test_kind(sc, c, i))
    if tested and f.type == "aircraft":
        tested = 2 if sc.rules.cannot_be_suppressed == "no_status" else 0
    return tested


def _tests(sc: ArmouredClashScenario, f: Unit) -> int:
    """Most suppression tests the unit can take in the sequence."""
    return sum(_test_kind(sc, f, i) > 0 for i in range(len(sc.attacks)))


def _can_fall_back(sc: ArmouredClashScenario, f: Unit) -> bool:
    """Can ``f`` fail a test while suppressed? Walks the sequence: suppressed at the start or
    after a test; the suppression it held when its activation started ends with it."""
    maybe = f.suppressed
    held = tested = False
    for i, (active, start, end) in enumerate(activation_plan(sc)):
        mine = sc.rules.activations and active == f.name
        if mine and start:
            held, tested = maybe, False
        kind = _test_kind(sc, f, i)
        if kind:
            if maybe:
                return True
            if kind == 1:
                maybe = tested = True
        if mine and end:
            all_lost = sc.rules.status_expiry == "all"
            maybe = False if all_lost else (tested if held else maybe)
    return False


def _max_losses(sc: ArmouredClashScenario, u: Unit) -> int:
    """An upper bound on the models ``u`` can lose (damage, withdrawals, fall back, capacity)."""
    by = {x.name: x for x in sc.units}
    per_die = _per_die(sc)
    dmg = 0
    for a in sc.attacks:
        att = by[a.attacker]
        if a.target == u.name:
            if a.kind == "ranged":
                row = ranged_row(a, att, u)
                dmg += per_die * max(row.dice) // u.defence if row is not None else 0
            else:
                dmg += per_die * max(close_column(a, att) or (0,)) // u.defence
        if a.kind == "close" and a.attacker == u.name:
            for nm in retaliating(sc, a):
                dmg += per_die * max(by[nm].armaments.melee or (0,)) // u.defence
    n = (dmg + u.damage) // u.damage_limit + u.withdraw_losses + u.fall_back_losses
    carrier = next((c for c in sc.units if c.carrying == u.name), None)
    if carrier is not None and _max_losses(sc, carrier) > 0:
        n = u.models
    return min(n, u.models)


def _can_annihilate(sc: ArmouredClashScenario, u: Unit) -> bool:
    """Can ``u`` be annihilated in the sequence (destroyed, broken, fled, its transport lost)?"""
    if _max_losses(sc, u) >= u.models:
        return True
    tests = _tests(sc, u)
    if tests > 0 and u.break_limit is not None and u.models - _max_losses(sc, u) <= u.break_limit:
        return True
    if tests >= (1 if u.suppressed else 2) and u.flees_field:
        return True
    carrier = next((c for c in sc.units if c.carrying == u.name), None)
    return carrier is not None and _can_annihilate(sc, carrier)


def reported(sc: ArmouredClashScenario) -> list[Reported]:
    """The statistics this scenario reports, in output order."""
    f = _focus(sc)
    me, them = f.side, _other(f.side)
    fn = _plain(f.name)
    own = [u for u in sc.units if u.side == me]
    other = [u for u in sc.units if u.side == them]
    hits = _hits_bound(sc, f)
    tests = _tests(sc, f)
    out: list[Reported] = []

    def add(index: int, name: str, nbins: int, label: str, text: str, flag: bool = False):
        out.append(Reported(index, Stat(name, nbins, text, flag=flag, label=label)))

    if hits > 0:
        add(K.ST_HITS, f"hits_on_{me}", hits + 1, f"hits on {me} {fn}", f"hits scored on {fn}")
        add(
            K.ST_DMG,
            f"damage_on_{me}",
            hits + 1,
            f"damage on {me} {fn}",
            f"damage points inflicted on {fn} (hits ÷ DEFENCE, before DAMAGE LIMIT)",
        )
    add(
        K.ST_LOST,
        f"{me}_models_lost",
        f.models + 1,
        f"{me} {fn} models lost",
        f"models of {fn} destroyed (damage, withdrawal, fall back, capacity; not a break)",
    )
    add(K.ST_OFFICER, f"{me}_officer_lost", 2, f"{me} {fn} officer lost", "", True)
    if f.type != "aircraft":
        add(
            K.ST_SUPP,
            f"{me}_suppressed",
            2,
            f"{me} {fn} suppressed at the end",
            f"{fn} ends the sequence suppressed and on the table",
            True,
        )
    if _can_fall_back(sc, f):
        add(K.ST_FB, f"{me}_fell_back", 2, f"{me} {fn} fell back", "", True)
    if tests > 0 and f.break_limit is not None:
        add(K.ST_BROKE, f"{me}_broke", 2, f"{me} {fn} broke", "", True)
    add(
        K.ST_ANNIH,
        f"{me}_annihilated",
        2,
        f"{me} {fn} annihilated",
        f"{fn} annihilated (destroyed, broke or fled)",
        True,
    )
    vp_o = sum(u.vp_value for u in own if _can_annihilate(sc, u))
    if vp_o > 0:
        add(K.ST_VP_O, f"{them}_vp", vp_o + 1, f"VPs scored by the {them}", "annihilations")
    vp_s = sum(u.vp_value for u in other if _can_annihilate(sc, u))
    if vp_s > 0:
        add(K.ST_VP_S, f"{me}_vp", vp_s + 1, f"VPs scored by the {me}", "annihilations")
    if any(_max_losses(sc, u) > 0 for u in other):
        who = _plain(other[0].name) if len(other) == 1 else "all its units"
        add(
            K.ST_LOST_O,
            f"{them}_models_lost",
            sum(u.models for u in other) + 1,
            f"{them} models lost ({who})",
            "",
        )
    if any(_max_losses(sc, u) > 0 for u in own if u.name != f.name):
        add(
            K.ST_LOST_S,
            f"{me}_side_models_lost",
            sum(u.models for u in own) + 1,
            f"{me} side models lost (all its units)",
            "",
        )
    if sc.rules.rally_test and f.type != "aircraft":
        add(
            K.ST_RALLY_FAILED,
            f"{me}_rally_failed",
            2,
            f"{me} {fn} fails its next rally test",
            f"{fn} is suppressed after the sequence and fails its rally test",
            True,
        )
        add(
            K.ST_FULL,
            f"{me}_can_move_and_attack",
            2,
            f"{me} {fn} can move and attack next activation",
            f"{fn} is on the table and not held back by a failed rally test",
            True,
        )
    if any(a.kind == "close" for a in sc.attacks):
        for index, name, label in (
            (K.ST_QC_ATT, "attacker_won_close_quarters", "attacker won the close quarters"),
            (K.ST_QC_DEF, "defender_won_close_quarters", "defender won the close quarters"),
            (K.ST_QC_STALE, "close_quarters_stalemate", "close quarters stalemate"),
        ):
            add(index, name, 2, label, "the last close quarters combat of the sequence", True)
    if f.carrying is not None:
        c = next(u for u in sc.units if u.name == f.carrying)
        cn = _plain(c.name)
        add(
            K.ST_EMB_LOST,
            "passengers_models_lost",
            c.models + 1,
            f"passengers {cn} models lost",
            "",
        )
        add(K.ST_EMB_SUPP, "passengers_suppressed", 2, f"passengers {cn} suppressed", "", True)
        add(K.ST_EMB_ANNIH, "passengers_annihilated", 2, f"passengers {cn} annihilated", "", True)
    return out


def stats(sc: ArmouredClashScenario) -> tuple[Stat, ...]:
    return tuple(r.stat for r in reported(sc))


def headlines(sc: ArmouredClashScenario) -> tuple[Headline, ...]:
    f = _focus(sc)
    me = f.side
    fn = _plain(f.name)
    names = {r.stat.name for r in reported(sc)}
    wanted = [
        (f"P({fn}: at least 1 model lost)", f"{me}_models_lost"),
        (f"P({fn}: suppressed at the end)", f"{me}_suppressed"),
        (f"P({fn}: fell back)", f"{me}_fell_back"),
        (f"P({fn}: broke)", f"{me}_broke"),
        (f"P({fn}: annihilated)", f"{me}_annihilated"),
        (f"P({fn}: officer lost)", f"{me}_officer_lost"),
        (f"P({fn}: next rally test failed)", f"{me}_rally_failed"),
        ("P(attacker wins the close quarters)", "attacker_won_close_quarters"),
        ("P(defender wins the close quarters)", "defender_won_close_quarters"),
        ("P(close quarters stalemate)", "close_quarters_stalemate"),
    ]
    if f.carrying is not None:
        wanted.append(
            (f"P(passengers {_plain(f.carrying)}: annihilated)", "passengers_annihilated")
        )
    return tuple(Headline(label, stat, 1) for label, stat in wanted if stat in names)


def primary(sc: ArmouredClashScenario) -> str:
    """The statistic plotted by default: the focus unit's models lost, or for a single-model
    unit the damage it took."""
    f = _focus(sc)
    names = [r.stat.name for r in reported(sc)]
    if f.models == 1 and f"damage_on_{f.side}" in names:
        return f"damage_on_{f.side}"
    return f"{f.side}_models_lost"
