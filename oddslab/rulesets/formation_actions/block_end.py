"""The end of a formation-actions turn over a block of games in lock-step: outside Shock, the
end phase, rallies and the turn's statistics (helpers of :mod:`.kernel_block`; the lane
state is described in :mod:`.block_steps`).
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_inner
from oddslab._kernels.bits import popcount
from oddslab._kernels.rng import D6, GOLDEN, mix64, stream_face, stream_randint
from oddslab.rulesets.formation_actions.block_steps import (
    L_ACT,
    L_BROKEN,
    L_DIE,
    L_DIE2,
    L_EVER,
    L_FIRST,
    L_GONE,
    L_HELD,
    L_K,
    L_NEED,
    L_NROWS,
    L_OVER,
    L_PASSF,
    L_PT0,
    L_PT1,
    L_SOME,
    L_W,
    count_values,
    outside_lanes,
)
from oddslab.rulesets.formation_actions.layout import (
    A_NCOLS,
    A_START,
    A_STAT0,
    AS_TURNS,
    AS_WITHDRAWALS,
    F_COMMAND,
    F_NCOLS,
    F_NEAR,
    F_OS_KIND,
    F_SHOCK0,
    F_STAT0,
    F_SUPP,
    F_THRESH,
    F_UNITS,
    FE_BROKEN,
    FE_OUT,
    FS_ACTIONS,
    FS_HOLDS,
    FS_RALLIED,
    FS_RALLIED_UNBROKEN,
    FS_SHOCK,
    FS_WITHDRAWALS,
    H_AOFF,
    H_FOFF,
    H_NF,
    R_BROKEN_CAP,
    R_TURNS,
    T_ACTION,
    T_BROKEN,
    T_NCOLS,
    T_SHOCK,
    TA_ACTIONS,
    TA_BROKEN,
    TA_HOLDS,
    TA_NCOLS,
)

_ZERO = np.uint64(0)
_SIX = np.uint64(6)

__all__ = [
    "outside_start",
    "end_phase",
    "end_phase_outside",
    "rally",
    "split_rallies",
    "turn_statistics",
    "record_turn",
    "formation_end",
    "record_block",
]


@jit_inner
def outside_start(W, SM, G, cdf, nb, immediate):
    """Outside Shock at the start of the turn (``R_OS_TIMING`` 1), formation by formation."""
    nf = G[H_NF]
    fo = G[H_FOFF]
    A = W[L_ACT]
    K = W[L_K]
    BR = W[L_BROKEN]
    EV = W[L_EVER]
    for f in range(nf):
        row = fo + f * F_NCOLS
        if G[row + F_OS_KIND] == 0:
            continue
        for g in range(nb):
            A[g] = 1 - ((W[L_GONE, g] >> f) & 1)
        outside_lanes(SM, A, K, W[L_DIE], nb, G, cdf, f)
        thresh = G[row + F_THRESH]
        S = W[L_NROWS + f]
        for g in range(nb):
            k = K[g]
            s = S[g] + k
            S[g] = s
            nb_ = immediate & np.int64(k > 0) & (1 - ((BR[g] >> f) & 1)) & np.int64(s >= thresh)
            BR[g] |= nb_ << f
            EV[g] |= nb_ << f


@jit_inner
def end_phase(W, G, nb, immediate):
    """The end phase with no outside Shock drawn now: +1 Shock for a Hold, breaking, and
    who must rally (``W[L_NEED]``)."""
    nf = G[H_NF]
    fo = G[H_FOFF]
    HE = W[L_HELD]
    OV = W[L_OVER]
    SO = W[L_SOME]
    for g in range(nb):
        OV[g] = 0
        SO[g] = 0
    for f in range(nf):
        thresh = G[fo + f * F_NCOLS + F_THRESH]
        S = W[L_NROWS + f]
        for g in range(nb):
            s = S[g] + ((HE[g] >> f) & 1)
            S[g] = s
            OV[g] |= np.int64(s >= thresh) << f
            SO[g] |= np.int64(s > 0) << f
    imm = -immediate
    for g in range(nb):
        here = ~W[L_GONE, g]
        over = OV[g]
        bk = W[L_BROKEN, g] | (HE[g] & over & imm)
        bk |= here & ~bk & over & ~imm
        W[L_BROKEN, g] = bk
        W[L_EVER, g] |= bk
        W[L_NEED, g] = here & (SO[g] | bk)


@jit_inner
def end_phase_outside(W, SM, G, cdf, nb, immediate):
    """The end phase with outside Shock drawn before the break check (``R_OS_TIMING`` 0)."""
    nf = G[H_NF]
    fo = G[H_FOFF]
    A = W[L_ACT]
    K = W[L_K]
    HE = W[L_HELD]
    BR = W[L_BROKEN]
    EV = W[L_EVER]
    NE = W[L_NEED]
    GO = W[L_GONE]
    for g in range(nb):
        NE[g] = 0
    for f in range(nf):
        row = fo + f * F_NCOLS
        thresh = G[row + F_THRESH]
        kind = G[row + F_OS_KIND]
        for g in range(nb):
            A[g] = 1 - ((GO[g] >> f) & 1)
            K[g] = 0
        if kind != 0:
            outside_lanes(SM, A, K, W[L_DIE], nb, G, cdf, f)
        S = W[L_NROWS + f]
        for g in range(nb):
            here = A[g]
            hb = (HE[g] >> f) & 1
            s = S[g] + hb
            bk = ((BR[g] >> f) & 1) | (hb & immediate & np.int64(s >= thresh))
            k = K[g]
            s += k
            S[g] = s
            nb_ = here & (1 - bk) & np.int64(s >= thresh)
            bk |= nb_ & (np.int64(k > 0) | (1 - immediate))
            BR[g] |= bk << f
            EV[g] |= bk << f
            NE[g] |= (here & (np.int64(s > 0) | bk)) << f


@jit_inner
def rally(W, SM, RT, G, nb, m0, start1, mode, nat1, nat6, rally_pen, removed):
    """Every lane's rallies. They are rolled one at a time, alternating between the armies
    from ``W[L_FIRST]`` (as :func:`~.kernel.play_game` does); here each formation in turn
    reads the die at its place in that order, then the streams skip past all of them.

    With ``broken_shock = "cap"`` a formation still broken after its rally keeps at most its
    units in Shock (:func:`~.kernel.play_game` caps when it counts the turn's statistics:
    the same, since every broken formation in play rallies and one out of play gains
    nothing)."""
    nf = G[H_NF]
    fo = G[H_FOFF]
    ao = G[H_AOFF]
    NE = W[L_NEED]
    FI = W[L_FIRST]
    A = W[L_ACT]
    D = W[L_DIE]
    BR = W[L_BROKEN]
    GO = W[L_GONE]
    # per army: the stream position (as a counter value) of its next rally die, its rallies
    # so far and the other army's count this turn. The army rolling first has its q-th die at
    # place 2q while the other has dice left, then at the next places; the second army at
    # 2q + 1, likewise: each die is 2 places after the last while the other army has one in
    # between, else 1.
    PT0 = W[L_PT0]
    PT1 = W[L_PT1]
    Q0 = W[L_OVER]
    Q1 = W[L_SOME]
    C0 = W[L_K]  # army 1's count, for army 0's spacing
    C1 = W[L_DIE2]  # army 0's count
    two = GOLDEN + GOLDEN
    cap = np.int64(G[R_BROKEN_CAP] != 0)
    for g in range(nb):
        need = NE[g]
        c0 = popcount(need & m0)
        c1 = popcount(need & ~m0)
        first1 = FI[g]
        cf = c1 if first1 else c0
        s1 = SM[g] + GOLDEN
        s2 = s1 + (GOLDEN & (_ZERO - np.uint64(cf > 0)))  # the second army's first place
        PT0[g] = np.int64(s2 if first1 else s1)
        PT1[g] = np.int64(s1 if first1 else s2)
        Q0[g] = 0
        Q1[g] = 0
        C0[g] = c1
        C1[g] = c0
    for f in range(nf):
        army = np.int64(f >= start1)
        PT = PT1 if army else PT0
        QA = Q1 if army else Q0
        CO = C1 if army else C0
        n = 0
        nbad = 0
        for g in range(nb):
            a = (NE[g] >> f) & 1
            s = np.uint64(PT[g])
            bad, face = stream_face(mix64(s), _SIX)
            D[g] = face + 1
            A[g] = a
            n += a
            nbad += bad & a
            q = QA[g]
            QA[g] = q + a
            first = np.int64(FI[g] == army)
            step = two if q + 1 - first < CO[g] else GOLDEN
            PT[g] = np.int64(s + (step & (_ZERO - np.uint64(a))))
        if n == 0:
            continue
        if nbad != 0:  # about 1 die in 10**9 is redrawn
            for g in range(nb):
                if A[g] != 0:
                    q = QA[g] - 1
                    first = np.int64(FI[g] == army)
                    step = two if q + 1 - first < CO[g] else GOLDEN
                    s = np.uint64(PT[g]) - step
                    D[g] = stream_randint(s, D6) + 1
        row = fo + f * F_NCOLS
        sup = np.int64(G[row + F_SUPP] != 0)
        # the rally test's target, and 1 less with Shock, when it takes the action test's -1
        base = G[row + F_COMMAND] - G[row + F_NEAR]
        dsh = np.int64(0)
        if rally_pen:
            p0 = sup if mode == 0 or mode == 2 or mode == 3 else 0
            p1 = sup if mode == 0 else (1 if mode == 1 or mode == 2 else sup + 1)
            base -= p0
            dsh = p1 - p0
        units = G[row + F_UNITS]
        # the cap matters only where Shock can pass the units: outside Shock, breaking above
        # them or starting above them (a loop-invariant test: the lane loop is unswitched)
        capf = cap != 0 and (
            G[row + F_OS_KIND] != 0 or G[row + F_THRESH] > units or G[row + F_SHOCK0] > units
        )
        fs = G[row + F_STAT0]
        sa = G[ao + army * A_NCOLS + A_STAT0] + AS_WITHDRAWALS
        S = W[L_NROWS + f]
        for g in range(nb):
            a = A[g]
            bk = (BR[g] >> f) & 1
            s0 = S[g]
            target = base - dsh * np.int64(s0 > 0) - 2 * bk
            r = D[g]
            ok = np.int64(r <= target) | (nat1 & np.int64(r == 1))
            ok &= (1 - (nat6 & np.int64(r == 6))) & a
            # a pass halves the Shock (a broken formation first counts as having Shock equal
            # to its units and is no longer broken); a broken formation that fails withdraws
            s = s0 + bk * (units - s0)
            half = s >> 1
            halved = s - (half if half > 1 else 1)
            s = s0 + ok * (halved - s0)
            if capf:
                over = s - units
                s -= (bk & (1 - ok) & np.int64(over > 0)) * over
            S[g] = s
            BR[g] &= ~((bk & ok) << f)
            # rallies from broken in the low 32 bits, passed while unbroken in the high ones:
            # one row to update per lane; :func:`split_rallies` parts them once per block
            RT[fs + FS_RALLIED, g] += (bk & ok) | (((1 - bk) & ok) << 32)
            wd = bk & (1 - ok) & a
            RT[fs + FS_WITHDRAWALS, g] += wd
            RT[sa, g] += wd
            GO[g] |= (wd & removed) << f
    for g in range(nb):
        SM[g] += np.uint64(popcount(NE[g])) * GOLDEN


@jit_inner
def split_rallies(RT, G, nb):
    """Part each formation's rally counts (packed by :func:`rally`) into rallies from
    broken and rally tests passed while unbroken, before the block's totals are counted."""
    nf = G[H_NF]
    fo = G[H_FOFF]
    for f in range(nf):
        fs = G[fo + f * F_NCOLS + F_STAT0]
        R = RT[fs + FS_RALLIED]
        U = RT[fs + FS_RALLIED_UNBROKEN]
        for g in range(nb):
            v = R[g]
            U[g] = v >> 32
            R[g] = v & 0xFFFFFFFF


