"""Assault scenario -> kernel arrays, statistics, headlines and the :class:`Job`."""

from __future__ import annotations

import numpy as np

from oddslab.engine import Job
from oddslab.outcome import Headline, Stat
from oddslab.rulesets.assault_phase import kernel as K
from oddslab.rulesets.assault_phase import layout as LY
from oddslab.rulesets.assault_phase.model import GRENADES, SIDES, ModelGroup, Unit

__all__ = ["arrays", "stats", "headlines", "params", "job", "run_with_dice", "group_stat_names"]

_FIXED_STATS = (
    ("charge", 1, "the charge went in", True),
    ("attacker_wins", 1, "attacker won the first round's assault result", True),
    ("defender_wins", 1, "defender won the first round's assault result", True),
    ("draw", 1, "first round drawn (or no models left on either side)", True),
    ("loser_failed_morale", 1, "a loser of the first round failed its morale check", True),
    ("regroup_failed", 1, "a defender assaulted while falling back failed to regroup", True),
    ("turns", None, "turn the combat ended in (max_turns + 1: still going; 0: no charge)", False),
    ("attacker_won_fight", 1, "every defender fled or was destroyed, attackers remain", True),
    ("defender_won_fight", 1, "every attacker fled or was destroyed, defenders remain", True),
)
_SIDE_STATS = (
    ("attacks", "attacks made"),
    ("hits", "hits scored (rending sixes included)"),
    ("wounds", "wounds scored before saves"),
    ("unsaved", "wounds not saved"),
    ("inflicted", "wounds actually inflicted (overkill and out-of-reach surplus excluded)"),
    ("slain", "enemy models slain"),
    ("fell_back", "a unit of this side fell back"),
    ("swept", "a unit of this side was caught by a sweeping advance"),
    ("destroyed", "every model of this side is dead"),
)


def _groups(sc) -> list[tuple[int, int, Unit, ModelGroup]]:
    out = []
    u_index = 0
    for side_i, side in enumerate((sc.attacker, sc.defender)):
        for unit in side.units:
            for grp in unit.groups:
                out.append((side_i, u_index, unit, grp))
            u_index += 1
    return out


def _units(sc) -> list[tuple[int, Unit]]:
    return [(i, u) for i, s in enumerate((sc.attacker, sc.defender)) for u in s.units]


def arrays(sc) -> dict[str, np.ndarray]:
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
        if grp.target is None:
            aim = first_enemy[enemy]
        else:
            aim = by_name[enemy][grp.target]  # validated when the scenario is read
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
        row[LY.G_NOARM_S] = grp.monstrous
        row[LY.G_FIST] = fist
    ui = np.zeros((len(units), LY.U_NCOLS), dtype=np.int64)
    for u_i, (side_i, unit) in enumerate(units):
        ui[u_i, LY.U_SIDE] = side_i
        ui[u_i, LY.U_FAST] = unit.fast
        ui[u_i, LY.U_COVER] = unit.in_cover and side_i == 1
        ui[u_i, LY.U_GRENADES] = GRENADES.index(unit.grenades)
        ui[u_i, LY.U_FIRED] = unit.fired
        ui[u_i, LY.U_CHARGE_DIST] = unit.charge_distance if side_i == 0 else 0
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


def group_stat_names(sc) -> list[str]:
    """``"<side>.<unit>.<group>.slain"`` for every group, in kernel order."""
    return [f"{SIDES[s]}.{unit.name}.{grp.name}.slain" for s, _, unit, grp in _groups(sc)]


def stats(sc) -> tuple[Stat, ...]:
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
    bounds: dict[str, int] = {}
    fixed: list[Stat] = []
    for name, nb, text, flag in _FIXED_STATS:
        top = max_turns + 1 if nb is None else nb
        fixed.append(Stat(name, top + 1, text, flag))
    per: dict[tuple[int, str], Stat] = {}
    for s in range(2):
        enemy = 1 - s
        bounds = {
            "attacks": att_max[s],
            "hits": att_max[s],
            "wounds": att_max[s],
            "unsaved": att_max[s],
            "inflicted": wounds_cap[enemy],
            "slain": models[enemy],
            "fell_back": 1,
            "swept": 1,
            "destroyed": 1,
        }
        for key, text in _SIDE_STATS:
            flag = key in ("fell_back", "swept", "destroyed")
            per[(s, key)] = Stat(f"{SIDES[s]}_{key}", bounds[key] + 1, f"{SIDES[s]}: {text}", flag)
    # kernel order: fixed, then each per-side stat as (attacker, defender) pairs
    ordered = list(fixed)
    for key, _ in _SIDE_STATS:
        ordered += [per[(0, key)], per[(1, key)]]
    for (_s, _u, _unit, grp), name in zip(groups, group_stat_names(sc), strict=True):
        ordered.append(Stat(name, grp.count + 1, f"{grp.name} models slain"))
    assert len(ordered) == LY.S_NFIXED + len(groups)
    return tuple(ordered)


def headlines(sc) -> tuple[Headline, ...]:
    heads = []
    if any(u.charge_distance > 0 for u in sc.attacker.units):
        heads.append(Headline("P(charge happens)", "charge", 1))
    if any(u.falling_back for u in sc.defender.units):
        heads.append(Headline("P(defender fails to regroup)", "regroup_failed", 1))
    heads += [
        Headline("P(attacker wins the assault)", "attacker_wins", 1),
        Headline("P(defender wins the assault)", "defender_wins", 1),
        Headline("P(draw)", "draw", 1),
        Headline("P(loser fails morale)", "loser_failed_morale", 1),
        Headline("P(defender falls back)", "defender_fell_back", 1),
        Headline("P(defender swept)", "defender_swept", 1),
        Headline("P(defender destroyed)", "defender_destroyed", 1),
        Headline("P(attacker destroyed)", "attacker_destroyed", 1),
    ]
    if sc.rules.max_turns > 1:
        heads += [
            Headline("P(attacker wins the fight)", "attacker_won_fight", 1),
            Headline("P(defender wins the fight)", "defender_won_fight", 1),
        ]
    return tuple(heads)


def params(sc) -> tuple:
    a = arrays(sc)
    return (a["gi"], a["ui"], a["ei"], a["rules"], a["hit_tab"], a["wound_tab"])


def job(sc) -> Job:
    return Job(
        sc.name,
        K.run_assault,
        params(sc),
        stats(sc),
        headlines(sc),
        meta={"ruleset": "assault-phase", "description": sc.description},
    )


def run_with_dice(sc, dice: list[int], seed: int = 1) -> dict[str, int]:
    """Play one combat with the given D6 results used first, in the order rolled.

    For tests and for replaying worked examples. Returns ``{stat name: value}`` plus
    ``"dice_used"``. Once the list runs out, dice come from a generator seeded by
    ``seed``.
    """
    script = np.array([1, *dice], dtype=np.int64)
    seed_words = np.array([seed, 2, 3, 4], dtype=np.uint64)
    res = K.run_scripted(*params(sc), script, seed_words)
    out = {s.name: int(v) for s, v in zip(stats(sc), res, strict=True)}
    out["dice_used"] = int(script[0]) - 1
    return out
