"""Numba kernels for Vom Kriege: shooting, the melee sequence (steps 1-7), retreats, the
leader cascade, and command-dice rolls under a reroll policy table.

Tables (columns in :mod:`.layout`): ``U`` units, ``LD`` leaders, ``A`` actions, ``R`` rule
switches, ``HIT[mode, troop, face]`` (mode 0 shooting, 1 melee, 2 sabers only), ``FLAG[face]``,
``SYM[face]`` (symbol of each face), ``FP[row, band]`` artillery fire points. One trial plays
every action of ``A`` in order on a fresh copy of the starting state ``S`` / ``LS``. Every die
is one :func:`oddslab._kernels.rng.randint` call with the number of faces, so a trial draws
exactly the dice a player would roll.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from oddslab._jit import jit, jit_parallel
from oddslab._kernels.rng import new_state, randint
from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.adjust import melee_dice, shoot_dice

FM_NORMAL = 0  # flags retreat (squares: 1 hit per flag)
FM_IGNORE = 1  # flags have no effect
FM_MIN_ONE = 2  # at least half a move of retreat (square battling back against cavalry)
MODE_SHOOT = 0
MODE_MELEE = 1
MODE_SABER = 2


# -- dice --------------------------------------------------------------------------------------
@jit
def roll_battle(st, n, mode, troop, HIT, FLAG, nf):
    """Roll ``n`` battle dice against a target of ``troop``; return (hits, flags)."""
    h = 0
    f = 0
    for _ in range(n):
        face = randint(st, nf)
        h += HIT[mode, troop, face]
        f += FLAG[face]
    return h, f


@jit
def square_test(st, n, SYM, nf):
    """Form-square test: ``n`` command dice, success (1) if any shows an infantry symbol."""
    ok = 0
    for _ in range(n):
        if SYM[randint(st, nf)] == L.SYM_INF:
            ok = 1
    return ok


# -- hits, retreats, removal, leaders ----------------------------------------------------------
@jit
def remove_unit(U, S, LD, LS, u):
    """Remove ``u``; its leader takes a hit (3 hits: leader and command gone, army leader hit)."""
    if S[u, L.S_REMOVED] == 1:
        return
    S[u, L.S_REMOVED] = 1
    ldr = U[u, L.U_LEADER]
    if ldr < 0 or LS[ldr, L.LS_REMOVED] == 1:
        return
    LS[ldr, L.LS_LOST] += 1
    LS[ldr, L.LS_HITS] += 1
    if LS[ldr, L.LS_HITS] >= L.LEADER_STRENGTH:
        LS[ldr, L.LS_REMOVED] = 1
        LS[ldr, L.LS_LOST] = LD[ldr, L.LD_UNITS]
        for v in range(U.shape[0]):
            if U[v, L.U_LEADER] == ldr:
                S[v, L.S_REMOVED] = 1
        army = LD[ldr, L.LD_ARMY]
        if army >= 0 and LS[army, L.LS_REMOVED] == 0:
            LS[army, L.LS_HITS] += 1
            if LS[army, L.LS_HITS] >= L.LEADER_STRENGTH:
                LS[army, L.LS_REMOVED] = 1


@jit
def disorder(U, S, LD, LS, u):
    """Disorder ``u``; a unit already at maximum hits that is newly disordered is removed."""
    if S[u, L.S_REMOVED] == 1 or S[u, L.S_DISO] == 1:
        return
    if S[u, L.S_HITS] >= U[u, L.U_STR]:
        remove_unit(U, S, LD, LS, u)
    else:
        S[u, L.S_DISO] = 1


@jit
def resolve(U, S, LD, LS, t, hits, flags, fmode, R):
    """Apply a roll's ``hits`` then its ``flags`` (retreats) to unit ``t``."""
    strn = U[t, L.U_STR]
    absorb = R[L.R_ABSORB]
    square = S[t, L.S_FORM] == L.F_SQUARE
    reached = 0
    n = hits
    if square and fmode != FM_IGNORE:
        n += flags  # infantry in square: 1 hit per flag instead of a retreat
    for _ in range(n):
        if S[t, L.S_REMOVED] == 1:
            return
        if S[t, L.S_HITS] >= strn:
            if reached == 1 and absorb == 1:
                break
            remove_unit(U, S, LD, LS, t)
            return
        S[t, L.S_HITS] += 1
        if S[t, L.S_HITS] >= strn:
            reached = 1
            # maximum hits: retreat 1 move and disorder (blocked: a hit at maximum = removed)
            if U[t, L.U_BLOCKED] == 1:
                remove_unit(U, S, LD, LS, t)
                return
            S[t, L.S_RETREAT_HM] += 2
            S[t, L.S_RETREATS] += 1
            S[t, L.S_DISO] = 1
    if S[t, L.S_REMOVED] == 1:
        return
    nf = 0 if (square or fmode == FM_IGNORE) else flags
    if fmode == FM_MIN_ONE and nf < 1:
        nf = 1
    if nf <= 0:
        return
    if S[t, L.S_HITS] >= strn:
        if reached == 1 and absorb == 1:
            return
        remove_unit(U, S, LD, LS, t)
        return
    if U[t, L.U_BLOCKED] == 1:  # retreat blocked: 1 hit instead, no move
        S[t, L.S_HITS] += 1
        if S[t, L.S_HITS] >= strn:
            remove_unit(U, S, LD, LS, t)
        return
    S[t, L.S_RETREAT_HM] += nf
    S[t, L.S_RETREATS] += 1
    S[t, L.S_DISO] = 1


