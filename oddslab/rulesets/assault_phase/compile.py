"""Assault scenario -> kernel arrays, statistics, headlines and the :class:`Job`.

Statistics are named by whose fate they are (``defender_models_lost``: Orks dead, whoever
killed them); actions by the actor with a verb (``attacker_attacks_made``). Only statistics
the scenario can produce are reported.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab.engine import Job
from oddslab.outcome import Headline, Stat
from oddslab.rulesets.assault_phase import kernel as K
from oddslab.rulesets.assault_phase import layout as LY
from oddslab.rulesets.assault_phase.model import (
    GRENADES,
    SIDES,
    ModelGroup,
    Unit,
)

if TYPE_CHECKING:  # the scenario class imports this module
    from oddslab.rulesets.assault_phase.scenario import AssaultScenario

__all__ = [
    "arrays",
    "stats",
    "stat_rows",
    "headlines",
    "params",
    "primary",
    "job",
    "exact_pmfs",
    "run_with_dice",
    "group_stat_names",
]


def _groups(sc: AssaultScenario) -> list[tuple[int, int, Unit, ModelGroup]]:
    """``(side, unit index, unit, group)`` for every group, attacker's first (kernel order)."""
    out = []
    u_index = 0
    for side_i, side in enumerate((sc.attacker, sc.defender)):
        for unit in side.units:
            for grp in unit.groups:
                out.append((side_i, u_index, unit, grp))
            u_index += 1
    return out


def _units(sc: AssaultScenario) -> list[tuple[int, Unit]]:
    return [(i, u) for i, s in enumerate((sc.attacker, sc.defender)) for u in s.units]


def arrays(sc: AssaultScenario) -> dict[str, np.ndarray]:
    """Kernel inputs: ``gi`` int64[G, G_NCOLS], ``ui`` int64[U, U_NCOLS], ``ei``
    int64[E, E_NCOLS], ``rules`` int64[R_NCOLS], ``hit_tab``/``wound_tab`` int64[11, 11].
    """
    units = _units(sc)
    groups = _groups(sc)
    # entities: each unit's non-independent body, then each independent character
    ent_of_group: list[int] = []
    ents: list[tuple[int, int]] = []
    body: dict[int, int] = {}
    by_name: list[dict[str, int]] = [{}, {}]
    for side_i, u_i, _unit, grp in groups:
        if grp.independent:
            ents.append((u_i, side_i))
            e = len(ents) - 1
            by_name[side_i].setdefault(grp.name, e)
        else:
            if u_i not in body:
                ents.append((u_i, side_i))
                body[u_i] = len(ents) - 1
            e = body[u_i]
        ent_of_group.append(e)
    unit_entity: dict[int, int] = {}
    for g, (_side_i, u_i, _unit, _grp) in enumerate(groups):
        unit_entity.setdefault(u_i, body.get(u_i, ent_of_group[g]))
    for u_i, (side_i, unit) in enumerate(units):
        by_name[side_i][unit.name] = unit_entity[u_i]
    first_enemy = [unit_entity[next(i for i, (s, _) in enumerate(units) if s == k)] for k in (0, 1)]
    gi = np.zeros((len(groups), LY.G_NCOLS), dtype=np.int64)
    for g, (side_i, u_i, _unit, grp) in enumerate(groups):
        enemy = 1 - side_i
        # targets are validated when the scenario is read
        aims = [by_name[enemy][t] for t in grp.targets] or [first_enemy[enemy]]
        aim = aims[0]
        fist = grp.weapon == "power-fist"
        claws = grp.weapon in ("lightning-claw", "lightning-claws")
        row = gi[g]
        row[LY.G_SIDE] = side_i
        row[LY.G_UNIT] = u_i
        row[LY.G_ENT] = ent_of_group[g]
        row[LY.G_AIM] = aim
        row[LY.G_COUNT] = grp.count
        row[LY.G_CONTACT] = grp.in_contact
        row[LY.G_SUPPORT] = grp.supporting
        row[LY.G_WS] = grp.ws
        row[LY.G_T] = grp.t
        row[LY.G_W] = grp.w
        row[LY.G_LD] = grp.ld
        row[LY.G_SV] = grp.save
        row[LY.G_INV] = grp.invulnerable
        two = grp.two_weapons or grp.weapon == "lightning-claws"
        row[LY.G_A_C] = grp.a + (1 if two else 0)
        row[LY.G_S_C] = min(2 * grp.s, 10) if fist else grp.s
        row[LY.G_I_C] = 1 if fist else grp.i
        row[LY.G_NOARM_C] = grp.monstrous or grp.weapon != "none"
        row[LY.G_HEAVY_C] = grp.heavy
        row[LY.G_REND_C] = grp.rending
        row[LY.G_POISON_C] = grp.poisoned or 0
        row[LY.G_CLAW_C] = claws
        row[LY.G_FORCE_C] = grp.weapon == "force-weapon"
        row[LY.G_A_PROF] = grp.a
        row[LY.G_S] = grp.s
        row[LY.G_I] = grp.i
        row[LY.G_NOARM_S] = 0  # supporting: "no benefit from any special ... attack forms"
        row[LY.G_FIST] = fist
        row[LY.G_NAIMS] = len(aims)
        for k, (f, wt) in enumerate(zip(aims, grp.split_weights, strict=True)):
            row[LY.G_AIMS + k] = f
            row[LY.G_WTS + k] = wt
    ui = np.zeros((len(units), LY.U_NCOLS), dtype=np.int64)
    for u_i, (side_i, unit) in enumerate(units):
        ui[u_i, LY.U_SIDE] = side_i
        ui[u_i, LY.U_FAST] = unit.fast
        ui[u_i, LY.U_COVER] = unit.in_cover and side_i == 1
        ui[u_i, LY.U_GRENADES] = GRENADES.index(unit.grenades)
        ui[u_i, LY.U_FIRED] = unit.fired
        ui[u_i, LY.U_CHARGE_DIST] = unit.difficult_terrain_distance if side_i == 0 else 0
        ui[u_i, LY.U_FALLING_BACK] = unit.falling_back and side_i == 1
        ui[u_i, LY.U_TRAPPED] = unit.trapped
    ei = np.array(ents, dtype=np.int64).reshape(-1, LY.E_NCOLS)
    return {
        "gi": gi,
        "ui": ui,
        "ei": ei,
        "rules": sc.rules.array(),
        "hit_tab": sc.rules.hit_table(),
        "wound_tab": sc.rules.wound_table(),
    }


