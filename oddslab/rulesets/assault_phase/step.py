"""Numba kernel for one Initiative step: every group striking at the step attacks at once.

Hits, wound rolls (an independent character may split his hits between targets), then the
saves and casualties of :mod:`.fight`. Array layouts: :mod:`.layout`.
"""

from __future__ import annotations

from oddslab._jit import jit_inner
from oddslab.rulesets.assault_phase.fight import (
    ld_test,
    majorities,
    pick_target,
    remove_model,
    resolve_saves,
    roll_count,
)
from oddslab.rulesets.assault_phase.layout import (
    CX_ENT,
    CX_HIT,
    CX_NENT,
    CX_RULES,
    CX_WOUND,
    E_NCOLS,
    E_SIDE,
    E_UNIT,
    G_A_C,
    G_A_PROF,
    G_AIMS,
    G_CLAW_C,
    G_FORCE_C,
    G_HEAVY_C,
    G_LD,
    G_NAIMS,
    G_NOARM_C,
    G_NOARM_S,
    G_POISON_C,
    G_REND_C,
    G_S,
    G_S_C,
    G_SIDE,
    G_UNIT,
    G_WS,
    G_WTS,
    R_MAJORITY,
    R_REACH,
    R_SWEEP_SUPPORT,
    R_TIE_T,
    S_ATTACKS,
    S_HITS,
    S_NFIXED,
    S_UNSAVED,
    S_WOUNDS,
    W_ALIVE,
    W_CHARGE_BONUS,
    W_CON,
    W_DMG,
    W_FORCE_PEND,
    W_HIT_E,
    W_IN_COMBAT,
    W_MT,
    W_MWS,
    W_PEND,
    W_PRIO_C,
    W_PRIO_S,
    W_SPLIT_A,
    W_SPLIT_H,
    W_SUP,
    W_SWEEPER,
    W_TRACK,
    W_TURN_INF,
)


@jit_inner
def _wound(st, script, e, hits, auto, strength, poison, claw, noarm, heavy, cx, wk):
    """Wound rolls for ``hits`` hits (plus ``auto`` rending wounds) on entity ``e``.

    Adds the wounds to ``wk[W_PEND + kind, e]`` by save kind (0: no armour save, 1: heavy weapon, 2:
    normal) unless ``noarm < 0`` (force weapon: the caller keeps them). Returns the wounds.
    """
    t = wk[W_MT, e]
    t = t + 11 if t < 0 else t  # (-1, nobody alive, indexed the table's last column)
    need_wound = poison if poison > 0 else cx[CX_WOUND + 11 * strength + t]
    wounds, _six = roll_count(st, script, hits, need_wound)
    if claw:  # lightning claws re-roll each failed wound roll once
        again, _six = roll_count(st, script, hits - wounds, need_wound)
        wounds += again
    if noarm < 0:
        pass
    elif noarm != 0:
        wk[W_PEND + 0, e] += wounds + auto
    elif heavy != 0:
        wk[W_PEND + 1, e] += wounds
        wk[W_PEND + 0, e] += auto
    else:
        wk[W_PEND + 2, e] += wounds
        wk[W_PEND + 0, e] += auto
    return wounds + auto


@jit_inner(ints="k used", flags="live")
def _deal_split(gi, g, wk, auto, hits):
    """Deal an independent character's hits between his aims (``wk[W_SPLIT_*, k]``).

    Rending hits first, then the others, in rounds: ``G_WTS + k`` hits to the ``k``-th aim
    per round, skipping aims with nobody left to hit. Returns False (nothing dealt) if no
    aim has anyone to hit.
    """
    n_aims = gi[g, G_NAIMS]
    live = False
    for k in range(n_aims):
        wk[W_SPLIT_A, k] = 0
        wk[W_SPLIT_H, k] = 0
        if wk[W_HIT_E, gi[g, G_AIMS + k]] > 0:
            live = True
    if not live:
        return False
    k = 0
    used = 0
    for j in range(auto + hits):
        while used >= gi[g, G_WTS + k] or wk[W_HIT_E, gi[g, G_AIMS + k]] == 0:
            k = k + 1 if k + 1 < n_aims else 0
            used = 0
        if j < auto:
            wk[W_SPLIT_A, k] += 1
        else:
            wk[W_SPLIT_H, k] += 1
        used += 1
    return True