@jit
def shoot(st, U, S, LD, LS, u, t, band, order, supp, enf, obs, df, R, HIT, FLAG, FP, DC):
    """Unit ``u`` shoots ``t``; ``df`` = 1 for defensive fire (flags may be ignored)."""
    if S[u, L.S_REMOVED] == 1 or S[u, L.S_HITS] >= U[u, L.U_STR] or S[t, L.S_REMOVED] == 1:
        return
    n, marker = shoot_dice(U, S, u, t, band, order, supp, enf, obs, FP, R)
    if n <= 0:
        return
    DC[U[u, L.U_SIDE]] += n
    h, f = roll_battle(st, n, MODE_SHOOT, U[t, L.U_TROOP], HIT, FLAG, R[L.R_NFACES])
    S[t, L.S_HITS_ROLLED] += h
    S[t, L.S_FLAGS_ROLLED] += f
    resolve(
        U, S, LD, LS, t, h, f, FM_IGNORE if (df == 1 and R[L.R_DF_IGNORE] == 1) else FM_NORMAL, R
    )
    if marker == 1:
        S[u, L.S_MARK] = 1


@jit
def attack_roll(st, U, S, LD, LS, u, t, n, mode, fmode, R, HIT, FLAG, DC):
    """``u`` rolls ``n`` melee dice against ``t`` and the result is applied (step 4)."""
    DC[U[u, L.U_SIDE]] += n
    h, f = roll_battle(st, n, mode, U[t, L.U_TROOP], HIT, FLAG, R[L.R_NFACES])
    S[t, L.S_HITS_ROLLED] += h
    S[t, L.S_FLAGS_ROLLED] += f
    resolve(U, S, LD, LS, t, h, f if fmode != FM_IGNORE else 0, fmode, R)


@jit
def pick_reaction(U, S, att, dfd, react, R):
    """The defender's reaction after the policy and eligibility checks (codes ``R_*``)."""
    ta = U[att, L.U_TROOP]
    td = U[dfd, L.U_TROOP]
    form = S[dfd, L.S_FORM]
    if S[dfd, L.S_HITS] >= U[dfd, L.U_STR]:
        return L.R_NONE
    r = react
    if r == L.R_AUTO:
        if td == L.INF:
            r = (
                L.R_SQUARE
                if (ta == L.CAV and U[dfd, L.U_TERR] == L.T_OPEN and form != L.F_SQUARE)
                else L.R_FIRE
            )
        elif td == L.ART:
            r = L.R_FIRE
        else:
            r = L.R_COUNTER if ta == L.CAV else L.R_NONE
    if r == L.R_SQUARE:
        if td != L.INF or ta != L.CAV or U[dfd, L.U_TERR] != L.T_OPEN or form == L.F_SQUARE:
            return L.R_NONE
    elif r == L.R_RETIRE:
        if not (td == L.CAV or td == L.ART or form == L.F_OPEN):
            return L.R_NONE
        if ta != L.INF and R[L.R_RETIRE_VS_CAV] == 0:
            return L.R_NONE
    elif r == L.R_COUNTER:
        if td != L.CAV or ta != L.CAV or S[dfd, L.S_DISO] == 1:
            return L.R_NONE
    return r


