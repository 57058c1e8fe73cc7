"""Numba kernels for Vom Kriege: battle dice, the form-square test, a roll's hits then
retreats, removal, and the leader cascade (a leader's hits, a leader contacted in melee).
Used by :mod:`.kernel` (the combat sequence); layouts in :mod:`.layout`."""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_inner, jit_noalloc
from oddslab._kernels.rng import randint
from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.adjust import melee_dice_vs

FM_NORMAL = np.int64(0)  # flags retreat (squares: 1 hit per flag)
FM_IGNORE = np.int64(1)  # flags have no effect
# a square battling back against cavalry (switch square_battle_back, codes SQ_BB_* + 2):
FM_MIN_ONE = np.int64(2)  # at least half a move of retreat (max(flags, 1) half moves)
FM_ONE = np.int64(3)  # exactly half a move, whatever the flags
FM_PLUS_ONE = np.int64(4)  # half a move more than the flags give
FULL_MOVE = np.int64(2)  # half moves of the retreat at maximum hits
# melee() results: the defender's position was vacated by a retreat/removal, or by a retire
VAC_RETREAT = 1
VAC_RETIRE = 2
LEADER = np.int64(L.LEADER)  # melee_dice_vs: the opponent is a leader
FORM_LINE = np.int64(L.F_LINE)
OPEN = np.int64(L.T_OPEN)
MODE_SHOOT = np.int64(0)
MODE_MELEE = np.int64(1)
MODE_SABER = np.int64(2)
# call-site constants as np.int64: a bare 0 or 1 argument would compile an extra
# Literal[int] specialisation of the callee
NO = np.int64(0)
YES = np.int64(1)


# -- dice --------------------------------------------------------------------------------------
@jit_inner(ints="f h")
def roll_battle(st, n, mode, troop, T):
    """Roll ``n`` battle dice against a target of ``troop``; return (hits, flags)."""
    nf = T[0, L.R_NFACES]
    hrow = T[0, L.R_OHIT] + 3 * mode + troop
    frow = T[0, L.R_OFLAG]
    h = 0
    f = 0
    for _ in range(n):
        face = randint(st, nf)
        h += T[hrow, face]
        f += T[frow, face]
    return h, f


@jit_inner(ints="ok")
def square_test(st, n, T):
    """Form-square test: ``n`` command dice, success (1) if any shows an infantry symbol."""
    ok = 0
    for _ in range(n):
        if T[T[0, L.R_OSYM], randint(st, T[0, L.R_NFACES])] == L.SYM_INF:
            ok = 1
    return ok


# -- hits, retreats, removal, leaders ----------------------------------------------------------
@jit_inner
def hit_leader(T, W, ldr, n):
    """Leader ``ldr`` takes ``n`` hits; at 3 "the leader and all its units are removed from
    play and the Army leader suffers 1 hit" (3 hits: removed too)."""
    row = T[0, L.R_WLS] + ldr
    if n <= 0 or W[row, L.LS_REMOVED] == 1:
        return
    W[row, L.LS_HITS] = min(W[row, L.LS_HITS] + n, L.LEADER_STRENGTH)
    if W[row, L.LS_HITS] >= L.LEADER_STRENGTH:
        W[row, L.LS_REMOVED] = 1
        W[row, L.LS_LOST] = T[T[0, L.R_OLD] + ldr, L.LD_UNITS]
        for v in range(T[0, L.R_NU]):
            if T[1 + v, L.U_LEADER] == ldr:
                W[v, L.S_REMOVED] = 1
        army = T[T[0, L.R_OLD] + ldr, L.LD_ARMY]
        if army >= 0 and W[T[0, L.R_WLS] + army, L.LS_REMOVED] == 0:
            W[T[0, L.R_WLS] + army, L.LS_HITS] += 1
            if W[T[0, L.R_WLS] + army, L.LS_HITS] >= L.LEADER_STRENGTH:
                W[T[0, L.R_WLS] + army, L.LS_REMOVED] = 1


