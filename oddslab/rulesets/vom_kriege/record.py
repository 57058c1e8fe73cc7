"""Numba: the per-trial statistics (``res[ST_*]``, :data:`.layout.STAT_NAMES`) read from the
final state ``W`` of a trial of :mod:`.kernel` (also used, one roll at a time, to build the
single-shot table of :mod:`.kernel_shot`)."""

from __future__ import annotations

from oddslab._jit import jit_noalloc
from oddslab.rulesets.vom_kriege import layout as L

__all__ = ["record"]


@jit_noalloc
def record(T, W, res):
    """Per-trial statistics ``res[ST_*]`` from the final state of the focus units."""
    for k in range(L.N_STATS):
        res[k] = 0
    res[0] = W[T[0, L.R_WDC], 0]
    res[1] = W[T[0, L.R_WDC], 1]
    for side in range(2):
        u = T[T[0, L.R_OF], L.F_ATT] if side == 0 else T[T[0, L.R_OF], L.F_DEF]
        if u < 0:
            continue  # the focus defender is a leader alone: its statistics are the leader's
        removed = W[u, L.S_REMOVED]
        atmax = 1 if (removed == 0 and W[u, L.S_HITS] >= T[1 + u, L.U_STR]) else 0
        if side == 1:
            res[2] = W[u, L.S_HITS_ROLLED]
            res[3] = W[u, L.S_FLAGS_ROLLED]
            res[6] = min(W[u, L.S_HITS], T[1 + u, L.U_STR])
            res[8] = W[u, L.S_RETREAT_HM]
            res[10] = 1 if W[u, L.S_RETREATS] > 0 else 0
            res[11] = W[u, L.S_DISO] if removed == 0 else 0
            res[12] = removed
            res[13] = atmax
            res[14] = 1 if (removed == 1 or atmax == 1) else 0
            res[15] = W[u, L.S_RETIRED]
            res[16] = W[u, L.S_SQUARED]
        else:
            res[4] = W[u, L.S_HITS_ROLLED]
            res[5] = W[u, L.S_FLAGS_ROLLED]
            res[7] = min(W[u, L.S_HITS], T[1 + u, L.U_STR])
            res[9] = W[u, L.S_RETREAT_HM]
            res[17] = 1 if W[u, L.S_RETREATS] > 0 else 0
            res[18] = W[u, L.S_DISO] if removed == 0 else 0
            res[19] = removed
            res[20] = atmax
            res[21] = W[u, L.S_FELLBACK]
            res[22] = W[u, L.S_MELEED]
            res[L.ST_ATT_BB_HITS] = W[u, L.S_BB_HITS]
            res[L.ST_ATT_DF_HITS] = W[u, L.S_DF_HITS]
    res[23] = W[T[0, L.R_WDC], 2]
    t2 = T[T[0, L.R_OF], L.F_T2]
    if t2 >= 0:
        res[24] = W[t2, L.S_HITS_ROLLED]
        res[25] = 1 if W[t2, L.S_RETREATS] > 0 else 0
        res[26] = W[t2, L.S_REMOVED]
    ld = T[T[0, L.R_OF], L.F_DEF_LDR]
    if ld >= 0:
        res[27] = min(W[T[0, L.R_WLS] + ld, L.LS_HITS], L.LEADER_STRENGTH)
        res[28] = W[T[0, L.R_WLS] + ld, L.LS_REMOVED]
        res[29] = W[T[0, L.R_WLS] + ld, L.LS_LOST]
        res[L.ST_DEF_LDR_ROLLED] = W[T[0, L.R_WLS] + ld, L.LS_ROLLED]
        res[L.ST_DEF_LDR_RETIRED] = W[T[0, L.R_WLS] + ld, L.LS_RETIRED]
    ld = T[T[0, L.R_OF], L.F_ATT_LDR]
    if ld >= 0:
        res[30] = min(W[T[0, L.R_WLS] + ld, L.LS_HITS], L.LEADER_STRENGTH)
        res[31] = W[T[0, L.R_WLS] + ld, L.LS_REMOVED]
        res[32] = W[T[0, L.R_WLS] + ld, L.LS_LOST]
    if T[T[0, L.R_OF], L.F_DEF_ARMY] >= 0:
        res[33] = min(
            W[T[0, L.R_WLS] + T[T[0, L.R_OF], L.F_DEF_ARMY], L.LS_HITS], L.LEADER_STRENGTH
        )
    if T[T[0, L.R_OF], L.F_ATT_ARMY] >= 0:
        res[34] = min(
            W[T[0, L.R_WLS] + T[T[0, L.R_OF], L.F_ATT_ARMY], L.LS_HITS], L.LEADER_STRENGTH
        )
    for u in range(T[0, L.R_NU]):
        if W[u, L.S_REMOVED] == 1:
            res[35 if T[1 + u, L.U_SIDE] == 1 else 36] += 1