@jit
def melee(st, U, S, LD, LS, A, a, att, dfd, follow, R, HIT, FLAG, SYM, FP, DC):
    """One melee of ``att`` on ``dfd`` (steps 1-5; the follow-up and cavalry disorder are the
    caller's). Action row ``a`` of ``A`` gives the situation; ``follow`` = 1 for a follow-up.
    Returns 1 if the defender's position was vacated (removed, retreated or retired).
    """
    if follow == 1:
        order = A[a, L.A_ORDER]
        supp = A[a, L.A_FU_SUPP]
        dsupp = 0
        react = A[a, L.A_FU_REACT]
        flank = A[a, L.A_FU_FLANK]
        uphill = 0
        rough = 0
        nart = 0
    else:
        order = A[a, L.A_ORDER]
        supp = A[a, L.A_SUPP]
        dsupp = A[a, L.A_DSUPP]
        react = A[a, L.A_REACT]
        flank = A[a, L.A_FLANK]
        uphill = A[a, L.A_UPHILL]
        rough = A[a, L.A_ROUGH]
        nart = A[a, L.A_NART]
    ta = U[att, L.U_TROOP]
    td = U[dfd, L.U_TROOP]
    nf = R[L.R_NFACES]
    # step 1: cavalry charging through or into rough terrain is disordered before the melee
    if ta == L.CAV and (rough == 1 or U[dfd, L.U_TERR] != L.T_OPEN):
        S[att, L.S_DISO] = 1
    a_hits0 = S[att, L.S_HITS]
    a_diso0 = S[att, L.S_DISO]
    d_hits0 = S[dfd, L.S_HITS]
    d_diso0 = S[dfd, L.S_DISO]
    a_ret0 = S[att, L.S_RETREATS]
    # step 2: the defender's reaction
    r = pick_reaction(U, S, att, dfd, react, R)
    fire = r == L.R_FIRE
    if r == L.R_SQUARE:
        n = 4 - (1 if S[dfd, L.S_HITS] >= 2 else 0) - S[dfd, L.S_DISO]
        if square_test(st, n, SYM, nf) == 1:
            S[dfd, L.S_FORM] = L.F_SQUARE
            S[dfd, L.S_SQUARED] = 1
        fire = R[L.R_SQ_FIRE] == 1
    elif r == L.R_RETIRE:
        n = melee_dice(U, S, att, dfd, 1, order, supp, uphill, a_hits0, a_diso0, d_diso0, R)
        attack_roll(st, U, S, LD, LS, att, dfd, n, MODE_SABER, FM_IGNORE, R, HIT, FLAG, DC)
        if S[dfd, L.S_REMOVED] == 0:
            S[dfd, L.S_RETIRED] = 1
            if td == L.ART:
                S[dfd, L.S_FORM] = L.F_LIMBERED
        return 1
    if fire:
        shoot(st, U, S, LD, LS, dfd, att, 0, 0, 0, 0, 0, 1, R, HIT, FLAG, FP, DC)
    for k in range(nart):
        shoot(
            st,
            U,
            S,
            LD,
            LS,
            A[a, L.A_ART + k],
            att,
            A[a, L.A_ARTB + k],
            0,
            0,
            0,
            0,
            1,
            R,
            HIT,
            FLAG,
            FP,
            DC,
        )
    if S[att, L.S_REMOVED] == 1 or S[att, L.S_RETREATS] != a_ret0:
        return 0
    if S[att, L.S_DISO] == 1 and a_diso0 == 0:  # disordered by the reaction: retire 3"
        S[att, L.S_FELLBACK] = 1
        return 0
    if R[L.R_STATE_BEFORE] == 0:
        a_hits0 = S[att, L.S_HITS]
        a_diso0 = S[att, L.S_DISO]
    # steps 3-4 (a counter-charge changes who strikes first)
    if r == L.R_COUNTER:
        S[att, L.S_MELEED] = 1
        if R[L.R_CC_SIMUL] == 1:
            na = melee_dice(U, S, att, dfd, 1, order, supp, uphill, a_hits0, a_diso0, d_diso0, R)
            nd = melee_dice(
                U,
                S,
                dfd,
                att,
                1,
                0,
                0,
                0,
                d_hits0 if R[L.R_STATE_BEFORE] == 1 else S[dfd, L.S_HITS],
                d_diso0,
                a_diso0,
                R,
            )
            DC[U[att, L.U_SIDE]] += na
            DC[U[dfd, L.U_SIDE]] += nd
            ha, fa = roll_battle(st, na, MODE_MELEE, td, HIT, FLAG, nf)
            hd, fd = roll_battle(st, nd, MODE_MELEE, ta, HIT, FLAG, nf)
            S[dfd, L.S_HITS_ROLLED] += ha
            S[dfd, L.S_FLAGS_ROLLED] += fa
            S[att, L.S_HITS_ROLLED] += hd
            S[att, L.S_FLAGS_ROLLED] += fd
            d_ret = S[dfd, L.S_RETREATS]
            resolve(U, S, LD, LS, dfd, ha, fa, FM_NORMAL, R)
            resolve(U, S, LD, LS, att, hd, fd, FM_NORMAL, R)
            vac = 1 if (S[dfd, L.S_REMOVED] == 1 or S[dfd, L.S_RETREATS] != d_ret) else 0
            if vac == 0 and S[att, L.S_REMOVED] == 0 and S[att, L.S_RETREATS] == a_ret0:
                S[att, L.S_FELLBACK] = 1
            disorder(U, S, LD, LS, dfd)
            return vac
        # the counter-charging cavalry strikes first; the charger battles back
        d_h = d_hits0 if R[L.R_STATE_BEFORE] == 1 else S[dfd, L.S_HITS]
        nd = melee_dice(U, S, dfd, att, 1, 0, 0, 0, d_h, d_diso0, a_diso0, R)
        attack_roll(st, U, S, LD, LS, dfd, att, nd, MODE_MELEE, FM_NORMAL, R, HIT, FLAG, DC)
        if S[att, L.S_REMOVED] == 0 and S[att, L.S_RETREATS] == a_ret0:
            a_h = a_hits0 if R[L.R_STATE_BEFORE] == 1 else S[att, L.S_HITS]
            a_d = a_diso0 if R[L.R_STATE_BEFORE] == 1 else S[att, L.S_DISO]
            bb = supp if R[L.R_BB_BONUS] == 1 else 0
            na = melee_dice(U, S, att, dfd, 0, 0, bb, 0, a_h, a_d, S[dfd, L.S_DISO], R)
            attack_roll(st, U, S, LD, LS, att, dfd, na, MODE_MELEE, FM_NORMAL, R, HIT, FLAG, DC)
        disorder(U, S, LD, LS, dfd)
        return 0
    na = melee_dice(U, S, att, dfd, 1, order, supp, uphill, a_hits0, a_diso0, S[dfd, L.S_DISO], R)
    mode = (
        MODE_SABER
        if (ta == L.CAV and S[dfd, L.S_FORM] == L.F_SQUARE and td == L.INF)
        else MODE_MELEE
    )
    S[att, L.S_MELEED] = 1
    d_ret0 = S[dfd, L.S_RETREATS]
    attack_roll(st, U, S, LD, LS, att, dfd, na, mode, FM_NORMAL, R, HIT, FLAG, DC)
    vac = 1 if (S[dfd, L.S_REMOVED] == 1 or S[dfd, L.S_RETREATS] != d_ret0) else 0
    # step 5: battle back
    if vac == 0 and (td == L.INF or td == L.CAV) and flank == 0:
        if R[L.R_STATE_BEFORE] == 1:
            d_h = d_hits0
            d_d = d_diso0
        else:
            d_h = S[dfd, L.S_HITS]
            d_d = S[dfd, L.S_DISO]
        bb = dsupp if R[L.R_BB_BONUS] == 1 else 0
        nd = melee_dice(U, S, dfd, att, 0, 0, bb, 0, d_h, d_d, S[att, L.S_DISO], R)
        fm = FM_MIN_ONE if (S[dfd, L.S_FORM] == L.F_SQUARE and ta == L.CAV) else FM_NORMAL
        a_ret1 = S[att, L.S_RETREATS]
        attack_roll(st, U, S, LD, LS, dfd, att, nd, MODE_MELEE, fm, R, HIT, FLAG, DC)
        if S[att, L.S_REMOVED] == 0 and S[att, L.S_RETREATS] == a_ret1:
            S[att, L.S_FELLBACK] = 1  # still adjacent: attacker and supports retire 3"
    if td == L.CAV:
        disorder(U, S, LD, LS, dfd)  # step 7 for the defending cavalry
    return vac


