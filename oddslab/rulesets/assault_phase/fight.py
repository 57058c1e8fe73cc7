"""Numba kernels for one Initiative step of an assault: dice, majorities, saves, blows.

Every die goes through :func:`d6`, which reads from ``script`` while scripted dice remain
(``script[0]`` is the read position, dice from ``script[1]``) so tests can replay the
worked examples of the rule text die by die; production runs pass a length-1 script.
Array layouts: :mod:`oddslab.rulesets.assault_phase.layout`.
"""

from __future__ import annotations

from oddslab._jit import jit
from oddslab._kernels.rng import count_d6, randint
from oddslab.rulesets.assault_phase.layout import (
    E_SIDE,
    E_UNIT,
    G_A_C,
    G_A_PROF,
    G_AIM,
    G_CLAW_C,
    G_ENT,
    G_FORCE_C,
    G_HEAVY_C,
    G_INV,
    G_LD,
    G_NOARM_C,
    G_NOARM_S,
    G_POISON_C,
    G_REND_C,
    G_S,
    G_S_C,
    G_SIDE,
    G_SV,
    G_T,
    G_UNIT,
    G_W,
    G_WS,
    R_REACH,
    R_SWEEP_SUPPORT,
    R_TIE_SAVE,
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
    W_IN_COMBAT,
    W_MT,
    W_MWS,
    W_PRIO_C,
    W_PRIO_S,
    W_SUP,
    W_SWEEPER,
    W_TRACK,
    W_TURN_INF,
)


@jit(inline="always")
def d6(st, script):
    """One D6: the next scripted die while any remain, else a random one.

    Same draw as ``rng.roll(st, 6)``.
    """
    pos = script[0]
    if pos < script.shape[0]:
        script[0] = pos + 1
        return script[pos]
    return randint(st, 6) + 1


@jit(inline="always")
def _roll_count(st, script, n, need):
    """Roll ``n`` D6; return (how many are >= ``need``, how many are 6).

    Draws exactly the dice ``n`` calls of :func:`_d6` would (scripted dice first).
    """
    if script[0] < script.shape[0]:
        ge = 0
        six = 0
        for _ in range(n):
            d = d6(st, script)
            ge += d >= need
            six += d == 6
        return ge, six
    return count_d6(st, n, need)


@jit(inline="always")
def ld_test(st, script, ld, double_one):
    """2D6 <= ld passes (optionally a double one always passes)."""
    a = d6(st, script)
    b = d6(st, script)
    return a + b <= ld or (double_one and a == 1 and b == 1)


@jit(inline="always")
def _hittable(gi, g, wk, reach_unit):
    """Models of group ``g`` that may take casualties (the danger zone)."""
    if reach_unit:
        return wk[W_ALIVE, g]
    return wk[W_CON, g] + wk[W_SUP, g]


@jit(inline="always")
def _remove_model(gi, g, wk, reach_unit):
    """Remove one casualty from ``g``: models out of reach, then supporting, then contact."""
    wk[W_ALIVE, g] -= 1
    out_of_reach = wk[W_ALIVE, g] + 1 - wk[W_CON, g] - wk[W_SUP, g]
    if reach_unit and out_of_reach > 0:
        return
    if wk[W_SUP, g] > 0:
        wk[W_SUP, g] -= 1
    elif wk[W_CON, g] > 0:
        wk[W_CON, g] -= 1


@jit(inline="always")
def majorities(gi, wk, tie_t_low, cnt):
    """Majority WS (ties: lowest) and T (ties per ``tie_t_low``) of every entity.

    ``cnt`` is int64 scratch ``(E, 2, 11)``; ``wk[W_MWS, e]``/``wk[W_MT, e]`` get -1 if nobody is alive.
    """
    E = cnt.shape[0]
    for e in range(E):
        for k in range(11):
            cnt[e, 0, k] = 0
            cnt[e, 1, k] = 0
    for g in range(gi.shape[0]):
        n = wk[W_ALIVE, g]
        if n == 0 or wk[W_IN_COMBAT, gi[g, G_UNIT]] == 0:
            continue
        e = gi[g, G_ENT]
        cnt[e, 0, gi[g, G_WS]] += n
        cnt[e, 1, gi[g, G_T]] += n
    for e in range(E):
        best_n = 0
        best_v = -1
        for v in range(1, 11):  # ascending: a tie keeps the lower WS
            if cnt[e, 0, v] > best_n:
                best_n = cnt[e, 0, v]
                best_v = v
        wk[W_MWS, e] = best_v
        best_n = 0
        best_v = -1
        for v in range(1, 11):
            c = cnt[e, 1, v]
            if c > best_n or (c == best_n and c > 0 and not tie_t_low):
                best_n = c
                best_v = v
        wk[W_MT, e] = best_v