def group_stat_names(sc: AssaultScenario) -> list[str]:
    """``"<side>.<unit>.<group>.models_lost"`` for every group, in kernel order."""
    return [f"{SIDES[s]}.{unit.name}.{grp.name}.models_lost" for s, _, unit, grp in _groups(sc)]


def can_attack(sc: AssaultScenario, side: int) -> bool:
    """Whether ``side`` (0 attacker, 1 defender) can ever make an attack.

    If it cannot, nothing can happen to its enemy, whose losses are not reported.
    """
    units = (sc.attacker, sc.defender)[side].units
    for unit in units:
        bonus = side == 0 and not unit.fired
        for g in unit.groups:
            two = g.two_weapons or g.weapon == "lightning-claws"
            if g.supporting > 0 or (g.in_contact > 0 and (g.a > 0 or two or bonus)):
                return True
            if g.a > 0 and sc.rules.max_turns > 1 and sc.rules.pile_in:
                return True  # models out of the fight pile in for later turns
    return False


def charge_can_fail(sc: AssaultScenario) -> bool:
    return any(u.difficult_terrain_distance > 0 for u in sc.attacker.units)


def regroup_possible(sc: AssaultScenario) -> bool:
    return any(u.falling_back for u in sc.defender.units)


def _flag(name: str, label: str, text: str) -> Stat:
    return Stat(name, 2, text, True, label)