@jit
def trial(st, U, S, LD, LS, A, R, HIT, FLAG, SYM, FP, DC):
    """One trial: every action of ``A`` in order from the starting state."""
    nu = U.shape[0]
    for u in range(nu):
        for c in range(L.S_NCOLS):
            S[u, c] = 0
        S[u, L.S_HITS] = U[u, L.U_HITS]
        S[u, L.S_DISO] = U[u, L.U_DISO]
        S[u, L.S_FORM] = U[u, L.U_FORM]
        S[u, L.S_MARK] = U[u, L.U_MARK]
    for ld in range(LD.shape[0]):
        LS[ld, L.LS_HITS] = LD[ld, L.LD_HITS]
        LS[ld, L.LS_REMOVED] = 1 if LD[ld, L.LD_HITS] >= L.LEADER_STRENGTH else 0
        LS[ld, L.LS_LOST] = 0
    for k in range(3):
        DC[k] = 0  # DC[3] (the reported action) is set by the caller
    for a in range(A.shape[0]):
        actor = A[a, L.A_ACTOR]
        target = A[a, L.A_TARGET]
        if A[a, L.A_KIND] == 0:
            shoot(
                st,
                U,
                S,
                LD,
                LS,
                actor,
                target,
                A[a, L.A_BAND],
                A[a, L.A_ORDER],
                A[a, L.A_SUPP],
                A[a, L.A_ENFILADE],
                A[a, L.A_OBSCURED],
                0,
                R,
                HIT,
                FLAG,
                FP,
                DC,
            )
            continue
        if S[actor, L.S_REMOVED] == 1 or S[actor, L.S_HITS] >= U[actor, L.U_STR]:
            continue
        if S[actor, L.S_DISO] == 1 or S[target, L.S_REMOVED] == 1:
            continue  # a disordered unit may not initiate melee
        vac = melee(st, U, S, LD, LS, A, a, actor, target, 0, R, HIT, FLAG, SYM, FP, DC)
        fu = A[a, L.A_FU]
        if (
            vac == 1
            and fu >= 0
            and U[actor, L.U_TROOP] == L.CAV
            and S[actor, L.S_REMOVED] == 0
            and S[actor, L.S_HITS] < U[actor, L.U_STR]
            and (S[actor, L.S_DISO] == 0 or R[L.R_DISO_FOLLOW] == 1)
            and S[fu, L.S_REMOVED] == 0
        ):
            if a == DC[3]:
                DC[2] = 1  # the reported follow-up was made
            melee(st, U, S, LD, LS, A, a, actor, fu, 1, R, HIT, FLAG, SYM, FP, DC)
        if U[actor, L.U_TROOP] == L.CAV:
            disorder(U, S, LD, LS, actor)  # step 7


