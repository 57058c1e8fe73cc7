"""Numba kernels for Vom Kriege combat: shooting, the melee sequence (steps 1-7), retreats and
the leader cascade (command dice: :mod:`.kernel_command`).

Everything static is packed into one ``int64`` table ``T`` (see :func:`.compile.pack`): row 0
holds the rule switches and the row offsets of the other sections, rows ``1..nu`` the units
(``U_*`` columns), then leaders (``LD_*``), actions (``A_*``), ``HIT[mode, troop, face]`` (mode 0
shooting, 1 melee, 2 sabers only; row ``3 * mode + troop``), ``FLAG[face]``, ``SYM[face]``,
the artillery fire points and the focus row (``F_*``). Per-trial state lives in ``W``: unit
rows (``S_*``), leader rows (``LS_*``) and a counter row (dice rolled by each side, the
follow-up flag). One packed table and one state array keep every call cheap (few array
arguments) and the compile small. One trial plays every action in order on a fresh copy of
the starting state. Every die is one :func:`oddslab._kernels.rng.randint` call with the number
of faces, so a trial draws exactly the dice a player would roll.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_inner, jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import randint, seed_state
from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.adjust import melee_dice, shoot_dice
from oddslab.rulesets.vom_kriege.record import record

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
def remove_unit(T, W, u):
    """Remove ``u``; its leader takes a hit (3 hits: leader and command gone, army leader hit)."""
    if W[u, L.S_REMOVED] == 1:
        return
    W[u, L.S_REMOVED] = 1
    ldr = T[1 + u, L.U_LEADER]
    if ldr < 0 or W[T[0, L.R_WLS] + ldr, L.LS_REMOVED] == 1:
        return
    W[T[0, L.R_WLS] + ldr, L.LS_LOST] += 1
    W[T[0, L.R_WLS] + ldr, L.LS_HITS] += 1
    if W[T[0, L.R_WLS] + ldr, L.LS_HITS] >= L.LEADER_STRENGTH:
        W[T[0, L.R_WLS] + ldr, L.LS_REMOVED] = 1
        W[T[0, L.R_WLS] + ldr, L.LS_LOST] = T[T[0, L.R_OLD] + ldr, L.LD_UNITS]
        for v in range(T[0, L.R_NU]):
            if T[1 + v, L.U_LEADER] == ldr:
                W[v, L.S_REMOVED] = 1
        army = T[T[0, L.R_OLD] + ldr, L.LD_ARMY]
        if army >= 0 and W[T[0, L.R_WLS] + army, L.LS_REMOVED] == 0:
            W[T[0, L.R_WLS] + army, L.LS_HITS] += 1
            if W[T[0, L.R_WLS] + army, L.LS_HITS] >= L.LEADER_STRENGTH:
                W[T[0, L.R_WLS] + army, L.LS_REMOVED] = 1


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


@jit_inner
def shoot(st, T, W, u, t, band, order, supp, enf, obs, df):
    """Unit ``u`` shoots ``t``; ``df`` = 1 for defensive fire (flags may be ignored)."""
    if W[u, L.S_REMOVED] == 1 or W[u, L.S_HITS] >= T[1 + u, L.U_STR] or W[t, L.S_REMOVED] == 1:
        return
    n, marker = shoot_dice(T, W, u, t, band, order, supp, enf, obs)
    if n <= 0:
        return
    W[T[0, L.R_WDC], T[1 + u, L.U_SIDE]] += n
    h, f = roll_battle(st, n, MODE_SHOOT, T[1 + t, L.U_TROOP], T)
    W[t, L.S_HITS_ROLLED] += h
    W[t, L.S_FLAGS_ROLLED] += f
    resolve(T, W, t, h, f, FM_IGNORE if (df == 1 and T[0, L.R_DF_IGNORE] == 1) else FM_NORMAL)
    if marker == 1:
        W[u, L.S_MARK] = 1


@jit_inner
def attack_roll(st, T, W, u, t, n, mode, fmode):
    """``u`` rolls ``n`` melee dice against ``t`` and the result is applied (step 4)."""
    W[T[0, L.R_WDC], T[1 + u, L.U_SIDE]] += n
    h, f = roll_battle(st, n, mode, T[1 + t, L.U_TROOP], T)
    W[t, L.S_HITS_ROLLED] += h
    W[t, L.S_FLAGS_ROLLED] += f
    resolve(T, W, t, h, f if fmode != FM_IGNORE else 0, fmode)


@jit_inner
def pick_reaction(T, W, att, dfd, react):
    """The defender's reaction after the policy and eligibility checks (codes ``R_*``)."""
    ta = T[1 + att, L.U_TROOP]
    td = T[1 + dfd, L.U_TROOP]
    form = W[dfd, L.S_FORM]
    if W[dfd, L.S_HITS] >= T[1 + dfd, L.U_STR]:
        return L.R_NONE
    r = react
    if r == L.R_AUTO:
        if td == L.INF:
            r = (
                L.R_SQUARE
                if (ta == L.CAV and T[1 + dfd, L.U_TERR] == L.T_OPEN and form != L.F_SQUARE)
                else L.R_FIRE
            )
        elif td == L.ART:
            r = L.R_FIRE
        else:
            r = L.R_COUNTER if ta == L.CAV else L.R_NONE
    if r == L.R_SQUARE:
        if td != L.INF or ta != L.CAV or T[1 + dfd, L.U_TERR] != L.T_OPEN or form == L.F_SQUARE:
            return L.R_NONE
    elif r == L.R_RETIRE:
        if not (td == L.CAV or td == L.ART or form == L.F_OPEN):
            return L.R_NONE
        if ta != L.INF and T[0, L.R_RETIRE_VS_CAV] == 0:
            return L.R_NONE
        if T[1 + dfd, L.U_BLOCKED] == 1:
            return L.R_NONE  # "may not Retire if it cannot make a basic move" to its side
    elif r == L.R_COUNTER:
        if td != L.CAV or ta != L.CAV or W[dfd, L.S_DISO] == 1:
            return L.R_NONE
    return r