@jit_inner(
    ints="auto e heavy hits noarm per poison wounds",
    flags="any_force claw force rend split",
    always_inline=True,
)
def fight_step(st, script, gi, cx, step, wk, redirect, sweep, res):
    """Every group striking at ``step`` attacks simultaneously; casualties applied after.

    In a sweeping advance (``sweep``) only groups with ``wk[W_SWEEPER, g] >= 0`` strike, at the
    entities of unit ``wk[W_SWEEPER, g]``, every attack hitting automatically (a force weapon
    as a power weapon: no psychic test). ``redirect`` lets
    a group whose target has nobody left in reach strike another enemy (after piling in); a
    group whose target unit never joined the fight always does (:func:`~.fight.pick_target`).
    An independent character with several aims (``G_NAIMS > 1``) rolls to hit against the
    first aim that has models in reach and deals his hits between them (:func:`_deal_split`).
    """
    G = gi.shape[0]
    E = cx[CX_NENT]
    reach_unit = cx[CX_RULES + R_REACH] != 0
    # typed (not literal) constants: a literal argument compiles another specialisation
    zero = step * 0
    yes = zero == 0
    no = zero != 0
    no_unit = zero - 1
    # majority WS and T of every entity, fixed for the whole step (simultaneous blows)
    majorities(gi, wk, cx[CX_RULES + R_TIE_T] != 0, cx[CX_RULES + R_MAJORITY], reach_unit, E)
    for e in range(E):
        wk[W_PEND + 0, e] = 0
        wk[W_PEND + 1, e] = 0
        wk[W_PEND + 2, e] = 0
    any_force = False
    for g in range(G):
        wk[W_FORCE_PEND, g] = 0
        u = gi[g, G_UNIT]
        if wk[W_IN_COMBAT, u] == 0 or wk[W_ALIVE, g] == 0:
            continue
        if sweep and wk[W_SWEEPER, g] < 0:
            continue
        side = gi[g, G_SIDE]
        for kind in range(2):
            if kind == 0:
                n_models = wk[W_CON, g]
                if not sweep and wk[W_PRIO_C, g] != step:
                    continue
            else:
                n_models = wk[W_SUP, g]
                if not sweep and wk[W_PRIO_S, g] != step:
                    continue
            if n_models == 0:
                continue
            split = False
            if sweep:
                e = pick_target(gi, cx, g, wk, reach_unit, yes, wk[W_SWEEPER, g], no)
                if e >= 0 and cx[CX_ENT + E_NCOLS * e + E_UNIT] != wk[W_SWEEPER, g]:
                    e = -1
            elif gi[g, G_NAIMS] > 1:
                e = -1
                for k in range(gi[g, G_NAIMS]):
                    if e < 0 and wk[W_HIT_E, gi[g, G_AIMS + k]] > 0:
                        e = gi[g, G_AIMS + k]
                split = e >= 0
                if e < 0:
                    e = pick_target(gi, cx, g, wk, reach_unit, redirect, no_unit, no)
            else:
                e = pick_target(gi, cx, g, wk, reach_unit, redirect, no_unit, no)
            if e < 0:
                continue
            if kind == 0:
                per = gi[g, G_A_PROF] if sweep else gi[g, G_A_C] + wk[W_CHARGE_BONUS, u + 1]
                strength = gi[g, G_S_C]
                noarm = gi[g, G_NOARM_C]
                heavy = gi[g, G_HEAVY_C]
                rend = gi[g, G_REND_C] != 0 and not sweep
                poison = gi[g, G_POISON_C]
                claw = gi[g, G_CLAW_C] != 0
                # a force weapon's one psychic test a turn is taken in the fight, never in
                # the sweeping advance ("you may not use another psychic power in the same
                # turn"): there it strikes as the power weapon it is
                force = gi[g, G_FORCE_C] != 0 and not sweep
            else:  # supporting: one attack, no special close combat attack forms
                per = 1
                if sweep and cx[CX_RULES + R_SWEEP_SUPPORT] != 0:
                    per = gi[g, G_A_PROF]
                strength = gi[g, G_S]
                noarm = gi[g, G_NOARM_S]
                heavy = 0
                rend = False
                poison = 0
                claw = False
                force = False
            n_att = n_models * per
            if n_att == 0:  # no dice, nothing counted
                continue
            res[S_ATTACKS + side] += n_att
            t = wk[W_MWS, e]
            t = t + 11 if t < 0 else t  # (as numpy indexing: -1 is the last column)
            need_hit = cx[CX_HIT + 11 * gi[g, G_WS] + t]
            hits = 0
            auto = 0
            if sweep:
                hits = n_att
            else:
                ge, six = roll_count(st, script, n_att, need_hit)
                if rend:  # a 6 to hit is a wound with no armour save
                    auto = six if need_hit <= 6 else 0  # a hit roll of 7+ (custom chart) never hits
                    hits = ge - auto
                else:
                    hits = ge
            res[S_HITS + side] += hits + auto
            if force:
                noarm = -1
            wounds = 0
            if split and _deal_split(gi, g, wk, auto, hits):
                for k in range(gi[g, G_NAIMS]):
                    a_k = wk[W_SPLIT_A, k]
                    h_k = wk[W_SPLIT_H, k]
                    if a_k + h_k > 0:
                        f = gi[g, G_AIMS + k]
                        wounds += _wound(
                            st, script, f, h_k, a_k, strength, poison, claw, noarm, heavy,
                            cx, wk,
                        )  # fmt: skip
            elif hits + auto > 0:  # (no hits: no wound dice)
                wounds = _wound(
                    st, script, e, hits, auto, strength, poison, claw, noarm, heavy, cx,
                    wk,
                )  # fmt: skip
            res[S_WOUNDS + side] += wounds
            if force:
                wk[W_FORCE_PEND, g] += wounds
                any_force = True
    # force weapons first (they ignore armour), one psychic test per group (never in a sweep)
    if any_force:
        for g in range(G):
            if wk[W_FORCE_PEND, g] == 0:
                continue
            e = pick_target(gi, cx, g, wk, reach_unit, yes, no_unit, yes)
            if e < 0:
                continue
            side = gi[g, G_SIDE]
            uns, inf = resolve_saves(
                st, script, gi, e, wk[W_FORCE_PEND, g], zero, zero, wk, cx, res
            )
            res[S_UNSAVED + side] += uns
            wk[W_TURN_INF, side] += inf
            if uns > 0 and ld_test(st, script, gi[g, G_LD], no):
                h = wk[W_TRACK, 0]
                if h >= 0 and wk[W_TRACK, 1] != 0 and wk[W_ALIVE, h] > 0:
                    wk[W_DMG, h] = 0  # slain outright; only the wounds inflicted count
                    res[S_NFIXED + h] += 1
                    remove_model(h, wk, reach_unit)
    for e in range(E):
        n = wk[W_PEND + 0, e] + wk[W_PEND + 1, e] + wk[W_PEND + 2, e]
        if n == 0:
            continue
        side = 1 - cx[CX_ENT + E_NCOLS * e + E_SIDE]
        uns, inf = resolve_saves(
            st,
            script,
            gi,
            e,
            wk[W_PEND + 0, e],
            wk[W_PEND + 1, e],
            wk[W_PEND + 2, e],
            wk,
            cx,
            res,
        )
        res[S_UNSAVED + side] += uns
        wk[W_TURN_INF, side] += inf