@jit
def record(U, S, LS, F, DC, res):
    """Per-trial statistics ``res[ST_*]`` from the final state of the focus units."""
    for k in range(L.N_STATS):
        res[k] = 0
    res[0] = DC[0]
    res[1] = DC[1]
    for side in range(2):
        u = F[L.F_ATT] if side == 0 else F[L.F_DEF]
        removed = S[u, L.S_REMOVED]
        atmax = 1 if (removed == 0 and S[u, L.S_HITS] >= U[u, L.U_STR]) else 0
        if side == 1:
            res[2] = S[u, L.S_HITS_ROLLED]
            res[3] = S[u, L.S_FLAGS_ROLLED]
            res[6] = min(S[u, L.S_HITS], U[u, L.U_STR])
            res[8] = S[u, L.S_RETREAT_HM]
            res[10] = 1 if S[u, L.S_RETREATS] > 0 else 0
            res[11] = S[u, L.S_DISO] if removed == 0 else 0
            res[12] = removed
            res[13] = atmax
            res[14] = 1 if (removed == 1 or atmax == 1) else 0
            res[15] = S[u, L.S_RETIRED]
            res[16] = S[u, L.S_SQUARED]
        else:
            res[4] = S[u, L.S_HITS_ROLLED]
            res[5] = S[u, L.S_FLAGS_ROLLED]
            res[7] = min(S[u, L.S_HITS], U[u, L.U_STR])
            res[9] = S[u, L.S_RETREAT_HM]
            res[17] = 1 if S[u, L.S_RETREATS] > 0 else 0
            res[18] = S[u, L.S_DISO] if removed == 0 else 0
            res[19] = removed
            res[20] = atmax
            res[21] = S[u, L.S_FELLBACK]
            res[22] = S[u, L.S_MELEED]
    res[23] = DC[2]
    t2 = F[L.F_T2]
    if t2 >= 0:
        res[24] = S[t2, L.S_HITS_ROLLED]
        res[25] = 1 if S[t2, L.S_RETREATS] > 0 else 0
        res[26] = S[t2, L.S_REMOVED]
    ld = F[L.F_DEF_LDR]
    if ld >= 0:
        res[27] = min(LS[ld, L.LS_HITS], L.LEADER_STRENGTH)
        res[28] = LS[ld, L.LS_REMOVED]
        res[29] = LS[ld, L.LS_LOST]
    ld = F[L.F_ATT_LDR]
    if ld >= 0:
        res[30] = min(LS[ld, L.LS_HITS], L.LEADER_STRENGTH)
        res[31] = LS[ld, L.LS_REMOVED]
        res[32] = LS[ld, L.LS_LOST]
    if F[L.F_DEF_ARMY] >= 0:
        res[33] = min(LS[F[L.F_DEF_ARMY], L.LS_HITS], L.LEADER_STRENGTH)
    if F[L.F_ATT_ARMY] >= 0:
        res[34] = min(LS[F[L.F_ATT_ARMY], L.LS_HITS], L.LEADER_STRENGTH)
    for u in range(U.shape[0]):
        if S[u, L.S_REMOVED] == 1:
            res[35 if U[u, L.U_SIDE] == 1 else 36] += 1