@jit_inner
def turn_statistics(W, RT, hist, G, tb, nb, m0, m1):
    """Count the turn's statistics of every lane (``tb``: the turn's block of ``G[H_TOFF:]``)
    and add each formation's action and Hold to its totals."""
    nf = G[H_NF]
    fo = G[H_FOFF]
    PF = W[L_PASSF]
    HE = W[L_HELD]
    EV = W[L_EVER]
    for f in range(nf):
        fs = G[fo + f * F_NCOLS + F_STAT0]
        e = tb + T_NCOLS * f
        cp = 0
        ch = 0
        ce = 0
        for g in range(nb):
            pb = (PF[g] >> f) & 1
            hb = (HE[g] >> f) & 1
            RT[fs + FS_ACTIONS, g] += pb
            RT[fs + FS_HOLDS, g] += hb
            cp += pb
            ch += hb
            ce += (EV[g] >> f) & 1
        b = G[e + T_BROKEN]
        hist[b + 1] += ce
        hist[b] += nb - ce
        b = G[e + T_ACTION]  # 0 no action, 1 action, 2 Hold
        hist[b + 1] += cp
        hist[b + 2] += ch
        hist[b] += nb - cp - ch
        count_values(hist, G[e + T_SHOCK], W[L_NROWS + f], nb)
    ta = tb + T_NCOLS * nf
    V = W[L_K]
    for a in range(2):
        m = m0 if a == 0 else m1
        e = ta + a * TA_NCOLS
        for g in range(nb):
            V[g] = popcount(PF[g] & m)
        count_values(hist, G[e + TA_ACTIONS], V, nb)
        for g in range(nb):
            V[g] = popcount(HE[g] & m)
        count_values(hist, G[e + TA_HOLDS], V, nb)
        for g in range(nb):
            V[g] = popcount((W[L_BROKEN, g] | W[L_GONE, g]) & m)
        count_values(hist, G[e + TA_BROKEN], V, nb)