@jit_inner
def melee(st, T, W, a, att, dfd, follow):
    """One melee of ``att`` on ``dfd`` (steps 1-5; the follow-up and the attacker's cavalry
    disorder are the caller's). Row ``a`` of the actions gives the situation; ``follow`` = 1
    for a follow-up. Returns ``VAC_RETREAT`` if the defender's position was vacated by a
    retreat or removal, ``VAC_RETIRE`` if the defender retired, else 0.

    One code path serves the three ways blows are exchanged: the attacker strikes and the
    defender battles back; a counter-charging defender strikes first and the charger battles
    back; or (switch) both strike at once.
    """
    oa = T[0, L.R_OA] + a
    order = T[oa, L.A_ORDER]
    if follow == 1:
        supp = T[oa, L.A_FU_SUPP]
        dsupp = 0
        react = T[oa, L.A_FU_REACT]
        flank = T[oa, L.A_FU_FLANK]
        uphill = 0
        rough = 0
        nart = 0
    else:
        supp = T[oa, L.A_SUPP]
        dsupp = T[oa, L.A_DSUPP]
        react = T[oa, L.A_REACT]
        flank = T[oa, L.A_FLANK]
        uphill = T[oa, L.A_UPHILL]
        rough = T[oa, L.A_ROUGH]
        nart = T[oa, L.A_NART]
    ta = T[1 + att, L.U_TROOP]
    td = T[1 + dfd, L.U_TROOP]
    before = T[0, L.R_STATE_BEFORE] == 1
    # step 1: cavalry charging through or into rough terrain is disordered before the melee
    a_diso_move = W[att, L.S_DISO]
    if ta == L.CAV and (rough == 1 or T[1 + dfd, L.U_TERR] != L.T_OPEN):
        W[att, L.S_DISO] = 1
    a_hits0 = W[att, L.S_HITS]
    a_diso0 = W[att, L.S_DISO]
    # step 2 retires an attacker that "becomes disordered": by default the reaction's fire
    # only; switch rough_charge = "stopped": the rough-terrain disorder too
    a_diso_ref = a_diso_move if T[0, L.R_ROUGH_STOP] == 1 else a_diso0
    d_hits0 = W[dfd, L.S_HITS]
    d_diso0 = W[dfd, L.S_DISO]
    a_ret0 = W[att, L.S_RETREATS]
    # step 2: the defender's reaction
    r = pick_reaction(T, W, att, dfd, react)
    if r == L.R_SQUARE:
        n = 4 - (1 if W[dfd, L.S_HITS] >= 2 else 0) - W[dfd, L.S_DISO]
        if square_test(st, n, T) == 1:
            W[dfd, L.S_FORM] = L.F_SQUARE
            W[dfd, L.S_SQUARED] = 1
    if r == L.R_FIRE or (r == L.R_SQUARE and T[0, L.R_SQ_FIRE] == 1):
        shoot(st, T, W, dfd, att, NO, NO, NO, NO, NO, YES)
    # batteries fire at the charger "before it makes contact", whatever the target does (a
    # retiring target is contacted first: "contacted by infantry MAY choose to retire")
    for k in range(nart):
        shoot(st, T, W, T[oa, L.A_ART + k], att, T[oa, L.A_ARTB + k], NO, NO, NO, NO, YES)
    if W[att, L.S_REMOVED] == 1 or W[att, L.S_RETREATS] != a_ret0:
        return 0
    if W[att, L.S_DISO] == 1 and a_diso_ref == 0:  # became disordered: retire 3"
        W[att, L.S_FELLBACK] = 1
        return 0
    if r != L.R_RETIRE:
        W[att, L.S_MELEED] = 1
    # squares and units in a BUA face every way: a flank attack still meets a battle back
    if W[dfd, L.S_FORM] == L.F_SQUARE or T[1 + dfd, L.U_TERR] == L.T_BUA:
        flank = 0
    counter = r == L.R_COUNTER
    simul = counter and T[0, L.R_CC_SIMUL] == 1
    # steps 3-4: the first blow
    first = dfd if (counter and not simul) else att
    second = att if first == dfd else dfd
    mode = MODE_MELEE
    fmode = FM_NORMAL
    if r == L.R_RETIRE:
        mode = MODE_SABER  # only sabers hit a retiring unit; flags do nothing
        fmode = FM_IGNORE
    elif ta == L.CAV and td == L.INF and W[dfd, L.S_FORM] == L.F_SQUARE:
        mode = MODE_SABER  # troop symbols do not hit; its flags are hits unless switched off
        if T[0, L.R_SQ_CAV_FLAGS] == 1:
            fmode = FM_IGNORE
    nd = 0  # a counter-charging defender's dice: its first blow, or its simultaneous one
    if counter:
        nd = melee_dice(
            T,
            W,
            dfd,
            att,
            YES,
            NO,
            NO,
            NO,
            d_hits0 if before else W[dfd, L.S_HITS],
            d_diso0,
            W[att, L.S_DISO],
        )
    n1 = nd
    if first == att:
        n1 = melee_dice(
            T,
            W,
            att,
            dfd,
            YES,
            order,
            supp,
            uphill,
            a_hits0 if before else W[att, L.S_HITS],
            a_diso0 if before else W[att, L.S_DISO],
            W[dfd, L.S_DISO],
        )
    wdc = T[0, L.R_WDC]
    W[wdc, T[1 + first, L.U_SIDE]] += n1
    h1, f1 = roll_battle(st, n1, mode, T[1 + second, L.U_TROOP], T)
    h2 = 0
    f2 = 0
    if simul:  # both strike at once
        W[wdc, T[1 + dfd, L.U_SIDE]] += nd
        h2, f2 = roll_battle(st, nd, MODE_MELEE, ta, T)
    W[second, L.S_HITS_ROLLED] += h1
    W[second, L.S_FLAGS_ROLLED] += f1
    ret2 = W[second, L.S_RETREATS]
    resolve(T, W, second, h1, f1 if fmode != FM_IGNORE else 0, fmode)
    if r == L.R_RETIRE:
        if W[dfd, L.S_REMOVED] == 0:
            W[dfd, L.S_RETIRED] = 1
            if td == L.ART:
                W[dfd, L.S_FORM] = L.F_LIMBERED
            elif td == L.CAV and T[0, L.R_RETIRE_DISO] == 1:
                disorder(T, W, dfd)  # step 7: cavalry the melee dice were rolled against
        return VAC_RETIRE
    if simul:
        W[att, L.S_HITS_ROLLED] += h2
        W[att, L.S_FLAGS_ROLLED] += f2
        resolve(T, W, att, h2, f2, FM_NORMAL)
    vac = 1 if (W[second, L.S_REMOVED] == 1 or W[second, L.S_RETREATS] != ret2) else 0
    if simul:
        if vac == 0 and W[att, L.S_REMOVED] == 0 and W[att, L.S_RETREATS] == a_ret0:
            W[att, L.S_FELLBACK] = 1
    else:
        # step 5: battle back by the unit struck first, if it holds and faces its enemy (a
        # unit at maximum hits faces away from the enemy: no battle back)
        t2 = T[1 + second, L.U_TROOP]
        faces = (second == att or flank == 0) and W[second, L.S_HITS] < T[1 + second, L.U_STR]
        if vac == 0 and (t2 == L.INF or t2 == L.CAV) and faces:
            bb = 0
            if T[0, L.R_BB_BONUS] == 1:
                bb = dsupp if second == dfd else supp
            if before:
                hb = d_hits0 if second == dfd else a_hits0
                db = d_diso0 if second == dfd else a_diso0
            else:
                hb = W[second, L.S_HITS]
                db = W[second, L.S_DISO]
            nb = melee_dice(T, W, second, first, NO, NO, bb, NO, hb, db, W[first, L.S_DISO])
            fm = FM_NORMAL
            mb = MODE_MELEE
            if W[second, L.S_FORM] == L.F_SQUARE and T[1 + first, L.U_TROOP] == L.CAV:
                fm = FM_MIN_ONE + T[0, L.R_SQ_BB]  # a square battling back drives cavalry back
            elif t2 == L.CAV and W[first, L.S_FORM] == L.F_SQUARE and T[0, L.R_SQ_SABERS] == 1:
                mb = MODE_SABER  # cavalry v a square that attacked it: only sabers hit
                if T[0, L.R_SQ_CAV_FLAGS] == 1:
                    fm = FM_IGNORE
            r1 = W[first, L.S_RETREATS]
            attack_roll(st, T, W, second, first, nb, mb, fm)
            if first == att and W[att, L.S_REMOVED] == 0 and W[att, L.S_RETREATS] == r1:
                W[att, L.S_FELLBACK] = 1  # still adjacent: attacker and supports retire 3"
    if td == L.CAV:
        disorder(T, W, dfd)  # step 7 for the defending cavalry
    return 0 if (counter and not simul) else VAC_RETREAT * vac


