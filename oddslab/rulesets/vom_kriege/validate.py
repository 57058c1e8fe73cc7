"""Cross-checks of a Vom Kriege combat scenario: names, sides, who may shoot, melee or follow
up, batteries and the focus units; every problem is ``(key path, text)`` so the reader can
name the scenario file's key."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.model import range_band
from oddslab.rulesets.vom_kriege.tables import shooting_dice

if TYPE_CHECKING:
    from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario

__all__ = ["scenario_problems"]


def scenario_problems(sc: VomKriegeScenario) -> list[tuple[str, str]]:
    """``(key path, problem)`` for every cross-reference the text forbids."""
    out: list[tuple[str, str]] = []
    by = {u.name: u for u in sc.units}
    leaders = {ld.name: ld for ld in sc.leaders}
    if len(by) != len(sc.units):
        out.append(("units", "unit names must be unique"))
    if not sc.actions:
        out.append(("actions", "expected at least one action ([[actions]])"))
    for u in sc.units:
        if u.leader is not None:
            if u.leader not in leaders:
                out.append((f"units.{u.name}.leader", f"no leader named '{u.leader}'"))
            elif leaders[u.leader].side != u.side:
                out.append((f"units.{u.name}.leader", "the leader is on the other side"))
            elif leaders[u.leader].army:
                out.append((f"units.{u.name}.leader", "units belong to a command leader"))
    for side in L.SIDES:
        if sum(ld.army and ld.side == side for ld in sc.leaders) > 1:
            out.append(("leaders", f"at most one army leader on the {side} side"))
    with_leader: dict[str, str] = {}
    for ld in sc.leaders:
        n = sum(u.leader == ld.name for u in sc.units)
        if ld.units is not None and ld.units < n:
            out.append((f"leaders.{ld.name}.units", f"the scenario has {n} of its units"))
        if ld.name in by:
            out.append((f"leaders.{ld.name}", "a unit has the same name: name them apart"))
        if ld.with_unit is not None:
            key = f"leaders.{ld.name}.with_unit"
            if ld.with_unit not in by:
                out.append((key, f"no unit named '{ld.with_unit}'"))
            elif by[ld.with_unit].side != ld.side:
                out.append((key, "the unit is on the other side"))
            elif ld.with_unit in with_leader:
                out.append((key, f"leader '{with_leader[ld.with_unit]}' already stands with it"))
            with_leader[ld.with_unit] = ld.name
    battles: dict[str, int] = {}
    for i, a in enumerate(sc.actions):
        key = f"actions[{i}]"
        if a.actor not in by:
            out.append((f"{key}.actor", f"no unit named '{a.actor}'"))
        if a.target not in by and a.target not in leaders:
            out.append((f"{key}.target", f"no unit or leader named '{a.target}'"))
        if out:
            return out
        att = by[a.actor]
        tgt = by.get(a.target)  # None: a leader alone ("when an enemy unit moves into contact")
        if att.side != "attacker":
            out.append((f"{key}.actor", "actions are the attacking (active) side's"))
        if (tgt or leaders[a.target]).side != "defender":
            out.append((f"{key}.target", "the target must be a defending unit or leader"))
        battles[a.actor] = battles.get(a.actor, 0) + 1
        limit = 2 if att.troop == "artillery" else 1
        if battles[a.actor] > limit:
            out.append((f"{key}.actor", "a unit may battle only once per turn"))
        if a.kind == "shoot":
            if tgt is None:
                out.append((f"{key}.target", 'a leader is a target only in melee (kind = "melee")'))
                continue
            try:
                band = range_band(a.range)
            except ValueError as exc:
                out.append((f"{key}.range", str(exc)))
                continue
            n, why = shooting_dice(att, tgt, band, sc.rules)
            if n < 0:
                out.append((f"{key}.actor", f"'{a.actor}' cannot shoot here: {why[0]}"))
            continue
        if att.troop == "artillery":
            out.append((f"{key}.actor", "artillery may not initiate melee"))
        if att.disordered:
            out.append((f"{key}.actor", "a disordered unit may not initiate melee"))
        for j, b in enumerate(a.batteries):
            bk = f"{key}.batteries[{j}]"
            bat = by.get(b.unit)
            if bat is None:
                out.append((f"{bk}.unit", f"no unit named '{b.unit}'"))
            elif bat.troop != "artillery" or bat.side != "defender":
                out.append((f"{bk}.unit", "defensive batteries are defending artillery"))
            elif bat.form != "unlimbered":
                out.append((f"{bk}.unit", "limbered artillery cannot shoot"))
            elif not 0 < b.range <= 24:
                out.append((f"{bk}.range", "expected a range in inches up to 24"))
        if a.follow_up is not None:
            if att.troop != "cavalry" and sc.rules.retire_follow_up == "cavalry":
                out.append(
                    (
                        f"{key}.follow_up",
                        'only cavalry makes a melee follow-up (rules.retire_follow_up = "cavalry")',
                    )
                )
            elif att.troop != "cavalry" and a.reaction != "retire" and tgt is not None:
                out.append(
                    (
                        f"{key}.follow_up",
                        "infantry makes a melee follow-up only after the defender (or a "
                        'leader) retires (reaction = "retire"); otherwise only cavalry does',
                    )
                )
            elif a.follow_up not in by:
                out.append((f"{key}.follow_up", f"no unit named '{a.follow_up}'"))
            elif by[a.follow_up].side != "defender" or a.follow_up == a.target:
                out.append((f"{key}.follow_up", "expected another defending unit"))
    if sc.focus_attacker is not None:
        u = by.get(sc.focus_attacker)
        if u is None or u.side != "attacker":
            out.append(("focus_attacker", "expected the name of an attacker unit"))
    if sc.focus_defender is not None:
        d = by.get(sc.focus_defender) or leaders.get(sc.focus_defender)
        if d is None or d.side != "defender":
            out.append(("focus_defender", "expected the name of a defender unit or leader"))
    return out