@jit
def resolve_saves(st, script, gi, ent, n_noarm, n_heavy, n_normal, wk, rules, res):
    """Majority-save procedure for wounds against entity ``ent``; returns (unsaved, inflicted).

    Repeatedly: find the save type (armour, invulnerable) most common among the models in
    the danger zone, roll one batch of as many saves as there are such models (no-armour
    wounds first, then heavy-weapon wounds, then the rest: special attacks as early as
    possible), and allocate the failures model by model to that save type. Wounds left when
    no model is in reach are discarded. ``wk[W_TRACK, 0]`` receives the group of the last model
    wounded and ``wk[W_TRACK, 1]`` 1 if that model is still alive (for force weapons).
    """
    reach_unit = rules[R_REACH] != 0
    tie_worse = rules[R_TIE_SAVE] != 0
    G = gi.shape[0]
    unsaved = 0
    inflicted = 0
    wk[W_TRACK, 0] = -1
    wk[W_TRACK, 1] = 0
    rem = n_noarm + n_heavy + n_normal
    while rem > 0:
        best_n = 0
        best_sv = 0
        best_inv = 0
        for g in range(G):
            if gi[g, G_ENT] != ent:
                continue
            if _hittable(gi, g, wk, reach_unit) == 0:
                continue
            sv = gi[g, G_SV]
            inv = gi[g, G_INV]
            n = 0
            for h in range(G):
                if gi[h, G_ENT] == ent and gi[h, G_SV] == sv and gi[h, G_INV] == inv:
                    n += _hittable(gi, h, wk, reach_unit)
            better = sv < best_sv or (sv == best_sv and inv < best_inv)
            if n > best_n or (n == best_n and better != tie_worse):
                best_n = n
                best_sv = sv
                best_inv = inv
        if best_n == 0:
            break  # nobody left in reach: surplus wounds are discarded
        batch = best_n if best_n < rem else rem
        rem -= batch
        fails = 0
        # the batch: wounds ignoring armour first, then heavy-weapon wounds, then the rest
        k0 = n_noarm if n_noarm < batch else batch
        k1 = n_heavy if n_heavy < batch - k0 else batch - k0
        k2 = batch - k0 - k1
        n_noarm -= k0
        n_heavy -= k1
        n_normal -= k2
        need_heavy = best_sv if best_sv > 4 else 4
        need_heavy = need_heavy if need_heavy < best_inv else best_inv
        need_normal = best_sv if best_sv < best_inv else best_inv
        for kind in range(3):
            k = k0 if kind == 0 else (k1 if kind == 1 else k2)
            need = best_inv if kind == 0 else (need_heavy if kind == 1 else need_normal)
            if k == 0:
                continue
            if need >= 7:  # no save possible: no die rolled
                fails += k
            else:
                saved, _six = _roll_count(st, script, k, need)
                fails += k - saved
        unsaved += fails
        for g in range(G):
            if fails == 0:
                break
            if gi[g, G_ENT] != ent or gi[g, G_SV] != best_sv or gi[g, G_INV] != best_inv:
                continue
            w = gi[g, G_W]
            while fails > 0 and _hittable(gi, g, wk, reach_unit) > 0:
                fails -= 1
                inflicted += 1
                wk[W_DMG, g] += 1
                wk[W_TRACK, 0] = g
                if wk[W_DMG, g] >= w:
                    wk[W_DMG, g] = 0
                    res[S_NFIXED + g] += 1
                    _remove_model(gi, g, wk, reach_unit)
                    wk[W_TRACK, 1] = 0
                else:
                    wk[W_TRACK, 1] = 1
    return unsaved, inflicted


@jit(inline="always")
def _entity_has_targets(gi, ent, wk, reach_unit):
    n = 0
    for g in range(gi.shape[0]):
        if gi[g, G_ENT] == ent and wk[W_IN_COMBAT, gi[g, G_UNIT]] != 0:
            n += _hittable(gi, g, wk, reach_unit)
    return n > 0


@jit(inline="always")
def _pick_target(gi, ei, g, wk, reach_unit, redirect, only_unit):
    """Entity group ``g`` attacks: its aim, else (if ``redirect``) another enemy entity.

    Redirection prefers entities of ``only_unit`` when it is >= 0 (sweeping advances).
    Returns -1 when no target is available.
    """
    e = gi[g, G_AIM]
    if _entity_has_targets(gi, e, wk, reach_unit):
        return e
    if not redirect:
        return -1
    enemy = 1 - gi[g, G_SIDE]
    for f in range(ei.shape[0]):
        if ei[f, E_SIDE] != enemy:
            continue
        if only_unit >= 0 and ei[f, E_UNIT] != only_unit:
            continue
        if _entity_has_targets(gi, f, wk, reach_unit):
            return f
    return -1


