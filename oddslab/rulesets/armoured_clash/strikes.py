"""Armoured Clash kernel helpers: the attack pool, combat ratings, dice columns and the
close quarters strikes (the charger's, and the retaliation of the target and its secondary
combatants).

numba only (besides :func:`pack_faces`, numpy, per chunk). Every helper works on the packed
unit table ``W`` and the attack table ``AT`` (layouts in
:mod:`oddslab.rulesets.armoured_clash.layout`); :mod:`.kernel` calls them.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_inner
from oddslab._kernels.pools import roll_pool
from oddslab.rulesets.armoured_clash.casualties import apply_damage
from oddslab.rulesets.armoured_clash.layout import (
    A_ATT,
    A_NSEC,
    A_RFORCE,
    A_RRR,
    A_RRRCMD,
    A_RSTATIC,
    A_SEC0,
    A_SST0,
    A_TGT,
    F_EXPL,
    F_KIND,
    F_NROWS,
    F_RM,
    F_RR0,
    F_SCORE,
    R_SEC_ALWAYS,
    S_DISO,
    S_GARR,
    S_GONE,
    S_HITS,
    S_M,
    S_SUPP,
    S_T,
    U_BYDMG,
    U_DEF,
    U_MELEE,
)

__all__ = ["pack_faces", "pool_hits", "rating_of", "dice_for", "extra_mask", "strike", "retaliate"]


def pack_faces(face_score, explode, rr_tiers, kinds):
    """``FT`` int64[F_NROWS, faces]: every per-face table of the attack die in one array
    (numpy, per chunk: each chunk gets its own, since :func:`pool_hits` writes its row
    ``F_RM``)."""
    FT = np.zeros((F_NROWS, face_score.shape[0]), dtype=np.int64)
    FT[F_SCORE] = face_score
    FT[F_EXPL] = explode != 0
    FT[F_KIND] = kinds
    for r in range(3):
        FT[F_RR0 + r] = rr_tiers[r] != 0
    return FT


@jit_inner
def pool_hits(st, n, rating, rr_extra, FT):
    """Hits of one attack pool of ``n`` dice at ``rating`` (0 weakened, 1 neutral, 2 improved).

    The shared primitive :func:`oddslab._kernels.pools.roll_pool` with ``explode_depth=1``
    (heroic strikes add one die; added dice add none), no re-rolled explosions and no keep.
    Its re-roll mask is the rating's tier plus ``rr_extra``, a bitmask over face kinds that a
    special rule or command adds; it is written into the scratch row ``FT[F_RM]``.
    """
    k = FT.shape[1]
    rrow = F_RR0 + rating
    for f in range(k):
        FT[F_RM, f] = FT[rrow, f] | ((rr_extra >> FT[F_KIND, f]) & 1)
    return roll_pool(st, n, FT[F_SCORE], FT[F_EXPL], 1, FT[F_RM], False, 0, True, FT[F_RM])


@jit_inner
def rating_of(static, live, force):
    if force >= 0:
        return force
    d = static + live
    return 2 if d > 0 else (1 if d == 0 else 0)


@jit_inner
def dice_for(u, col, half, W, DC):
    if col < 0 or W[u, S_GONE] != 0:
        return 0
    if W[u, U_BYDMG] != 0:
        return DC[col, W[u, S_T]]
    m = W[u, S_M]
    if half:
        m = (m + 1) // 2
    return DC[col, m]


@jit_inner
def extra_mask(rr, cmd, u, W):
    """Extra re-roll mask of unit ``u``: none if it comes from a command and ``u`` is disordered."""
    if cmd != 0 and W[u, S_DISO] != 0:
        return 0
    return rr


@jit_inner
def strike(st, u, t, col, half, static, force, rr_extra, W, nu, DC, FT):
    """Close quarters attack pool of ``u`` against ``t``; returns models of ``t`` destroyed."""
    n = dice_for(u, col, half, W, DC)
    if n <= 0 or W[t, S_GONE] != 0:
        return 0
    rating = rating_of(static, -W[u, S_SUPP], force)
    hits = pool_hits(st, n, rating, rr_extra, FT)
    W[t, S_HITS] += hits
    return apply_damage(st, t, hits // W[t, U_DEF], -1, W, nu)


@jit_inner
def retaliate(st, a, AT, W, nu, DC, FT, R, with_tgt, with_sec):
    """The charge target (``with_tgt``) and / or every secondary combatant (``with_sec``)
    strike the charger, at the same time; returns the charger's models destroyed.

    Secondary combatants strike only alongside the target's retaliation (it has a MELEE
    score), unless ``R[R_SEC_ALWAYS]``; under a defensive advantage with ``R[R_SEC_AFTER]``
    they strike apart, after the charger.
    """
    att = AT[a, A_ATT]
    tgt = AT[a, A_TGT]
    cmd = AT[a, A_RRRCMD]
    if W[tgt, U_MELEE] < 0 and R[R_SEC_ALWAYS] == 0:
        return 0  # no retaliatory attack for the secondaries to join
    killed = 0
    if with_tgt:
        killed += strike(
            st,
            tgt,
            att,
            W[tgt, U_MELEE],
            W[tgt, S_GARR] != 0,
            AT[a, A_RSTATIC],
            AT[a, A_RFORCE],
            extra_mask(AT[a, A_RRR], cmd, tgt, W),
            W,
            nu,
            DC,
            FT,
        )
    for i in range(AT[a, A_NSEC] if with_sec else 0):
        s2 = AT[a, A_SEC0 + i]
        # a command is issued to one unit (the charge target); a special rule helps them all
        killed += strike(
            st,
            s2,
            att,
            W[s2, U_MELEE],
            W[s2, S_GARR] != 0,
            AT[a, A_SST0 + i],
            AT[a, A_RFORCE],
            0 if cmd != 0 else AT[a, A_RRR],
            W,
            nu,
            DC,
            FT,
        )
    return killed
