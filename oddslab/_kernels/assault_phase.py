"""Kernel for the assault-phase ruleset: initiative-stepped close combat with morale.

The ruleset (:mod:`oddslab.rulesets.assault_phase`) flattens a combat into integer tables:

* ``gi[g, G_*]`` one row per *model group* (models sharing a profile), with the attack
  profile already resolved for models in base contact (``*_C`` columns: special weapons on)
  and for supporting models (``*_S`` columns: one attack, no special attack forms);
* ``ui[u, U_*]`` one row per unit (side, fast, cover, grenades, charge distance, ...);
* ``ei[e, E_*]`` one row per *target entity*: the non-independent body of a unit, or one
  independent character (who takes wounds separately);
* ``rules[R_*]`` the rule switches; ``hit_tab[ws_att, ws_def]`` and ``wound_tab[s, t]``
  the to-hit and to-wound charts (need on a D6; 7 = impossible).

One trial is one whole combat: charge, rounds (Initiative steps from 11 = "strikes first"
down to 1), assault result, morale, fall back, sweeping advance, repeated for up to
``rules[R_MAX_TURNS]`` turns. ``simulate_trial`` writes the per-trial statistics into
``res`` (layout ``S_*`` then one slain count per group) and the chunk driver histograms them.

Every die goes through :func:`_d6`, which reads from ``script`` while scripted dice remain
(``script[0]`` is the read position, dice from ``script[1]``) so tests can replay the
worked examples of the rule text die by die; production runs pass a length-1 script.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from oddslab._jit import jit, jit_parallel
from oddslab._kernels.rng import count_d6, new_state, randint

# -- group columns --------------------------------------------------------------------------
G_SIDE = 0  # 0 attacker, 1 defender
G_UNIT = 1
G_ENT = 2  # entity this group belongs to (takes wounds as)
G_AIM = 3  # enemy entity this group attacks
G_COUNT = 4
G_CONTACT = 5  # models in base contact at the start of the combat
G_SUPPORT = 6  # models within 2" of an engaged friend
G_WS = 7
G_T = 8
G_W = 9
G_LD = 10
G_SV = 11  # armour save needed (7 = none)
G_INV = 12  # invulnerable save needed (7 = none)
G_A_C = 13  # attacks per model in contact (profile A + two-weapon bonus)
G_S_C = 14  # strength in contact (power fist: doubled, max 10)
G_I_C = 15  # initiative step in contact (power fist: 1)
G_NOARM_C = 16  # contact attacks ignore armour (power/fist/claws/force/monstrous)
G_HEAVY_C = 17  # heavy close combat weapon: armour capped at 4+
G_REND_C = 18  # rending: to-hit 6 wounds automatically, no armour save
G_POISON_C = 19  # poisoned: fixed wound roll (0 = no)
G_CLAW_C = 20  # lightning claws: re-roll failed wounds
G_FORCE_C = 21  # force weapon: psychic test slays a wounded model
G_A_PROF = 22  # profile attacks (sweeping advance)
G_S = 23  # profile strength (supporting attacks)
G_I = 24  # profile initiative (supporting attacks)
G_NOARM_S = 25  # supporting attacks ignore armour (monstrous creature only)
G_FIST = 26  # power fist or claw in contact (strikes at I1 even from cover)
G_NCOLS = 27

# -- unit columns ---------------------------------------------------------------------------
U_SIDE = 0
U_FAST = 1  # 3D6 fall back and sweeping advance
U_COVER = 2  # defender in or behind cover (strikes first when charged)
U_GRENADES = 3  # 0 none, 1 frag, 2 plasma
U_FIRED = 4  # fired this turn: no +1 charge attack
U_CHARGE_DIST = 5  # inches through difficult terrain (0 = no terrain test)
U_FALLING_BACK = 6  # assaulted while falling back: regroup or be destroyed
U_TRAPPED = 7  # destroyed if it has to fall back
U_NCOLS = 8

# -- entity columns -------------------------------------------------------------------------
E_UNIT = 0
E_SIDE = 1
E_NCOLS = 2

# -- rule switches --------------------------------------------------------------------------
R_MAX_TURNS = 0
R_DOUBLE_ONE = 1  # double one always passes Ld tests
R_HALF_PENALTY = 2  # -1 Ld below half strength (morale only)
R_LD_MODE = 3  # 0 highest Ld in the unit (leader's), 1 majority Ld
R_REACH = 4  # 0 engaged models only (contact + 2"), 1 whole unit
R_TIE_SAVE = 5  # equal numbers: 0 better save used, 1 worse
R_TIE_T = 6  # equal numbers: 0 higher T used, 1 lower
R_FIST_LAST = 7  # 1: fists strike at I1 even when the unit strikes first
R_SWEEP_SUPPORT = 8  # 1: supporting models make profile attacks in a sweep, 0: one attack
R_PILE_IN = 9  # 1: after the first turn every survivor is in base contact
R_NCOLS = 10

# rows of the per-trial work array ``wk[row, index]``
W_ALIVE = 0
W_CON = 1
W_SUP = 2
W_DMG = 3
W_IN_COMBAT = 4
W_FLED = 5
W_FB = 6
W_PRIO_C = 7
W_PRIO_S = 8
W_CHARGE_BONUS = 9
W_MWS = 10
W_MT = 11
W_FORCE_PEND = 12
W_SWEEPER = 13
W_TRACK = 14
W_TURN_INF = 15
W_NROWS = 16

COVER_STEP = 11  # strikes before any Initiative value (1..10)

# -- per-trial statistics (res layout); per-group slain counts follow at S_NFIXED + g ------
S_CHARGE = 0
S_WIN_ATT = 1  # first-round assault result
S_WIN_DEF = 2
S_DRAW = 3
S_LOSER_FAILED = 4  # a loser of the first round failed its morale check
S_REGROUP_FAILED = 5
S_TURNS = 6  # turn the combat ended in; max_turns + 1 = unresolved; 0 = no combat
S_FIGHT_ATT = 7  # defenders all gone (fled or destroyed), attackers remain
S_FIGHT_DEF = 8
# per side: base + side
S_ATTACKS = 9
S_HITS = 11
S_WOUNDS = 13
S_UNSAVED = 15
S_INFLICTED = 17
S_SLAIN = 19  # models slain by this side
S_FELL_BACK = 21  # a unit of this side fell back
S_SWEPT = 23  # a unit of this side was caught by a sweeping advance
S_DESTROYED = 25  # every unit of this side destroyed
S_NFIXED = 27


@jit(inline="always")
def _d6(st, script):
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
            d = _d6(st, script)
            ge += d >= need
            six += d == 6
        return ge, six
    return count_d6(st, n, need)


@jit(inline="always")
def _ld_test(st, script, ld, double_one):
    """2D6 <= ld passes (optionally a double one always passes)."""
    a = _d6(st, script)
    b = _d6(st, script)
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
            if uns > 0 and _ld_test(st, script, gi[g, G_LD], False):
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


@jit(inline="always")
def _unit_ld(gi, u, wk, mode):
    """Leadership a unit tests on: the highest among its living models, or the majority."""
    best = 0
    if mode == 0:
        for g in range(gi.shape[0]):
            if gi[g, G_UNIT] == u and wk[W_ALIVE, g] > 0 and gi[g, G_LD] > best:
                best = gi[g, G_LD]
        return best
    best_n = 0
    for g in range(gi.shape[0]):
        if gi[g, G_UNIT] != u or wk[W_ALIVE, g] == 0:
            continue
        n = 0
        for h in range(gi.shape[0]):
            if gi[h, G_UNIT] == u and gi[h, G_LD] == gi[g, G_LD]:
                n += wk[W_ALIVE, h]
        if n > best_n or (n == best_n and gi[g, G_LD] > best):
            best_n = n
            best = gi[g, G_LD]
    return best


@jit(inline="always")
def _unit_alive(gi, u, wk):
    n = 0
    for g in range(gi.shape[0]):
        if gi[g, G_UNIT] == u:
            n += wk[W_ALIVE, g]
    return n


@jit(inline="always")
def _unit_start(gi, u):
    n = 0
    for g in range(gi.shape[0]):
        if gi[g, G_UNIT] == u:
            n += gi[g, G_COUNT]
    return n


@jit(inline="always")
def _side_in_combat(gi, ui, side, wk):
    n = 0
    for u in range(ui.shape[0]):
        if ui[u, U_SIDE] == side and wk[W_IN_COMBAT, u] != 0:
            n += _unit_alive(gi, u, wk)
    return n


@jit(inline="always")
def _roll_distance(st, script, fast):
    """2D6 (3D6 for fast units) inches."""
    total = _d6(st, script) + _d6(st, script)
    if fast:
        total += _d6(st, script)
    return total


@jit
def simulate_trial(st, script, gi, ui, ei, rules, hit_tab, wound_tab, res, wk, pend, cnt):
    """One whole combat; fills ``res`` (``S_NFIXED + G`` values).

    ``wk`` is int64 scratch ``(W_NROWS, max(G, U + 1, E, 2) + 1)``, ``pend`` int64
    ``(E, 3)`` and ``cnt`` int64 ``(E, 2, 11)``; all are overwritten.
    """
    G = gi.shape[0]
    U = ui.shape[0]
    for i in range(res.shape[0]):
        res[i] = 0
    double_one = rules[R_DOUBLE_ONE] != 0
    for g in range(G):
        wk[W_ALIVE, g] = gi[g, G_COUNT]
        wk[W_CON, g] = gi[g, G_CONTACT]
        wk[W_SUP, g] = gi[g, G_SUPPORT]
        wk[W_DMG, g] = 0
        wk[W_SWEEPER, g] = -1
    # -- charge: difficult terrain, 2D6 pick the highest ----------------------------------
    any_charge = False
    for u in range(U):
        wk[W_FLED, u] = 0
        wk[W_FB, u] = 0
        wk[W_IN_COMBAT, u] = 1
        wk[W_CHARGE_BONUS, u + 1] = 0
        if ui[u, U_SIDE] == 0:
            dist = ui[u, U_CHARGE_DIST]
            ok = True
            if dist > 0:
                a = _d6(st, script)
                b = _d6(st, script)
                ok = (a if a > b else b) >= dist
            if ok:
                any_charge = True
                wk[W_CHARGE_BONUS, u + 1] = 0 if ui[u, U_FIRED] != 0 else 1
            else:
                wk[W_IN_COMBAT, u] = 0
    if not any_charge:
        return
    res[S_CHARGE] = 1
    # -- defenders assaulted while falling back must regroup -------------------------------
    for u in range(U):
        if ui[u, U_SIDE] == 1 and ui[u, U_FALLING_BACK] != 0:
            if not _ld_test(st, script, _unit_ld(gi, u, wk, rules[R_LD_MODE]), double_one):
                res[S_REGROUP_FAILED] = 1
                wk[W_IN_COMBAT, u] = 0
                for g in range(G):
                    if gi[g, G_UNIT] == u:
                        wk[W_ALIVE, g] = 0
                        wk[W_CON, g] = 0
                        wk[W_SUP, g] = 0
    # cover: defenders in cover strike first unless every charging unit has plasma grenades
    cover_on = False
    for u in range(U):
        if ui[u, U_SIDE] == 0 and wk[W_IN_COMBAT, u] != 0 and ui[u, U_GRENADES] != 2:
            cover_on = True
    max_turns = rules[R_MAX_TURNS]
    turns = max_turns + 1
    for turn in range(1, max_turns + 1):
        first = turn == 1
        redirect = not first and rules[R_PILE_IN] != 0
        for g in range(G):
            u = gi[g, G_UNIT]
            wk[W_PRIO_C, g] = gi[g, G_I_C]
            wk[W_PRIO_S, g] = gi[g, G_I]
            if first and cover_on:
                strikes_first = False
                if ui[u, U_SIDE] == 1 and ui[u, U_COVER] != 0:
                    strikes_first = True
                if ui[u, U_SIDE] == 0 and ui[u, U_GRENADES] == 1:
                    strikes_first = _any_cover(ui, wk)
                if strikes_first:
                    wk[W_PRIO_S, g] = COVER_STEP
                    if rules[R_FIST_LAST] == 0 or gi[g, G_FIST] == 0:
                        wk[W_PRIO_C, g] = COVER_STEP
        if not first:
            for u in range(U):
                wk[W_CHARGE_BONUS, u + 1] = 0
        wk[W_TURN_INF, 0] = 0
        wk[W_TURN_INF, 1] = 0
        for step in range(COVER_STEP, 0, -1):
            active = False
            for g in range(G):
                if wk[W_PRIO_C, g] == step or wk[W_PRIO_S, g] == step:
                    active = True
            if not active:
                continue
            fight_step(
                st,
                script,
                gi,
                ui,
                ei,
                rules,
                hit_tab,
                wound_tab,
                step,
                wk,
                redirect,
                False,
                res,
                pend,
                cnt,
            )
        # -- assault result ----------------------------------------------------------------
        left_a = _side_in_combat(gi, ui, 0, wk)
        left_d = _side_in_combat(gi, ui, 1, wk)
        winner = -1
        if left_a == 0 or left_d == 0:
            if left_a > 0:
                winner = 0
            elif left_d > 0:
                winner = 1
        elif wk[W_TURN_INF, 0] > wk[W_TURN_INF, 1]:
            winner = 0
        elif wk[W_TURN_INF, 1] > wk[W_TURN_INF, 0]:
            winner = 1
        if first:
            if winner == 0:
                res[S_WIN_ATT] = 1
            elif winner == 1:
                res[S_WIN_DEF] = 1
            else:
                res[S_DRAW] = 1
        for u in range(U):
            if _unit_alive(gi, u, wk) == 0:
                wk[W_IN_COMBAT, u] = 0
        # -- loser checks morale -------------------------------------------------------------
        if winner >= 0:
            loser = 1 - winner
            any_fled = False
            for u in range(U):
                if ui[u, U_SIDE] != loser or wk[W_IN_COMBAT, u] == 0:
                    continue
                ld = _unit_ld(gi, u, wk, rules[R_LD_MODE])
                if rules[R_HALF_PENALTY] != 0 and 2 * _unit_alive(gi, u, wk) < _unit_start(gi, u):
                    ld -= 1
                if not _ld_test(st, script, ld, double_one):
                    wk[W_FLED, u] = 1
                    any_fled = True
                    res[S_FELL_BACK + loser] = 1
                    if first:
                        res[S_LOSER_FAILED] = 1
                    wk[W_FB, u] = _roll_distance(st, script, ui[u, U_FAST] != 0)
                    if ui[u, U_TRAPPED] != 0:  # trapped: destroyed, no sweep needed
                        for g in range(G):
                            if gi[g, G_UNIT] == u:
                                wk[W_ALIVE, g] = 0
                                wk[W_CON, g] = 0
                                wk[W_SUP, g] = 0
                        wk[W_IN_COMBAT, u] = 0
            # -- sweeping advance: winners whose every opponent fell back -----------------
            if any_fled:
                any_sweep = False
                for g in range(G):
                    wk[W_SWEEPER, g] = -1
                for w in range(U):
                    if ui[w, U_SIDE] != winner or wk[W_IN_COMBAT, w] == 0:
                        continue
                    all_fled = True
                    for g in range(G):
                        if gi[g, G_UNIT] == w and wk[W_ALIVE, g] > 0:
                            v = ei[gi[g, G_AIM], E_UNIT]
                            if wk[W_FLED, v] == 0 and wk[W_IN_COMBAT, v] != 0:
                                all_fled = False
                    if not all_fled:
                        continue
                    dist = _roll_distance(st, script, ui[w, U_FAST] != 0)
                    for g in range(G):
                        if gi[g, G_UNIT] == w and wk[W_ALIVE, g] > 0:
                            v = ei[gi[g, G_AIM], E_UNIT]
                            if (
                                wk[W_FLED, v] != 0
                                and wk[W_IN_COMBAT, v] != 0
                                and dist > wk[W_FB, v]
                            ):
                                wk[W_SWEEPER, g] = v
                                any_sweep = True
                                res[S_SWEPT + loser] = 1
                if any_sweep:  # its wounds count in the totals, not in the result (decided)
                    fight_step(
                        st,
                        script,
                        gi,
                        ui,
                        ei,
                        rules,
                        hit_tab,
                        wound_tab,
                        0,
                        wk,
                        redirect,
                        True,
                        res,
                        pend,
                        cnt,
                    )
                for u in range(U):
                    if wk[W_FLED, u] != 0:
                        wk[W_IN_COMBAT, u] = 0
        res[S_INFLICTED] += wk[W_TURN_INF, 0]
        res[S_INFLICTED + 1] += wk[W_TURN_INF, 1]
        left_a = _side_in_combat(gi, ui, 0, wk)
        left_d = _side_in_combat(gi, ui, 1, wk)
        if left_a == 0 or left_d == 0:
            turns = turn
            if left_a > 0:
                res[S_FIGHT_ATT] = 1
            elif left_d > 0:
                res[S_FIGHT_DEF] = 1
            break
        # pile in: survivors move into base contact for the next turn
        if rules[R_PILE_IN] != 0:
            for g in range(G):
                wk[W_CON, g] = wk[W_ALIVE, g]
                wk[W_SUP, g] = 0
    res[S_TURNS] = turns
    for g in range(G):
        res[S_SLAIN + 1 - gi[g, G_SIDE]] += res[S_NFIXED + g]
    for side in range(2):
        gone = True
        for g in range(G):
            if gi[g, G_SIDE] == side and wk[W_ALIVE, g] > 0:
                gone = False
        res[S_DESTROYED + side] = 1 if gone else 0


@jit(inline="always")
def _any_cover(ui, wk):
    for u in range(ui.shape[0]):
        if ui[u, U_SIDE] == 1 and ui[u, U_COVER] != 0 and wk[W_IN_COMBAT, u] != 0:
            return True
    return False


@jit
def _scratch(gi, ui, ei):
    n = max(gi.shape[0], ui.shape[0] + 1, ei.shape[0], 2) + 1
    E = ei.shape[0]
    return (
        np.zeros((W_NROWS, n), dtype=np.int64),
        np.zeros((E, 3), dtype=np.int64),
        np.zeros((E, 2, 11), dtype=np.int64),
    )


@jit
def run_scripted(gi, ui, ei, rules, hit_tab, wound_tab, script, seed_words):
    """One trial with scripted dice (tests); returns ``res`` (int64[S_NFIXED + G])."""
    st = new_state(seed_words)
    res = np.zeros(S_NFIXED + gi.shape[0], dtype=np.int64)
    wk, pend, cnt = _scratch(gi, ui, ei)
    simulate_trial(st, script, gi, ui, ei, rules, hit_tab, wound_tab, res, wk, pend, cnt)
    return res


@jit_parallel
def run_assault(seeds, ntrials, out, gi, ui, ei, rules, hit_tab, wound_tab):
    """Chunk driver: ``out[c, stat, value]`` histograms of every per-trial statistic."""
    n_res = S_NFIXED + gi.shape[0]
    for c in prange(seeds.shape[0]):
        st = new_state(seeds[c])
        script = np.ones(1, dtype=np.int64)  # nothing scripted: position 1 == length
        res = np.zeros(n_res, dtype=np.int64)
        wk, pend, cnt = _scratch(gi, ui, ei)
        hist = out[c]
        for _ in range(ntrials[c]):
            simulate_trial(st, script, gi, ui, ei, rules, hit_tab, wound_tab, res, wk, pend, cnt)
            for s in range(n_res):
                hist[s, res[s]] += 1