@jit
def fight_step(
    st, script, gi, ui, ei, rules, hit_tab, wound_tab, step, wk, redirect, sweep, res, pend, cnt
):
    """Every group striking at ``step`` attacks simultaneously; casualties applied after.

    In a sweeping advance (``sweep``) only groups with ``wk[W_SWEEPER, g] >= 0`` strike, at the
    entities of unit ``wk[W_SWEEPER, g]``, every attack hitting automatically. ``redirect`` lets
    a group whose target has nobody left in reach strike another enemy (after piling in).
    """
    G = gi.shape[0]
    E = ei.shape[0]
    reach_unit = rules[R_REACH] != 0
    # majority WS and T of every entity, fixed for the whole step (simultaneous blows)
    majorities(gi, wk, rules[R_TIE_T] != 0, cnt)
    for e in range(E):
        pend[e, 0] = 0
        pend[e, 1] = 0
        pend[e, 2] = 0
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
            if sweep:
                e = _pick_target(gi, ei, g, wk, reach_unit, True, wk[W_SWEEPER, g])
                if e >= 0 and ei[e, E_UNIT] != wk[W_SWEEPER, g]:
                    e = -1
            else:
                e = _pick_target(gi, ei, g, wk, reach_unit, redirect, -1)
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
                force = gi[g, G_FORCE_C] != 0
            else:
                per = 1
                if sweep and rules[R_SWEEP_SUPPORT] != 0:
                    per = gi[g, G_A_PROF]
                strength = gi[g, G_S]
                noarm = gi[g, G_NOARM_S]
                heavy = 0
                rend = False
                poison = 0
                claw = False
                force = False
            n_att = n_models * per
            res[S_ATTACKS + side] += n_att
            need_hit = hit_tab[gi[g, G_WS], wk[W_MWS, e]]
            need_wound = poison if poison > 0 else wound_tab[strength, wk[W_MT, e]]
            hits = 0
            auto = 0
            if sweep:
                hits = n_att
            else:
                ge, six = _roll_count(st, script, n_att, need_hit)
                if rend:  # a 6 to hit is a wound with no armour save
                    auto = six if need_hit <= 6 else 0  # a hit roll of 7+ (custom chart) never hits
                    hits = ge - auto
                else:
                    hits = ge
            res[S_HITS + side] += hits + auto
            wounds, _six = _roll_count(st, script, hits, need_wound)
            if claw:  # lightning claws re-roll each failed wound roll once
                again, _six = _roll_count(st, script, hits - wounds, need_wound)
                wounds += again
            res[S_WOUNDS + side] += wounds + auto
            if force:
                wk[W_FORCE_PEND, g] += wounds + auto
                any_force = True
            elif noarm != 0:
                pend[e, 0] += wounds + auto
            elif heavy != 0:
                pend[e, 1] += wounds
                pend[e, 0] += auto
            else:
                pend[e, 2] += wounds
                pend[e, 0] += auto
    # force weapons first (they ignore armour), one psychic test per group
    if any_force:
        for g in range(G):
            if wk[W_FORCE_PEND, g] == 0:
                continue
            e = _pick_target(gi, ei, g, wk, reach_unit, True, wk[W_SWEEPER, g] if sweep else -1)
            if e < 0:
                continue
            side = gi[g, G_SIDE]
            uns, inf = resolve_saves(st, script, gi, e, wk[W_FORCE_PEND, g], 0, 0, wk, rules, res)
            res[S_UNSAVED + side] += uns
            wk[W_TURN_INF, side] += inf
            if uns > 0 and ld_test(st, script, gi[g, G_LD], False):
                h = wk[W_TRACK, 0]
                if h >= 0 and wk[W_TRACK, 1] != 0 and wk[W_ALIVE, h] > 0:
                    wk[W_DMG, h] = 0  # slain outright; only the wounds inflicted count
                    res[S_NFIXED + h] += 1
                    _remove_model(gi, h, wk, reach_unit)
    for e in range(E):
        n = pend[e, 0] + pend[e, 1] + pend[e, 2]
        if n == 0:
            continue
        side = 1 - ei[e, E_SIDE]
        uns, inf = resolve_saves(
            st, script, gi, e, pend[e, 0], pend[e, 1], pend[e, 2], wk, rules, res
        )
        res[S_UNSAVED + side] += uns
        wk[W_TURN_INF, side] += inf