@jit_inner
def record_turn(W, RT, G, t, nb):
    """Per-trial records only: write turn ``t``'s statistics of every lane, the values
    :func:`turn_statistics` and :func:`~.block_steps.strategy` counted, to their slots of
    the statistics rows ``RT`` (slot layout in :mod:`.layout`; the totals' slots are left
    alone)."""
    nf = G[H_NF]
    fo = G[H_FOFF]
    ao = G[H_AOFF]
    nt = G[R_TURNS]
    PF = W[L_PASSF]
    HE = W[L_HELD]
    EV = W[L_EVER]
    for f in range(nf):
        fs = G[fo + f * F_NCOLS + F_STAT0] + FS_SHOCK + t
        S = W[L_NROWS + f]
        for g in range(nb):
            RT[fs, g] = S[g]
            RT[fs + nt, g] = (EV[g] >> f) & 1
            RT[fs + 2 * nt, g] = ((PF[g] >> f) & 1) + 2 * ((HE[g] >> f) & 1)
    one = np.int64(1)
    start1 = G[ao + A_NCOLS + A_START]
    m0 = (one << start1) - 1
    m1 = ((one << nf) - 1) & ~m0
    for a in range(2):
        m = m0 if a == 0 else m1
        sa = G[ao + a * A_NCOLS + A_STAT0] + AS_TURNS + t
        for g in range(nb):
            RT[sa, g] = popcount(PF[g] & m)
            RT[sa + nt, g] = popcount(HE[g] & m)
            RT[sa + 2 * nt, g] = popcount((W[L_BROKEN, g] | W[L_GONE, g]) & m)
            won = W[L_W, g]
            RT[sa + 3 * nt + 2, g] = won if a == 1 else 1 - won


@jit_inner
def formation_end(W, RT, G, nb):
    """Each lane's formations' end state, once the last turn is over: broken (or out of
    play) and out of play, to their slots of ``RT`` (``FS_SHOCK + 3 * turns + FE_*``)."""
    nf = G[H_NF]
    fo = G[H_FOFF]
    nt = G[R_TURNS]
    for f in range(nf):
        fe = G[fo + f * F_NCOLS + F_STAT0] + FS_SHOCK + 3 * nt
        for g in range(nb):
            gone = W[L_GONE, g]
            RT[fe + FE_BROKEN, g] = ((W[L_BROKEN, g] | gone) >> f) & 1
            RT[fe + FE_OUT, g] = (gone >> f) & 1


@jit_inner
def record_block(rec, j0, nb, RT, rs):
    """Per-trial records only: lane ``g``'s statistics (slots ``rs`` of ``RT``, after
    :func:`split_rallies`) to row ``j0 + g`` of ``rec``."""
    # a game's row at a time: rec's rows are contiguous, RT's columns are read across the
    # block's rows (RT stays in the cache; rec is written once, in order)
    for g in range(nb):
        row = rec[j0 + g]
        for k in range(rs.shape[0]):
            row[k] = RT[rs[k], g]