@jit_noalloc(inline="always")
def trial(st, T, W):
    """One trial: every action of ``A`` in order from the starting state.

    Inlined into its one caller, :func:`run_trials`: compiled apart, its code would be
    linked into the caller and optimised and emitted a second time."""
    nu = T[0, L.R_NU]
    for u in range(nu):
        for c in range(L.S_NCOLS):
            W[u, c] = 0
        W[u, L.S_HITS] = T[1 + u, L.U_HITS]
        W[u, L.S_DISO] = T[1 + u, L.U_DISO]
        W[u, L.S_FORM] = T[1 + u, L.U_FORM]
        W[u, L.S_MARK] = T[1 + u, L.U_MARK]
    for ld in range(T[0, L.R_NL]):
        W[T[0, L.R_WLS] + ld, L.LS_HITS] = T[T[0, L.R_OLD] + ld, L.LD_HITS]
        W[T[0, L.R_WLS] + ld, L.LS_REMOVED] = (
            1 if T[T[0, L.R_OLD] + ld, L.LD_HITS] >= L.LEADER_STRENGTH else 0
        )
        W[T[0, L.R_WLS] + ld, L.LS_LOST] = 0
    for k in range(3):
        W[T[0, L.R_WDC], k] = 0  # W[T[0, L.R_WDC], 3] (the reported action) is set by the caller
    for a in range(T[0, L.R_NA]):
        actor = T[T[0, L.R_OA] + a, L.A_ACTOR]
        target = T[T[0, L.R_OA] + a, L.A_TARGET]
        if T[T[0, L.R_OA] + a, L.A_KIND] == 0:
            shoot(
                st,
                T,
                W,
                actor,
                target,
                T[T[0, L.R_OA] + a, L.A_BAND],
                T[T[0, L.R_OA] + a, L.A_ORDER],
                T[T[0, L.R_OA] + a, L.A_SUPP],
                T[T[0, L.R_OA] + a, L.A_ENFILADE],
                T[T[0, L.R_OA] + a, L.A_OBSCURED],
                NO,
            )
            continue
        if W[actor, L.S_REMOVED] == 1 or W[actor, L.S_HITS] >= T[1 + actor, L.U_STR]:
            continue
        if W[actor, L.S_DISO] == 1 or W[target, L.S_REMOVED] == 1:
            continue  # a disordered unit may not initiate melee
        vac = melee(st, T, W, a, actor, target, NO)
        fu = T[T[0, L.R_OA] + a, L.A_FU]
        # step 6: cavalry may melee again after any vacated position; after a retire, "the
        # attacking unit may conduct a melee follow-up" (infantry too, by default)
        fu_ok = vac > 0 and T[1 + actor, L.U_TROOP] == L.CAV
        if vac == VAC_RETIRE and T[0, L.R_RETIRE_FU] == 1:
            fu_ok = True
        if (
            fu_ok
            and fu >= 0
            and W[actor, L.S_REMOVED] == 0
            and W[actor, L.S_HITS] < T[1 + actor, L.U_STR]
            and (W[actor, L.S_DISO] == 0 or T[0, L.R_DISO_FOLLOW] == 1)
            and W[fu, L.S_REMOVED] == 0
        ):
            if a == W[T[0, L.R_WDC], 3]:
                W[T[0, L.R_WDC], 2] = 1  # the reported follow-up was made
            melee(st, T, W, a, actor, fu, YES)
        if T[1 + actor, L.U_TROOP] == L.CAV:
            disorder(T, W, actor)  # step 7


