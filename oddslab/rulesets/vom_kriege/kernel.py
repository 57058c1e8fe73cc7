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
from oddslab.rulesets.vom_kriege.layout import (
    A_ACTOR,
    A_ART,
    A_ARTB,
    A_BAND,
    A_DSUPP,
    A_ENFILADE,
    A_FLANK,
    A_FU,
    A_FU_FLANK,
    A_FU_REACT,
    A_FU_SUPP,
    A_KIND,
    A_NART,
    A_OBSCURED,
    A_ORDER,
    A_REACT,
    A_ROUGH,
    A_SUPP,
    A_TARGET,
    A_UPHILL,
    ART,
    CAV,
    F_2RANK,
    F_ATT,
    F_ATT_ARMY,
    F_ATT_LDR,
    F_COLUMN,
    F_DEF,
    F_DEF_ARMY,
    F_DEF_LDR,
    F_FU_ACTION,
    F_LIMBERED,
    F_LINE,
    F_MARCH,
    F_OPEN,
    F_SQUARE,
    F_T2,
    F_UNLIMBERED,
    INF,
    K_HEAVY_CAV,
    K_LANCERS,
    LD_ARMY,
    LD_HITS,
    LD_UNITS,
    LEADER_STRENGTH,
    LS_HITS,
    LS_LOST,
    LS_REMOVED,
    N_STATS,
    Q_CONSCRIPT,
    Q_ELITE,
    Q_IRREGULAR,
    R_ABSORB,
    R_ART_TARGET,
    R_AUTO,
    R_BB_BONUS,
    R_CC_SIMUL,
    R_COUNTER,
    R_DF_IGNORE,
    R_DISO_FOLLOW,
    R_FIRE,
    R_HALVE_BEFORE,
    R_MIN_DICE,
    R_NFACES,
    R_NONE,
    R_OR_STACK,
    R_RETIRE,
    R_RETIRE_VS_CAV,
    R_SK_ONE,
    R_SQ_FIRE,
    R_SQUARE,
    R_STATE_BEFORE,
    S_DISO,
    S_FELLBACK,
    S_FLAGS_ROLLED,
    S_FORM,
    S_HITS,
    S_HITS_ROLLED,
    S_MARK,
    S_MELEED,
    S_NCOLS,
    S_REMOVED,
    S_RETIRED,
    S_RETREAT_HM,
    S_RETREATS,
    S_SQUARED,
    SYM_INF,
    T_BUA,
    T_FIELDWORKS,
    T_OPEN,
    T_WOODS,
    U_ARTROW,
    U_BLOCKED,
    U_DISO,
    U_FORM,
    U_HITS,
    U_KIND,
    U_LEADER,
    U_MARK,
    U_QUAL,
    U_SIDE,
    U_SK,
    U_STR,
    U_TERR,
    U_TROOP,
)

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
        if SYM[randint(st, nf)] == SYM_INF:
            ok = 1
    return ok