@jit
def run_chunk(st, n, out, U, LD, A, R, HIT, FLAG, SYM, FP, F, slots):
    """``n`` trials histogrammed into ``out[slots[s], value]`` (values clamped to the bins)."""
    S = np.zeros((U.shape[0], L.S_NCOLS), dtype=np.int64)
    LS = np.zeros((max(LD.shape[0], 1), 3), dtype=np.int64)
    DC = np.zeros(4, dtype=np.int64)
    res = np.zeros(L.N_STATS, dtype=np.int64)
    top = out.shape[1] - 1
    for _ in range(n):
        DC[3] = F[L.F_FU_ACTION]
        trial(st, U, S, LD, LS, A, R, HIT, FLAG, SYM, FP, DC)
        record(U, S, LS, F, DC, res)
        for s in range(L.N_STATS):
            row = slots[s]
            if row >= 0:
                out[row, min(res[s], top)] += 1


@jit_parallel
def run_vom_kriege(seeds, ntrials, out, U, LD, A, R, HIT, FLAG, SYM, FP, F, slots):
    """Chunk driver (engine contract): one serial :func:`run_chunk` per chunk."""
    for c in prange(seeds.shape[0]):
        run_chunk(
            new_state(seeds[c]), ntrials[c], out[c], U, LD, A, R, HIT, FLAG, SYM, FP, F, slots
        )