def _prologue(seed, n, out, T, slots):
    """Per-chunk setup (Python): the arguments of :func:`run_trials` (the RNG state from the
    seed words ``seed``, uint64[4], and the scratch arrays ``W`` and ``res``)."""
    W = np.zeros((T[0, L.R_WDC] + 1, max(L.S_NCOLS, L.LS_NCOLS, 4)), dtype=np.int64)
    res = np.zeros(L.N_STATS, dtype=np.int64)
    return (seed_state(seed), n, out, T, slots, W, res)


@jit_noalloc(vectorize=False)
def run_trials(st, n, out, T, slots, W, res):
    """``n`` trials histogrammed into ``out[slots[s], value]`` (values clamped to the bins),
    on the scratch arrays of :func:`_prologue` (allocates nothing)."""
    top = out.shape[1] - 1
    wdc = T[0, L.R_WDC]
    fu = T[T[0, L.R_OF], L.F_FU_ACTION]
    for _ in range(n):
        W[wdc, 3] = fu
        trial(st, T, W)
        record(T, W, res)
        for s in range(L.N_STATS):
            row = slots[s]
            if row >= 0:
                out[row, min(res[s], top)] += 1


#: Engine kernel (contract in :mod:`oddslab.engine`): :func:`run_trials` on the arguments of
#: :func:`_prologue`, for each chunk of a batch, on threads
#: (:class:`~oddslab._kernels.chunks.ChunkKernel`).
run_vom_kriege = ChunkKernel(run_trials, "run_vom_kriege", prologue=_prologue)
