"""Which statistics a Vom Kriege combat scenario reports: only those it can produce, named by
whose fate they are (the focus attacker, the focus defender — a unit or a leader alone — and
their leaders), in the order of :data:`.layout.STAT_NAMES`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.model import ROUGH

if TYPE_CHECKING:
    from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario

__all__ = ["reported", "defender_leader", "leader_contacted"]


def defender_leader(sc: VomKriegeScenario) -> str | None:
    """The defender's leader the statistics follow: the focus defender itself when it is a
    leader alone, else the focus unit's command leader (or None)."""
    _, dfd = sc._focus
    by = {u.name: u for u in sc.units}
    return by[dfd].leader if dfd in by else dfd


def leader_contacted(sc: VomKriegeScenario, name: str) -> bool:
    """Can a melee contact leader ``name``: as its target, or through the unit it stands with
    (a target or a follow-up target)?"""
    ld = {x.name: x for x in sc.leaders}[name]
    for a in sc.actions:
        if a.kind != "melee":
            continue
        if a.target == name or (
            ld.with_unit is not None and ld.with_unit in (a.target, a.follow_up)
        ):
            return True
    return False


def reported(sc: VomKriegeScenario) -> list[str]:
    """Names of the statistics ``sc`` reports (``STAT_NAMES`` order)."""
    by = {u.name: u for u in sc.units}
    att, dfd = sc._focus
    melee = [a for a in sc.actions if a.kind == "melee"]
    d = by.get(dfd)  # None: the focus defender is a leader alone
    names = ["attacker_dice_rolled"]
    if d is not None:
        names += ["hits_on_defender", "flags_on_defender", "defender_hits"]
        names += ["defender_retreat_half_moves", "defender_retreated", "defender_disordered"]
        names += ["defender_removed", "defender_at_max_hits", "defender_broken"]
    if melee:
        names += ["defender_dice_rolled", "hits_on_attacker", "flags_on_attacker"]
        names += ["attacker_hits", "attacker_retreat_half_moves", "attacker_retreated"]
        names += ["attacker_disordered", "attacker_removed", "attacker_at_max_hits"]
        names += ["attacker_fell_back", "attacker_reached_melee"]
        names += ["hits_on_attacker_by_battle_back", "hits_on_attacker_by_defensive_fire"]
    retire = any(a.reaction == "retire" or a.follow_up_reaction == "retire" for a in melee)
    if d is not None and retire:
        names.append("defender_retired")
    if d is not None and d.troop == "infantry" and d.terrain not in ROUGH and d.form != "square":
        if any(
            by[a.actor].troop == "cavalry"
            and a.target == dfd
            and a.reaction in ("form_square", "auto")
            for a in melee
        ):
            names.append("defender_formed_square")
    if sc._fu_action() >= 0:
        names += ["attacker_followed_up", "hits_on_second_target"]
        names += ["second_target_retreated", "second_target_removed"]
    ldr = defender_leader(sc)
    if ldr:
        names += ["defender_leader_hits", "defender_leader_removed"]
        names.append("defender_command_units_removed")
        if leader_contacted(sc, ldr):
            names += ["hits_on_defender_leader", "defender_leader_retired"]
    if by[att].leader:
        names += ["attacker_leader_hits", "attacker_leader_removed"]
        names.append("attacker_command_units_removed")
    if any(ld.army and ld.side == "defender" for ld in sc.leaders) and ldr:
        names.append("defender_army_leader_hits")
    if any(ld.army and ld.side == "attacker" for ld in sc.leaders) and by[att].leader:
        names.append("attacker_army_leader_hits")
    if sum(u.side == "defender" for u in sc.units) > 1:
        names.append("defender_side_units_removed")
    if melee and sum(u.side == "attacker" for u in sc.units) > 1:
        names.append("attacker_side_units_removed")
    order = {n: i for i, n in enumerate(L.STAT_NAMES)}
    return sorted(names, key=order.__getitem__)