@jit_inner
def remove_unit(T, W, u):
    """Remove ``u``; its leader takes a hit (3 hits: leader and command gone, army leader hit)."""
    if W[u, L.S_REMOVED] == 1:
        return
    W[u, L.S_REMOVED] = 1
    ldr = T[1 + u, L.U_LEADER]
    if ldr < 0 or W[T[0, L.R_WLS] + ldr, L.LS_REMOVED] == 1:
        return
    W[T[0, L.R_WLS] + ldr, L.LS_LOST] += 1
    hit_leader(T, W, ldr, YES)


@jit_inner
def contact_leader(st, T, W, att, ldr, terr, order, supp, uphill, hits, diso):
    """``att`` contacts leader ``ldr`` (standing in terrain ``terr``), who "MUST retire": the
    attacker rolls its melee dice (from its state ``hits``/``diso``) and "Only a saber will
    score a hit" (Retire step 1); the hits may remove the leader and its command; a leader
    still standing retires (it is no longer with any unit)."""
    n = melee_dice_vs(T, W, att, LEADER, FORM_LINE, terr, YES, order, supp, uphill, hits, diso, NO)
    row = T[0, L.R_WLS] + ldr
    W[T[0, L.R_WDC], T[1 + att, L.U_SIDE]] += n
    h, _ = roll_battle(st, n, MODE_SABER, NO, T)
    W[row, L.LS_ROLLED] += h
    hit_leader(T, W, ldr, h)
    if W[row, L.LS_REMOVED] == 0:
        W[row, L.LS_RETIRED] = 1


@jit_noalloc
def disorder(T, W, u):
    """Disorder ``u``; a unit already at maximum hits that is newly disordered is removed."""
    if W[u, L.S_REMOVED] == 1 or W[u, L.S_DISO] == 1:
        return
    if W[u, L.S_HITS] >= T[1 + u, L.U_STR]:
        remove_unit(T, W, u)
    else:
        W[u, L.S_DISO] = 1


@jit_inner
def retreat(T, W, t, hm):
    """``t`` retreats ``hm`` half moves and is disordered; a battery limbers ("Artillery must
    limber when retreating"), so it cannot shoot again until it unlimbers."""
    W[t, L.S_RETREAT_HM] += hm
    W[t, L.S_RETREATS] += 1
    W[t, L.S_DISO] = 1
    if T[1 + t, L.U_TROOP] == L.ART:
        W[t, L.S_FORM] = L.F_LIMBERED


@jit_noalloc(ints="nf reached")
def resolve(T, W, t, hits, flags, fmode):
    """Apply a roll's ``hits`` then its ``flags`` (retreats) to unit ``t``."""
    strn = T[1 + t, L.U_STR]
    absorb = T[0, L.R_ABSORB]
    square = W[t, L.S_FORM] == L.F_SQUARE
    reached = 0
    n = hits
    if square and fmode != FM_IGNORE:
        n += flags  # infantry in square: 1 hit per flag instead of a retreat
    for _ in range(n):
        if W[t, L.S_REMOVED] == 1:
            return
        if W[t, L.S_HITS] >= strn:
            if reached == 1 and absorb == 1:
                break
            remove_unit(T, W, t)
            return
        W[t, L.S_HITS] += 1
        if W[t, L.S_HITS] >= strn:
            reached = 1
            # maximum hits: retreat 1 move and disorder (blocked: a hit at maximum = removed)
            if T[1 + t, L.U_BLOCKED] == 1:
                remove_unit(T, W, t)
                return
            retreat(T, W, t, FULL_MOVE)
    if W[t, L.S_REMOVED] == 1:
        return
    nf = 0 if (square or fmode == FM_IGNORE) else flags
    if fmode == FM_MIN_ONE and nf < 1:
        nf = 1
    elif fmode == FM_ONE:
        nf = 1
    elif fmode == FM_PLUS_ONE:
        nf += 1
    if nf <= 0:
        return
    if W[t, L.S_HITS] >= strn:
        if reached == 1 and absorb == 1:
            return
        remove_unit(T, W, t)
        return
    if T[1 + t, L.U_BLOCKED] == 1:  # retreat blocked: 1 hit instead, no move
        W[t, L.S_HITS] += 1
        if W[t, L.S_HITS] >= strn:
            remove_unit(T, W, t)
        elif T[0, L.R_BLOCKED_DISO] == 1:
            W[t, L.S_DISO] = 1  # switch: forced to retreat is enough to disorder
        return
    retreat(T, W, t, nf)