def stat_rows(sc: AssaultScenario) -> list[tuple[Stat, int]]:
    """Every reported statistic with the index of the kernel's per-trial value it histograms."""
    groups = _groups(sc)
    max_turns = sc.rules.max_turns
    # exact upper bounds per side: per turn each model makes at most A + 2 attacks
    # (two weapons, charge), plus one sweeping advance of at most A per model
    att_max = [0, 0]
    models = [0, 0]
    wounds_cap = [0, 0]
    for side_i, _, _, grp in groups:
        att_max[side_i] += grp.count * ((grp.a + 2) * max_turns + grp.a)
        models[side_i] += grp.count
        wounds_cap[side_i] += grp.count * grp.w
    names = [sc.attacker.name, sc.defender.name]
    rows: list[tuple[Stat, int]] = []
    if charge_can_fail(sc):
        text = "a charging unit got through the difficult terrain (otherwise no combat)"
        rows.append((_flag("attacker_charged", "attacker's charge went in", text), LY.S_CHARGE))
    if regroup_possible(sc):
        text = "a defending unit assaulted while falling back failed to regroup: destroyed"
        stat = _flag("defender_failed_to_regroup", "defender failed to regroup", text)
        rows.append((stat, LY.S_REGROUP_FAILED))
    for s, idx in enumerate((LY.S_WIN_ATT, LY.S_WIN_DEF)):
        me = SIDES[s]
        text = f"the {me} ({names[s]}) won the first turn's assault result"
        rows.append((_flag(f"{me}_won_assault", f"{me} won the assault", text), idx))
    text = "first turn's assault result drawn (equal wounds, or nobody left on either side)"
    rows.append((_flag("assault_drawn", "assault drawn", text), LY.S_DRAW))
    for s, idx in enumerate((LY.S_FIGHT_ATT, LY.S_FIGHT_DEF)):
        me = SIDES[s]
        text = (
            f"every enemy unit fled or was destroyed within {max_turns} turn(s) while "
            f"{me} ({names[s]}) models remain"
        )
        rows.append((_flag(f"{me}_won_fight", f"{me} won the fight", text), idx))
    if max_turns > 1:
        text = (
            f"turn the combat ended in ({max_turns + 1}: still going after {max_turns} "
            "turns; 0: the charge failed)"
        )
        stat = Stat("combat_ended_turn", max_turns + 2, text, False, "turn the combat ended in")
        rows.append((stat, LY.S_TURNS))
    for s in range(2):
        me, enemy = SIDES[s], SIDES[1 - s]
        if not can_attack(sc, 1 - s):
            continue  # nothing can happen to this side
        text = f"{me} ({names[s]}) models slain, sweeping advance included"
        rows.append(
            (Stat(f"{me}_models_lost", models[s] + 1, text, False, f"{me} models lost"),
             LY.S_SLAIN + 1 - s)
        )  # fmt: skip
        text = (
            f"wounds actually inflicted on the {me}, all turns and the sweep (what the "
            "assault result counts: saved, excess and out-of-reach wounds excluded)"
        )
        label = f"wounds inflicted on the {me}"
        rows.append(
            (Stat(f"{me}_wounds_lost", wounds_cap[s] + 1, text, False, label),
             LY.S_INFLICTED + 1 - s)
        )  # fmt: skip
        text = f"a {me} unit fell back (failed a morale check)"
        rows.append((_flag(f"{me}_fell_back", f"{me} fell back", text), LY.S_FELL_BACK + s))
        text = f"a {me} unit falling back was caught by the {enemy}'s sweeping advance"
        label = f"{me} caught by a sweeping advance"
        rows.append((_flag(f"{me}_swept", label, text), LY.S_SWEPT + s))
        text = f"every {me} model is dead (a failed regroup or a trapped fall back included)"
        rows.append((_flag(f"{me}_destroyed", f"{me} destroyed", text), LY.S_DESTROYED + s))
    for s in range(2):
        me, enemy = SIDES[s], SIDES[1 - s]
        if not can_attack(sc, s):
            continue
        n = att_max[s] + 1
        for name, label, text, idx in (
            (
                f"{me}_attacks_made",
                f"attacks made by the {me}",
                f"attacks the {me} made (dice rolled to hit; automatic hits in a sweep)",
                LY.S_ATTACKS,
            ),
            (
                f"hits_on_{enemy}",
                f"hits on the {enemy}",
                f"hits the {me} scored on the {enemy} (rending sixes included)",
                LY.S_HITS,
            ),
            (
                f"wounds_on_{enemy}",
                f"wounds on the {enemy} before saves",
                f"wounds the {me} scored on the {enemy}, before saves",
                LY.S_WOUNDS,
            ),
            (
                f"unsaved_wounds_on_{enemy}",
                f"unsaved wounds on the {enemy}",
                f"wounds on the {enemy} not saved (wounds left when nobody is in reach are "
                "discarded before any save is rolled and not counted: equals the wounds "
                "inflicted)",
                LY.S_UNSAVED,
            ),
        ):
            rows.append((Stat(name, n, text, False, label), idx + s))
    for g, ((s, _u, unit, grp), name) in enumerate(zip(groups, group_stat_names(sc), strict=True)):
        if not can_attack(sc, 1 - s):
            continue
        label = f"{SIDES[s]} {unit.name}: {grp.name} models lost"
        text = f"{grp.name} ({unit.name}, {SIDES[s]}) models slain"
        rows.append((Stat(name, grp.count + 1, text, False, label), LY.S_NFIXED + g))
    return rows


