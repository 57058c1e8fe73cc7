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
from oddslab._kernels.rng import seed_state
from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.adjust import melee_dice, shoot_dice
from oddslab.rulesets.vom_kriege.kernel_fate import (  # noqa: F401 - re-exported for tests
    FM_IGNORE,
    FM_MIN_ONE,
    FM_NORMAL,
    FM_ONE,
    FM_PLUS_ONE,
    FORM_LINE,
    FULL_MOVE,
    LEADER,
    MODE_MELEE,
    MODE_SABER,
    MODE_SHOOT,
    NO,
    OPEN,
    VAC_RETIRE,
    VAC_RETREAT,
    YES,
    contact_leader,
    disorder,
    hit_leader,
    remove_unit,
    resolve,
    retreat,
    roll_battle,
    square_test,
)
from oddslab.rulesets.vom_kriege.record import record


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
    W[t, L.S_DF_HITS] += h * df
    resolve(T, W, t, h, f, FM_IGNORE if (df == 1 and T[0, L.R_DF_IGNORE] == 1) else FM_NORMAL)
    if marker == 1:
        W[u, L.S_MARK] = 1


@jit_inner
def battle_back(st, T, W, u, t, n, mode, fmode):
    """``u`` battles back at ``t`` with ``n`` melee dice (step 5: steps 3-4 again)."""
    W[T[0, L.R_WDC], T[1 + u, L.U_SIDE]] += n
    h, f = roll_battle(st, n, mode, T[1 + t, L.U_TROOP], T)
    W[t, L.S_HITS_ROLLED] += h
    W[t, L.S_BB_HITS] += h
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
    # a leader standing with the defender is contacted too and "MUST retire"
    lw = T[1 + dfd, L.U_LDR_WITH]
    if lw >= 0 and W[T[0, L.R_WLS] + lw, L.LS_REMOVED] + W[T[0, L.R_WLS] + lw, L.LS_RETIRED] == 0:
        if T[0, L.R_LDR_ROLL] == 1:
            hits = a_hits0 if before else W[att, L.S_HITS]
            diso = a_diso0 if before else W[att, L.S_DISO]
            terr = T[1 + dfd, L.U_TERR]
            contact_leader(st, T, W, att, lw, terr, order, supp, uphill, hits, diso)
        else:
            W[T[0, L.R_WLS] + lw, L.LS_RETIRED] = 1  # switch: it retires, no roll at it
        if W[dfd, L.S_REMOVED] == 1:
            return VAC_RETREAT  # its leader's third hit took the command with it
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
            battle_back(st, T, W, second, first, nb, mb, fm)
            if first == att and W[att, L.S_REMOVED] == 0 and W[att, L.S_RETREATS] == r1:
                W[att, L.S_FELLBACK] = 1  # still adjacent: attacker and supports retire 3"
    if td == L.CAV:
        disorder(T, W, dfd)  # step 7 for the defending cavalry
    return 0 if (counter and not simul) else VAC_RETREAT * vac


@jit_inner
def melee_leader(st, T, W, a, att, ldr):
    """A melee on leader ``ldr`` alone (row ``a``): the listed batteries fire at the charger
    before contact; if it still comes on, the leader "MUST retire" (:func:`contact_leader`,
    terrain open: a leader stands in the open). Returns ``VAC_RETIRE`` when it retired,
    ``VAC_RETREAT`` when the sabers removed it."""
    oa = T[0, L.R_OA] + a
    a_diso_move = W[att, L.S_DISO]
    if T[1 + att, L.U_TROOP] == L.CAV and T[oa, L.A_ROUGH] == 1:
        W[att, L.S_DISO] = 1  # a charge through rough terrain (step 1)
    a_hits0 = W[att, L.S_HITS]
    a_diso0 = W[att, L.S_DISO]
    a_ret0 = W[att, L.S_RETREATS]
    for k in range(T[oa, L.A_NART]):
        shoot(st, T, W, T[oa, L.A_ART + k], att, T[oa, L.A_ARTB + k], NO, NO, NO, NO, YES)
    if W[att, L.S_REMOVED] == 1 or W[att, L.S_RETREATS] != a_ret0:
        return 0
    ref = a_diso_move if T[0, L.R_ROUGH_STOP] == 1 else a_diso0
    if W[att, L.S_DISO] == 1 and ref == 0:  # became disordered: retire 3"
        W[att, L.S_FELLBACK] = 1
        return 0
    before = T[0, L.R_STATE_BEFORE] == 1
    hits = a_hits0 if before else W[att, L.S_HITS]
    diso = a_diso0 if before else W[att, L.S_DISO]
    order, supp, uphill = T[oa, L.A_ORDER], T[oa, L.A_SUPP], T[oa, L.A_UPHILL]
    contact_leader(st, T, W, att, ldr, OPEN, order, supp, uphill, hits, diso)
    return VAC_RETREAT if W[T[0, L.R_WLS] + ldr, L.LS_REMOVED] == 1 else VAC_RETIRE


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
        W[T[0, L.R_WLS] + ld, L.LS_ROLLED] = 0
        W[T[0, L.R_WLS] + ld, L.LS_RETIRED] = 0
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
        if W[actor, L.S_DISO] == 1:
            continue  # a disordered unit may not initiate melee
        if target < 0:  # a leader alone, coded -1 - its index
            if W[T[0, L.R_WLS] - 1 - target, L.LS_REMOVED] == 1:
                continue
            vac = melee_leader(st, T, W, a, actor, -1 - target)
        elif W[target, L.S_REMOVED] == 1:
            continue
        else:
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


def _prologue(seed, n, out, rec, T, slots):
    """Per-chunk setup (Python): the arguments of :func:`run_trials` (the RNG state from the
    seed words ``seed``, uint64[4], and the scratch arrays ``W`` and ``res``)."""
    W = np.zeros((T[0, L.R_WDC] + 1, max(L.S_NCOLS, L.LS_NCOLS, 4)), dtype=np.int64)
    res = np.zeros(L.N_STATS, dtype=np.int64)
    return (seed_state(seed), n, out, rec, T, slots, W, res)


@jit_noalloc(vectorize=False)
def run_trials(st, n, out, rec, T, slots, W, res):
    """``n`` trials histogrammed into ``out[slots[s], value]`` (values clamped to the bins),
    on the scratch arrays of :func:`_prologue` (allocates nothing). ``rec`` int32[r,
    n_stats]: with ``r > 0`` trial ``t``'s values go to ``rec[t, slots[s]]`` too (the
    records contract of :mod:`oddslab._kernels.chunks`)."""
    top = out.shape[1] - 1
    wdc = T[0, L.R_WDC]
    fu = T[T[0, L.R_OF], L.F_FU_ACTION]
    r = rec.shape[0]
    for t in range(n):
        W[wdc, 3] = fu
        trial(st, T, W)
        record(T, W, res)
        for s in range(L.N_STATS):
            row = slots[s]
            if row >= 0:
                out[row, min(res[s], top)] += 1
        if r > 0:  # one branch a trial, the same way every trial of a chunk
            for s in range(L.N_STATS):
                row = slots[s]
                if row >= 0:
                    rec[t, row] = min(res[s], top)


#: Engine kernel (contract in :mod:`oddslab.engine`): :func:`run_trials` on the arguments of
#: :func:`_prologue`, for each chunk of a batch, on threads
#: (:class:`~oddslab._kernels.chunks.ChunkKernel`), with per-trial records.
run_vom_kriege = ChunkKernel(run_trials, "run_vom_kriege", prologue=_prologue, records=True)