# -- dice counts -------------------------------------------------------------------------------
@jit
def shoot_dice(U, S, u, t, band, order, supp, enfilade, obscured, FP, R):
    """Battle dice for ``u`` shooting ``t`` at range band ``band``; (dice, marker).

    ``dice`` is -1 when ``u`` cannot shoot at that range. ``marker`` is 0 for skirmish fire
    (no shooting marker), else 1. Square and skirmish fire take no adjustments.
    """
    troop = U[u, U_TROOP]
    form = S[u, S_FORM]
    terr = U[u, U_TERR]
    if troop == CAV:
        return -1, 0
    if troop == ART:
        if form != F_UNLIMBERED:
            return -1, 0
        base = FP[U[u, U_ARTROW], band]
    else:
        if form == F_MARCH:
            return -1, 0
        if band == 0:
            if form == F_SQUARE:
                return 1, 1
            if terr == T_WOODS or terr == T_BUA:
                base = 2
            elif form == F_LINE or form == F_2RANK:
                base = 4
            else:
                base = 2
        elif band == 1:
            if U[u, U_SK] == 0 or form == F_SQUARE or terr == T_BUA:
                return -1, 0
            if terr == T_WOODS and form != F_OPEN:
                return -1, 0
            if R[R_SK_ONE] == 1:
                return 1, 0
            return (2 if form == F_OPEN else 1), 0
        else:
            return -1, 0
    stack = R[R_OR_STACK]
    adj = order + supp
    if troop == INF and form == F_2RANK and band == 0:
        adj += 1
    art_rows = troop == ART or R[R_ART_TARGET] == 1
    tf = S[t, S_FORM]
    tt = U[t, U_TERR]
    if art_rows and (enfilade == 1 or tf == F_SQUARE or tf == F_COLUMN or tf == F_MARCH):
        adj += 1
    if tt == T_WOODS:
        adj -= 1
    elif tt == T_BUA or tt == T_FIELDWORKS:
        if R[R_ART_TARGET] == 1:
            ttroop = U[t, U_TROOP]
            adj -= 2 if ttroop == INF else (1 if ttroop == ART else 0)
        else:
            adj -= 1 if troop == ART else 2
    if art_rows and band == 1 and tf == F_OPEN:
        adj -= 1
    shaken = 1 if S[u, S_HITS] == U[u, U_STR] - 1 else 0
    diso = S[u, S_DISO]
    if stack == 1:
        adj -= shaken + 2 * diso
    elif diso == 1:
        adj -= 2
    elif shaken == 1:
        adj -= 1
    halvings = S[u, S_MARK] + obscured
    if R[R_HALVE_BEFORE] == 1:
        fp = base
        for _ in range(halvings):
            fp = max(fp // 2, 1)
        n = fp + adj
    else:
        n = base + adj
        for _ in range(halvings):
            if n >= 1:
                n = max(n // 2, 1)
    n = max(n, R[R_MIN_DICE])
    return max(n, 0), 1


@jit
def melee_dice(U, S, u, opp, attacking, order, supp, uphill, hits, diso, opp_diso, R):
    """Battle dice for ``u`` in melee against ``opp`` (step 3), from the state ``hits``/``diso``.

    ``attacking`` is 1 for the unit making the attack (lancers' charge, terrain and uphill
    apply), 0 for a battle back.
    """
    troop = U[u, U_TROOP]
    form = S[u, S_FORM]
    if attacking == 1 and troop == CAV and S[opp, S_FORM] == F_SQUARE:
        return 1
    base = 1 if (form == F_SQUARE or form == F_MARCH) else U[u, U_STR]
    adj = order + supp
    q = U[u, U_QUAL]
    if q == Q_ELITE:
        adj += 1
    elif q == Q_CONSCRIPT:
        adj -= 1
    elif q == Q_IRREGULAR and opp_diso == 0:
        adj -= 2
    if troop == CAV and U[u, U_KIND] == K_HEAVY_CAV:
        adj += 1
    if attacking == 1 and troop == CAV and U[u, U_KIND] == K_LANCERS and U[opp, U_TROOP] == INF:
        adj += 1
    stack = R[R_OR_STACK]
    shaken = 1 if hits == U[u, U_STR] - 1 else 0
    dis_open = 1 if (diso == 1 or form == F_OPEN) else 0
    if stack == 1:
        adj -= shaken + 2 * dis_open
    elif dis_open == 1:
        adj -= 2
    elif shaken == 1:
        adj -= 1
    ot = U[opp, U_TERR]
    w = 1 if ot == T_WOODS else 0
    b = 1 if (ot == T_BUA or ot == T_FIELDWORKS) else 0
    up = uphill if attacking == 1 else 0
    if stack == 1:
        adj -= w + up + 2 * b
    elif b == 1:
        adj -= 2
    elif w == 1 or up == 1:
        adj -= 1
    n = max(base + adj, R[R_MIN_DICE])
    return max(n, 0)


# -- hits, retreats, removal, leaders ----------------------------------------------------------
@jit
def remove_unit(U, S, LD, LS, u):
    """Remove ``u``; its leader takes a hit (3 hits: leader and command gone, army leader hit)."""
    if S[u, S_REMOVED] == 1:
        return
    S[u, S_REMOVED] = 1
    ldr = U[u, U_LEADER]
    if ldr < 0 or LS[ldr, LS_REMOVED] == 1:
        return
    LS[ldr, LS_LOST] += 1
    LS[ldr, LS_HITS] += 1
    if LS[ldr, LS_HITS] >= LEADER_STRENGTH:
        LS[ldr, LS_REMOVED] = 1
        LS[ldr, LS_LOST] = LD[ldr, LD_UNITS]
        for v in range(U.shape[0]):
            if U[v, U_LEADER] == ldr:
                S[v, S_REMOVED] = 1
        army = LD[ldr, LD_ARMY]
        if army >= 0 and LS[army, LS_REMOVED] == 0:
            LS[army, LS_HITS] += 1
            if LS[army, LS_HITS] >= LEADER_STRENGTH:
                LS[army, LS_REMOVED] = 1


@jit
def disorder(U, S, LD, LS, u):
    """Disorder ``u``; a unit already at maximum hits that is newly disordered is removed."""
    if S[u, S_REMOVED] == 1 or S[u, S_DISO] == 1:
        return
    if S[u, S_HITS] >= U[u, U_STR]:
        remove_unit(U, S, LD, LS, u)
    else:
        S[u, S_DISO] = 1


@jit
def resolve(U, S, LD, LS, t, hits, flags, fmode, R):
    """Apply a roll's ``hits`` then its ``flags`` (retreats) to unit ``t``."""
    strn = U[t, U_STR]
    absorb = R[R_ABSORB]
    square = S[t, S_FORM] == F_SQUARE
    reached = 0
    n = hits
    if square and fmode != FM_IGNORE:
        n += flags  # infantry in square: 1 hit per flag instead of a retreat
    for _ in range(n):
        if S[t, S_REMOVED] == 1:
            return
        if S[t, S_HITS] >= strn:
            if reached == 1 and absorb == 1:
                break
            remove_unit(U, S, LD, LS, t)
            return
        S[t, S_HITS] += 1
        if S[t, S_HITS] >= strn:
            reached = 1
            # maximum hits: retreat 1 move and disorder (blocked: a hit at maximum = removed)
            if U[t, U_BLOCKED] == 1:
                remove_unit(U, S, LD, LS, t)
                return
            S[t, S_RETREAT_HM] += 2
            S[t, S_RETREATS] += 1
            S[t, S_DISO] = 1
    if S[t, S_REMOVED] == 1:
        return
    nf = 0 if (square or fmode == FM_IGNORE) else flags
    if fmode == FM_MIN_ONE and nf < 1:
        nf = 1
    if nf <= 0:
        return
    if S[t, S_HITS] >= strn:
        if reached == 1 and absorb == 1:
            return
        remove_unit(U, S, LD, LS, t)
        return
    if U[t, U_BLOCKED] == 1:  # retreat blocked: 1 hit instead, no move
        S[t, S_HITS] += 1
        if S[t, S_HITS] >= strn:
            remove_unit(U, S, LD, LS, t)
        return
    S[t, S_RETREAT_HM] += nf
    S[t, S_RETREATS] += 1
    S[t, S_DISO] = 1


@jit
def shoot(st, U, S, LD, LS, u, t, band, order, supp, enf, obs, df, R, HIT, FLAG, FP, DC):
    """Unit ``u`` shoots ``t``; ``df`` = 1 for defensive fire (flags may be ignored)."""
    if S[u, S_REMOVED] == 1 or S[u, S_HITS] >= U[u, U_STR] or S[t, S_REMOVED] == 1:
        return
    n, marker = shoot_dice(U, S, u, t, band, order, supp, enf, obs, FP, R)
    if n <= 0:
        return
    DC[U[u, U_SIDE]] += n
    h, f = roll_battle(st, n, MODE_SHOOT, U[t, U_TROOP], HIT, FLAG, R[R_NFACES])
    S[t, S_HITS_ROLLED] += h
    S[t, S_FLAGS_ROLLED] += f
    resolve(U, S, LD, LS, t, h, f, FM_IGNORE if (df == 1 and R[R_DF_IGNORE] == 1) else FM_NORMAL, R)
    if marker == 1:
        S[u, S_MARK] = 1


@jit
def attack_roll(st, U, S, LD, LS, u, t, n, mode, fmode, R, HIT, FLAG, DC):
    """``u`` rolls ``n`` melee dice against ``t`` and the result is applied (step 4)."""
    DC[U[u, U_SIDE]] += n
    h, f = roll_battle(st, n, mode, U[t, U_TROOP], HIT, FLAG, R[R_NFACES])
    S[t, S_HITS_ROLLED] += h
    S[t, S_FLAGS_ROLLED] += f
    resolve(U, S, LD, LS, t, h, f if fmode != FM_IGNORE else 0, fmode, R)


@jit
def pick_reaction(U, S, att, dfd, react, R):
    """The defender's reaction after the policy and eligibility checks (codes ``R_*``)."""
    ta = U[att, U_TROOP]
    td = U[dfd, U_TROOP]
    form = S[dfd, S_FORM]
    if S[dfd, S_HITS] >= U[dfd, U_STR]:
        return R_NONE
    r = react
    if r == R_AUTO:
        if td == INF:
            r = R_SQUARE if (ta == CAV and U[dfd, U_TERR] == T_OPEN and form != F_SQUARE) else R_FIRE
        elif td == ART:
            r = R_FIRE
        else:
            r = R_COUNTER if ta == CAV else R_NONE
    if r == R_SQUARE:
        if td != INF or ta != CAV or U[dfd, U_TERR] != T_OPEN or form == F_SQUARE:
            return R_NONE
    elif r == R_RETIRE:
        if not (td == CAV or td == ART or form == F_OPEN):
            return R_NONE
        if ta != INF and R[R_RETIRE_VS_CAV] == 0:
            return R_NONE
    elif r == R_COUNTER:
        if td != CAV or ta != CAV or S[dfd, S_DISO] == 1:
            return R_NONE
    return r


@jit
def melee(st, U, S, LD, LS, A, a, att, dfd, follow, R, HIT, FLAG, SYM, FP, DC):
    """One melee of ``att`` on ``dfd`` (steps 1-5; the follow-up and cavalry disorder are the
    caller's). Action row ``a`` of ``A`` gives the situation; ``follow`` = 1 for a follow-up.
    Returns 1 if the defender's position was vacated (removed, retreated or retired).
    """
    if follow == 1:
        order = A[a, A_ORDER]
        supp = A[a, A_FU_SUPP]
        dsupp = 0
        react = A[a, A_FU_REACT]
        flank = A[a, A_FU_FLANK]
        uphill = 0
        rough = 0
        nart = 0
    else:
        order = A[a, A_ORDER]
        supp = A[a, A_SUPP]
        dsupp = A[a, A_DSUPP]
        react = A[a, A_REACT]
        flank = A[a, A_FLANK]
        uphill = A[a, A_UPHILL]
        rough = A[a, A_ROUGH]
        nart = A[a, A_NART]
    ta = U[att, U_TROOP]
    td = U[dfd, U_TROOP]
    nf = R[R_NFACES]
    # step 1: cavalry charging through or into rough terrain is disordered before the melee
    if ta == CAV and (rough == 1 or U[dfd, U_TERR] != T_OPEN):
        S[att, S_DISO] = 1
    a_hits0 = S[att, S_HITS]
    a_diso0 = S[att, S_DISO]
    d_hits0 = S[dfd, S_HITS]
    d_diso0 = S[dfd, S_DISO]
    a_ret0 = S[att, S_RETREATS]
    # step 2: the defender's reaction
    r = pick_reaction(U, S, att, dfd, react, R)
    fire = r == R_FIRE
    if r == R_SQUARE:
        n = 4 - (1 if S[dfd, S_HITS] >= 2 else 0) - S[dfd, S_DISO]
        if square_test(st, n, SYM, nf) == 1:
            S[dfd, S_FORM] = F_SQUARE
            S[dfd, S_SQUARED] = 1
        fire = R[R_SQ_FIRE] == 1
    elif r == R_RETIRE:
        n = melee_dice(U, S, att, dfd, 1, order, supp, uphill, a_hits0, a_diso0, d_diso0, R)
        attack_roll(st, U, S, LD, LS, att, dfd, n, MODE_SABER, FM_IGNORE, R, HIT, FLAG, DC)
        if S[dfd, S_REMOVED] == 0:
            S[dfd, S_RETIRED] = 1
            if td == ART:
                S[dfd, S_FORM] = F_LIMBERED
        return 1
    if fire:
        shoot(st, U, S, LD, LS, dfd, att, 0, 0, 0, 0, 0, 1, R, HIT, FLAG, FP, DC)
    for k in range(nart):
        shoot(st, U, S, LD, LS, A[a, A_ART + k], att, A[a, A_ARTB + k], 0, 0, 0, 0, 1,
              R, HIT, FLAG, FP, DC)  # fmt: skip
    if S[att, S_REMOVED] == 1 or S[att, S_RETREATS] != a_ret0:
        return 0
    if S[att, S_DISO] == 1 and a_diso0 == 0:  # disordered by the reaction: retire 3"
        S[att, S_FELLBACK] = 1
        return 0
    if R[R_STATE_BEFORE] == 0:
        a_hits0 = S[att, S_HITS]
        a_diso0 = S[att, S_DISO]
    # steps 3-4 (a counter-charge changes who strikes first)
    if r == R_COUNTER:
        S[att, S_MELEED] = 1
        if R[R_CC_SIMUL] == 1:
            na = melee_dice(U, S, att, dfd, 1, order, supp, uphill, a_hits0, a_diso0, d_diso0, R)
            nd = melee_dice(U, S, dfd, att, 1, 0, 0, 0, d_hits0 if R[R_STATE_BEFORE] == 1
                            else S[dfd, S_HITS], d_diso0, a_diso0, R)  # fmt: skip
            DC[U[att, U_SIDE]] += na
            DC[U[dfd, U_SIDE]] += nd
            ha, fa = roll_battle(st, na, MODE_MELEE, td, HIT, FLAG, nf)
            hd, fd = roll_battle(st, nd, MODE_MELEE, ta, HIT, FLAG, nf)
            S[dfd, S_HITS_ROLLED] += ha
            S[dfd, S_FLAGS_ROLLED] += fa
            S[att, S_HITS_ROLLED] += hd
            S[att, S_FLAGS_ROLLED] += fd
            d_ret = S[dfd, S_RETREATS]
            resolve(U, S, LD, LS, dfd, ha, fa, FM_NORMAL, R)
            resolve(U, S, LD, LS, att, hd, fd, FM_NORMAL, R)
            vac = 1 if (S[dfd, S_REMOVED] == 1 or S[dfd, S_RETREATS] != d_ret) else 0
            if vac == 0 and S[att, S_REMOVED] == 0 and S[att, S_RETREATS] == a_ret0:
                S[att, S_FELLBACK] = 1
            disorder(U, S, LD, LS, dfd)
            return vac
        # the counter-charging cavalry strikes first; the charger battles back
        d_h = d_hits0 if R[R_STATE_BEFORE] == 1 else S[dfd, S_HITS]
        nd = melee_dice(U, S, dfd, att, 1, 0, 0, 0, d_h, d_diso0, a_diso0, R)
        attack_roll(st, U, S, LD, LS, dfd, att, nd, MODE_MELEE, FM_NORMAL, R, HIT, FLAG, DC)
        if S[att, S_REMOVED] == 0 and S[att, S_RETREATS] == a_ret0:
            a_h = a_hits0 if R[R_STATE_BEFORE] == 1 else S[att, S_HITS]
            a_d = a_diso0 if R[R_STATE_BEFORE] == 1 else S[att, S_DISO]
            bb = supp if R[R_BB_BONUS] == 1 else 0
            na = melee_dice(U, S, att, dfd, 0, 0, bb, 0, a_h, a_d, S[dfd, S_DISO], R)
            attack_roll(st, U, S, LD, LS, att, dfd, na, MODE_MELEE, FM_NORMAL, R, HIT, FLAG, DC)
        disorder(U, S, LD, LS, dfd)
        return 0
    na = melee_dice(U, S, att, dfd, 1, order, supp, uphill, a_hits0, a_diso0, S[dfd, S_DISO], R)
    mode = MODE_SABER if (ta == CAV and S[dfd, S_FORM] == F_SQUARE and td == INF) else MODE_MELEE
    S[att, S_MELEED] = 1
    d_ret0 = S[dfd, S_RETREATS]
    attack_roll(st, U, S, LD, LS, att, dfd, na, mode, FM_NORMAL, R, HIT, FLAG, DC)
    vac = 1 if (S[dfd, S_REMOVED] == 1 or S[dfd, S_RETREATS] != d_ret0) else 0
    # step 5: battle back
    if vac == 0 and (td == INF or td == CAV) and flank == 0:
        if R[R_STATE_BEFORE] == 1:
            d_h = d_hits0
            d_d = d_diso0
        else:
            d_h = S[dfd, S_HITS]
            d_d = S[dfd, S_DISO]
        bb = dsupp if R[R_BB_BONUS] == 1 else 0
        nd = melee_dice(U, S, dfd, att, 0, 0, bb, 0, d_h, d_d, S[att, S_DISO], R)
        fm = FM_MIN_ONE if (S[dfd, S_FORM] == F_SQUARE and ta == CAV) else FM_NORMAL
        a_ret1 = S[att, S_RETREATS]
        attack_roll(st, U, S, LD, LS, dfd, att, nd, MODE_MELEE, fm, R, HIT, FLAG, DC)
        if S[att, S_REMOVED] == 0 and S[att, S_RETREATS] == a_ret1:
            S[att, S_FELLBACK] = 1  # still adjacent: attacker and supports retire 3"
    if td == CAV:
        disorder(U, S, LD, LS, dfd)  # step 7 for the defending cavalry
    return vac


@jit
def trial(st, U, S, LD, LS, A, R, HIT, FLAG, SYM, FP, DC):
    """One trial: every action of ``A`` in order from the starting state."""
    nu = U.shape[0]
    for u in range(nu):
        for c in range(S_NCOLS):
            S[u, c] = 0
        S[u, S_HITS] = U[u, U_HITS]
        S[u, S_DISO] = U[u, U_DISO]
        S[u, S_FORM] = U[u, U_FORM]
        S[u, S_MARK] = U[u, U_MARK]
    for ld in range(LD.shape[0]):
        LS[ld, LS_HITS] = LD[ld, LD_HITS]
        LS[ld, LS_REMOVED] = 1 if LD[ld, LD_HITS] >= LEADER_STRENGTH else 0
        LS[ld, LS_LOST] = 0
    for k in range(3):
        DC[k] = 0  # DC[3] (the reported action) is set by the caller
    for a in range(A.shape[0]):
        actor = A[a, A_ACTOR]
        target = A[a, A_TARGET]
        if A[a, A_KIND] == 0:
            shoot(st, U, S, LD, LS, actor, target, A[a, A_BAND], A[a, A_ORDER], A[a, A_SUPP],
                  A[a, A_ENFILADE], A[a, A_OBSCURED], 0, R, HIT, FLAG, FP, DC)  # fmt: skip
            continue
        if S[actor, S_REMOVED] == 1 or S[actor, S_HITS] >= U[actor, U_STR]:
            continue
        if S[actor, S_DISO] == 1 or S[target, S_REMOVED] == 1:
            continue  # a disordered unit may not initiate melee
        vac = melee(st, U, S, LD, LS, A, a, actor, target, 0, R, HIT, FLAG, SYM, FP, DC)
        fu = A[a, A_FU]
        if (
            vac == 1
            and fu >= 0
            and U[actor, U_TROOP] == CAV
            and S[actor, S_REMOVED] == 0
            and S[actor, S_HITS] < U[actor, U_STR]
            and (S[actor, S_DISO] == 0 or R[R_DISO_FOLLOW] == 1)
            and S[fu, S_REMOVED] == 0
        ):
            if a == DC[3]:
                DC[2] = 1  # the reported follow-up was made
            melee(st, U, S, LD, LS, A, a, actor, fu, 1, R, HIT, FLAG, SYM, FP, DC)
        if U[actor, U_TROOP] == CAV:
            disorder(U, S, LD, LS, actor)  # step 7


@jit
def record(U, S, LS, F, DC, res):
    """Per-trial statistics ``res[ST_*]`` from the final state of the focus units."""
    for k in range(N_STATS):
        res[k] = 0
    res[0] = DC[0]
    res[1] = DC[1]
    for side in range(2):
        u = F[F_ATT] if side == 0 else F[F_DEF]
        removed = S[u, S_REMOVED]
        atmax = 1 if (removed == 0 and S[u, S_HITS] >= U[u, U_STR]) else 0
        if side == 1:
            res[2] = S[u, S_HITS_ROLLED]
            res[3] = S[u, S_FLAGS_ROLLED]
            res[6] = min(S[u, S_HITS], U[u, U_STR])
            res[8] = S[u, S_RETREAT_HM]
            res[10] = 1 if S[u, S_RETREATS] > 0 else 0
            res[11] = S[u, S_DISO] if removed == 0 else 0
            res[12] = removed
            res[13] = atmax
            res[14] = 1 if (removed == 1 or atmax == 1) else 0
            res[15] = S[u, S_RETIRED]
            res[16] = S[u, S_SQUARED]
        else:
            res[4] = S[u, S_HITS_ROLLED]
            res[5] = S[u, S_FLAGS_ROLLED]
            res[7] = min(S[u, S_HITS], U[u, U_STR])
            res[9] = S[u, S_RETREAT_HM]
            res[17] = 1 if S[u, S_RETREATS] > 0 else 0
            res[18] = S[u, S_DISO] if removed == 0 else 0
            res[19] = removed
            res[20] = atmax
            res[21] = S[u, S_FELLBACK]
            res[22] = S[u, S_MELEED]
    res[23] = DC[2]
    t2 = F[F_T2]
    if t2 >= 0:
        res[24] = S[t2, S_HITS_ROLLED]
        res[25] = 1 if S[t2, S_RETREATS] > 0 else 0
        res[26] = S[t2, S_REMOVED]
    ld = F[F_DEF_LDR]
    if ld >= 0:
        res[27] = min(LS[ld, LS_HITS], LEADER_STRENGTH)
        res[28] = LS[ld, LS_REMOVED]
        res[29] = LS[ld, LS_LOST]
    ld = F[F_ATT_LDR]
    if ld >= 0:
        res[30] = min(LS[ld, LS_HITS], LEADER_STRENGTH)
        res[31] = LS[ld, LS_REMOVED]
        res[32] = LS[ld, LS_LOST]
    if F[F_DEF_ARMY] >= 0:
        res[33] = min(LS[F[F_DEF_ARMY], LS_HITS], LEADER_STRENGTH)
    if F[F_ATT_ARMY] >= 0:
        res[34] = min(LS[F[F_ATT_ARMY], LS_HITS], LEADER_STRENGTH)
    for u in range(U.shape[0]):
        if S[u, S_REMOVED] == 1:
            res[35 if U[u, U_SIDE] == 1 else 36] += 1


@jit
def run_chunk(st, n, out, U, LD, A, R, HIT, FLAG, SYM, FP, F, slots):
    """``n`` trials histogrammed into ``out[slots[s], value]`` (values clamped to the bins)."""
    S = np.zeros((U.shape[0], S_NCOLS), dtype=np.int64)
    LS = np.zeros((max(LD.shape[0], 1), 3), dtype=np.int64)
    DC = np.zeros(4, dtype=np.int64)
    res = np.zeros(N_STATS, dtype=np.int64)
    top = out.shape[1] - 1
    for _ in range(n):
        DC[3] = F[F_FU_ACTION]
        trial(st, U, S, LD, LS, A, R, HIT, FLAG, SYM, FP, DC)
        record(U, S, LS, F, DC, res)
        for s in range(N_STATS):
            row = slots[s]
            if row >= 0:
                out[row, min(res[s], top)] += 1


@jit_parallel
def run_vom_kriege(seeds, ntrials, out, U, LD, A, R, HIT, FLAG, SYM, FP, F, slots):
    """Chunk driver (engine contract): one serial :func:`run_chunk` per chunk."""
    for c in prange(seeds.shape[0]):
        run_chunk(new_state(seeds[c]), ntrials[c], out[c], U, LD, A, R, HIT, FLAG, SYM, FP, F,
                  slots)  # fmt: skip