def stats(sc: AssaultScenario) -> tuple[Stat, ...]:
    """The reported statistics, in the order of the kernel's histograms."""
    return tuple(st for st, _ in stat_rows(sc))


def headlines(sc: AssaultScenario) -> tuple[Headline, ...]:
    """Headline probabilities, in plain words; only for statistics the scenario reports."""
    names = {s.name for s in stats(sc)}
    wanted = [
        ("P(attacker's charge goes in)", "attacker_charged"),
        ("P(defender fails to regroup)", "defender_failed_to_regroup"),
        ("P(attacker wins the assault)", "attacker_won_assault"),
        ("P(defender wins the assault)", "defender_won_assault"),
        ("P(assault drawn)", "assault_drawn"),
        ("P(defender falls back)", "defender_fell_back"),
        ("P(defender caught by a sweeping advance)", "defender_swept"),
        ("P(defender destroyed)", "defender_destroyed"),
        ("P(attacker falls back)", "attacker_fell_back"),
        ("P(attacker destroyed)", "attacker_destroyed"),
    ]
    if sc.rules.max_turns > 1:
        n = sc.rules.max_turns
        wanted += [
            (f"P(attacker wins the fight within {n} turns)", "attacker_won_fight"),
            (f"P(defender wins the fight within {n} turns)", "defender_won_fight"),
        ]
    return tuple(Headline(label, stat, 1) for label, stat in wanted if stat in names)


def params(sc: AssaultScenario) -> tuple:
    """Kernel arrays in argument order (``gi, ui, ei, rules, hit_tab, wound_tab``)."""
    a = arrays(sc)
    return (a["gi"], a["ui"], a["ei"], a["rules"], a["hit_tab"], a["wound_tab"])


def primary(sc: AssaultScenario) -> str:
    """The statistic plotted by default: the defender's models lost (else the result)."""
    names = [s.name for s in stats(sc)]
    return "defender_models_lost" if "defender_models_lost" in names else "attacker_won_assault"


def exact_pmfs(sc: AssaultScenario) -> dict[str, np.ndarray]:
    """Exact distributions of the statistics fixed before any blow: ``attacker_charged``.

    A unit whose charge crosses ``d`` inches of difficult terrain goes in when the higher of
    2D6 is at least ``d``: P = 1 - ((d - 1) / 6)^2; the combat happens if any unit goes in.
    Empty when nothing can fail the charge (everything else depends on the fight).
    """
    from oddslab.rulesets.assault_phase.resolved import charge_probability

    if not charge_can_fail(sc):
        return {}
    p_none = Fraction(1)
    for u in sc.attacker.units:
        p_none *= 1 - charge_probability(u.difficult_terrain_distance)
    return {"attacker_charged": np.array([float(p_none), float(1 - p_none)])}


def job(sc: AssaultScenario) -> Job:
    """The :class:`Job`: the engine kernel, its arrays and the reported statistics."""
    sel = np.array([idx for _, idx in stat_rows(sc)], dtype=np.int64)
    meta: dict[str, Any] = {
        "primary": primary(sc),
        "ruleset": "assault-phase",
        "description": sc.description,
    }
    return Job(
        sc.name,
        K.run_assault,
        (*params(sc), sel),
        stats(sc),
        headlines(sc),
        exact=(lambda: exact_pmfs(sc)) if charge_can_fail(sc) else None,
        meta=meta,
        ruleset="assault-phase",
        records=True,
    )


def run_with_dice(sc: AssaultScenario, dice: list[int], seed: int = 1) -> dict[str, int]:
    """Play one combat with the given D6 results used first, in the order rolled.

    Returns ``{stat name: value}`` for the reported statistics plus ``"dice_used"``; once
    the list runs out, dice come from a generator seeded by ``seed``.
    """
    script = np.array([1, *dice], dtype=np.int64)
    seed_words = np.array([seed, 2, 3, 4], dtype=np.uint64)
    res = K.run_scripted(*params(sc), script, seed_words)
    out = {st.name: int(res[idx]) for st, idx in stat_rows(sc)}
    out["dice_used"] = int(script[0]) - 1
    return out
