"""Armoured Clash kernel: a sequence of ranged / close quarters attacks in one trial.

numba, and the per-chunk Python prologue; the attack pool and the close quarters strikes are
in :mod:`oddslab.rulesets.armoured_clash.strikes`, the casualty cascade in
:mod:`oddslab.rulesets.armoured_clash.casualties`. The compiler (:mod:`oddslab.rulesets.armoured_clash.compile`) turns units and
attacks into integer tables (layouts in :mod:`oddslab.rulesets.armoured_clash.layout`); this
module only reads them. Every unit taking part has one row of the packed array ``W`` (built
per chunk by :func:`pack_units`): static values ``W[u, U_*]`` followed by its per-trial
state ``W[u, S_*]``; two more rows hold each side's VPs and deck pointer. Every attack has a
row of ``AT[a, A_*]``. Attack dice columns live in ``DC[col, m]`` (dice for ``m`` counted
models, or for ``m`` damage tokens on a behemoth). Each side has its own C&C deck; cards are
drawn without replacement (:mod:`oddslab._kernels.decks`) and the deck carries over from
attack to attack within a trial.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit, jit_inner, jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import seed_state
from oddslab.rulesets.armoured_clash.casualties import (
    apply_damage,
    destroy,
    draw,
    end_activation,
    start_activation,
    suppression_test,
)
from oddslab.rulesets.armoured_clash.layout import (
    A_ACTIVE,
    A_AIM,
    A_ATT,
    A_COL,
    A_CONC,
    A_DEFADV,
    A_ENDACT,
    A_EXPOSED,
    A_FORCE,
    A_KIND,
    A_MANOEUVRE,
    A_NEWACT,
    A_NSEC,
    A_OPP,
    A_RR,
    A_RRCMD,
    A_SEC0,
    A_STATIC,
    A_TGT,
    N_STATS,
    R_ACT,
    R_FOCUS,
    R_GARR_CHARGED,
    R_MOST_KILLS,
    R_NOSTATUS,
    R_RALLY,
    R_SEC_AFTER,
    S_BRK,
    S_COVER,
    S_DISO,
    S_DMG,
    S_FB,
    S_GARR,
    S_GONE,
    S_HITS,
    S_LOST,
    S_M,
    S_OFFL,
    S_RFAIL,
    S_START,
    S_SUPP,
    S_T,
    ST_ANNIH,
    ST_BROKE,
    ST_DMG,
    ST_EMB_ANNIH,
    ST_EMB_LOST,
    ST_EMB_SUPP,
    ST_FB,
    ST_FULL,
    ST_HITS,
    ST_LOST,
    ST_LOST_O,
    ST_LOST_S,
    ST_OFFICER,
    ST_QC_ATT,
    ST_QC_DEF,
    ST_QC_STALE,
    ST_RALLY_FAILED,
    ST_SUPP,
    ST_VP_O,
    ST_VP_S,
    U_CARRYING,
    U_COVER,
    U_DEF,
    U_DISC,
    U_DISO,
    U_GARR,
    U_MODELS,
    U_NCOLS,
    U_SIDE,
    U_SUPP,
    U_TOKENS,
    U_WD_LOSS,
    W_NCOLS,
    X_DN,
    X_PTR,
    X_VP,
)
from oddslab.rulesets.armoured_clash.strikes import (
    dice_for,
    extra_mask,
    pack_faces,
    pool_hits,
    rating_of,
    retaliate,
    strike,
)

__all__ = [
    "run_armoured_clash",
    "run_trials",
    "run_pool_only",
    "simulate_trial",
    "run_attack",
    "pool_hits",
]


@jit(inline="always")
def _ranged(st, a, AT, W, nu, DC, deck, R, FT, rally_failed):
    """Resolve ranged attack ``a``."""
    att = AT[a, A_ATT]
    tgt = AT[a, A_TGT]
    if AT[a, A_MANOEUVRE] != 0:
        W[att, S_GARR] = 0  # an exit: it attacks, and is attacked, from outside the building
    garr = W[tgt, S_GARR]
    conc = 1 if (garr != 0 or (AT[a, A_CONC] != 0 and AT[a, A_EXPOSED] < 0)) else 0
    aim = 0 if rally_failed != 0 else AT[a, A_AIM]
    rating = rating_of(AT[a, A_STATIC] + aim, -conc - W[att, S_SUPP], AT[a, A_FORCE])
    n = dice_for(att, AT[a, A_COL], W[att, S_GARR] != 0, W, DC)
    hits = pool_hits(st, n, rating, extra_mask(AT[a, A_RR], AT[a, A_RRCMD], att, W), FT)
    W[tgt, S_HITS] += hits
    defence = W[tgt, U_DEF] + garr + (conc & W[tgt, S_COVER])
    dmg = hits // defence
    k = 0
    if dmg > 0:
        k = apply_damage(st, tgt, dmg, AT[a, A_EXPOSED], W, nu)
    # the target of opportunity fire "cannot be suppressed": no test, or (R_NOSTATUS) a test
    # whose failure gives no suppressed status
    if k > 0 and (AT[a, A_OPP] == 0 or R[R_NOSTATUS] != 0):
        suppression_test(st, tgt, W, nu, deck, R, AT[a, A_OPP])


@jit_inner(ints="killed_a killed_t rally_failed first second third who struck", flags="ended")
def run_attack(st, a, AT, W, nu, DC, deck, R, FT):
    """Resolve attack ``a``.

    Returns the close quarters result: 0 none (ranged, or the attack was not made), 1 the
    attacker side won, 2 the defender side won, 3 stalemate.
    """
    att = AT[a, A_ATT]
    tgt = AT[a, A_TGT]
    if W[att, S_GONE] != 0 or W[tgt, S_GONE] != 0:
        return 0
    # a unit that failed its rally test this activation uses its movement step or its attack
    # step, not both: no aim bonus, and no attack that needs a charge / disembark / exit
    rally_failed = 0
    if R[R_ACT] != 0 and AT[a, A_ACTIVE] == att:
        rally_failed = W[att, S_RFAIL]
    if rally_failed != 0 and AT[a, A_MANOEUVRE] != 0:
        return 0
    for u in range(nu):
        W[u, S_START] = W[u, S_M]
    if AT[a, A_KIND] == 0:
        _ranged(st, a, AT, W, nu, DC, deck, R, FT, rally_failed)
        return 0
    # -- close quarters attack ---------------------------------------------------------------
    storming = W[tgt, S_GARR] != 0
    defadv = AT[a, A_DEFADV] != 0 or storming
    half_att = storming or W[att, S_GARR] != 0
    killed_t = 0  # models of the target destroyed (passengers included)
    killed_a = 0
    nsec = AT[a, A_NSEC]
    # the strikes in order: 0 the charger, 1 the target and the secondaries, 2 the target
    # alone, 3 the secondaries alone, -1 none; the target first under a defensive advantage
    # (the secondaries with it, or with R_SEC_AFTER after the charger)
    first = 0
    second = 1
    third = -1
    if defadv:
        sec_after = R[R_SEC_AFTER] != 0
        first = 2 if sec_after else 1
        second = 0
        third = 3 if sec_after else -1
    ended = False
    for phase in range(3):
        who = first if phase == 0 else (second if phase == 1 else third)
        if who < 0:
            break
        if who == 0:  # the charger's strike
            killed_t += strike(
                st,
                att,
                tgt,
                AT[a, A_COL],
                half_att,
                AT[a, A_STATIC],
                AT[a, A_FORCE],
                extra_mask(AT[a, A_RR], AT[a, A_RRCMD], att, W),
                W,
                nu,
                DC,
                FT,
            )
            struck = tgt
        else:  # the target and / or the secondary combatants retaliate (or strike first)
            killed_a += retaliate(st, a, AT, W, nu, DC, FT, R, who != 3, who == 1 or who == 3)
            struck = att
        # "The action ends if the target unit is annihilated"; with R_MOST_KILLS only at the
        # first strike: a later one (a retaliation) is followed by step 4 all the same
        if W[struck, S_GONE] != 0 and (phase == 0 or R[R_MOST_KILLS] == 0):
            ended = True
            break
    # entering contact ends taking cover (the charger, the target, the secondaries)
    W[att, S_COVER] = 0
    W[tgt, S_COVER] = 0
    for i in range(nsec):
        W[AT[a, A_SEC0 + i], S_COVER] = 0
    side_att = W[att, U_SIDE]
    att_wins = 1 + side_att  # result code when the charger wins (1 attacker side, 2 defender)
    tgt_wins = 2 - side_att
    if ended:  # no step 4: the unit left on the table counts as the winner (no withdrawal)
        return att_wins if W[tgt, S_GONE] != 0 else tgt_wins
    if killed_t > killed_a:
        # the target loses: it withdraws (a garrison exits instead) and tests
        if W[tgt, S_GARR] != 0:
            W[tgt, S_GARR] = 0
        else:
            destroy(st, tgt, W[tgt, U_WD_LOSS], W, nu, np.int64(0))
        for i in range(nsec):
            s2 = AT[a, A_SEC0 + i]
            if W[s2, S_GARR] != 0:
                W[s2, S_GARR] = 0
            else:
                destroy(st, s2, W[s2, U_WD_LOSS], W, nu, np.int64(0))
        suppression_test(st, tgt, W, nu, deck, R, np.int64(0))
        return att_wins
    if killed_a > killed_t:
        # the charger loses: it withdraws (a garrison attacking from inside its building exits
        # instead, unless R_GARR_CHARGED) and tests
        if W[att, S_GARR] != 0 and R[R_GARR_CHARGED] == 0:
            W[att, S_GARR] = 0
        else:
            destroy(st, att, W[att, U_WD_LOSS], W, nu, np.int64(0))
        suppression_test(st, att, W, nu, deck, R, np.int64(0))
        return tgt_wins
    destroy(st, att, W[att, U_WD_LOSS], W, nu, np.int64(0))  # a stalemate: the attacker withdraws
    return 3


@jit(inline="always")
def reset_state(W, nu):
    """Every unit's state columns back to the starting values; VPs and deck pointers to 0."""
    for u in range(nu):
        for j in range(U_NCOLS, W_NCOLS):
            W[u, j] = 0
        W[u, S_M] = W[u, U_MODELS]
        W[u, S_T] = W[u, U_TOKENS]
        W[u, S_SUPP] = W[u, U_SUPP]
        W[u, S_DISO] = W[u, U_DISO]
        W[u, S_COVER] = W[u, U_COVER]
        W[u, S_GARR] = W[u, U_GARR]
    for side in range(2):
        W[nu + side, X_VP] = 0
        W[nu + side, X_PTR] = 0


@jit_noalloc(inline="always")
def simulate_trial(st, AT, W, nu, DC, R, deck, FT, res):
    """One trial: every step in order (activations start and end around them), then the
    focus unit's rally test at its next activation; fills ``res`` (``ST_*``).

    Inlined into its one caller, :func:`run_trials`: compiled apart, its code would be
    linked into the caller and optimised and emitted a second time."""
    reset_state(W, nu)
    qc = 0
    act_on = R[R_ACT] != 0
    for a in range(AT.shape[0]):
        act = AT[a, A_ACTIVE]
        if act_on and AT[a, A_NEWACT] != 0:
            start_activation(st, act, W, nu, deck, R)
        r = run_attack(st, a, AT, W, nu, DC, deck, R, FT)
        if AT[a, A_KIND] == 1 and r > 0:
            qc = r
        if act_on and AT[a, A_ENDACT] != 0:
            end_activation(act, W, R)
    f = R[R_FOCUS]
    side = W[f, U_SIDE]
    on_table = W[f, S_GONE] == 0
    rally_failed = 0
    full = 1 if on_table else 0
    if on_table and W[f, S_SUPP] != 0:
        if R[R_RALLY] != 0:
            card = draw(st, deck, W, nu, side)
            if card > W[f, U_DISC] - W[f, S_DISO]:
                rally_failed = 1
                full = 0
        else:
            full = 0
    res[ST_HITS] = W[f, S_HITS]
    res[ST_DMG] = W[f, S_DMG]
    res[ST_LOST] = W[f, S_LOST]
    res[ST_OFFICER] = W[f, S_OFFL]
    res[ST_SUPP] = 1 if (on_table and W[f, S_SUPP] != 0) else 0
    res[ST_FB] = W[f, S_FB]
    res[ST_BROKE] = W[f, S_BRK]
    res[ST_ANNIH] = W[f, S_GONE]
    res[ST_VP_O] = W[nu + 1 - side, X_VP]
    res[ST_VP_S] = W[nu + side, X_VP]
    own = 0
    other = 0
    for u in range(nu):
        if W[u, U_SIDE] == side:
            own += W[u, S_LOST]
        else:
            other += W[u, S_LOST]
    res[ST_LOST_O] = other
    res[ST_LOST_S] = own
    res[ST_RALLY_FAILED] = rally_failed
    res[ST_FULL] = full
    res[ST_QC_ATT] = 1 if qc == 1 else 0
    res[ST_QC_DEF] = 1 if qc == 2 else 0
    res[ST_QC_STALE] = 1 if qc == 3 else 0
    c = W[f, U_CARRYING]
    if c >= 0:
        res[ST_EMB_LOST] = W[c, S_LOST]
        res[ST_EMB_SUPP] = 1 if (W[c, S_GONE] == 0 and W[c, S_SUPP] != 0) else 0
        res[ST_EMB_ANNIH] = W[c, S_GONE]
    else:
        res[ST_EMB_LOST] = 0
        res[ST_EMB_SUPP] = 0
        res[ST_EMB_ANNIH] = 0


def pack_units(UI, dn):
    """``W`` int64[U + 2, W_NCOLS]: unit tables and state in one array, plus one row per side
    (numpy, per chunk).

    Columns ``0..U_NCOLS-1`` of unit rows are ``UI``; the state columns ``S_*`` follow. Rows
    ``U`` and ``U + 1`` hold each side's VPs, cards drawn and deck size (``X_*``).
    """
    nu = UI.shape[0]
    W = np.zeros((nu + 2, W_NCOLS), dtype=np.int64)
    W[:nu, :U_NCOLS] = UI[:, :U_NCOLS]
    W[nu : nu + 2, X_DN] = dn[:2]
    return W


def _prologue(
    seed, ntr, hist, rec, AT, UI, DC, R, deck0, dn, face_score, explode, rr_tiers, kinds, slots
):
    """Per-chunk setup (Python): the arguments of :func:`run_trials` for ``ntr`` trials from
    the seed words ``seed`` (uint64[4]) into ``hist`` (int64[n_stats, n_bins]) and the
    chunk's records ``rec`` (int32[r, n_stats], handed on as it is).

    All scratch (the packed unit table ``W``, the deck, the face table, ``res``) is made once
    per chunk, so no two threads write one array, and the compiled loop allocates nothing.
    """
    W = pack_units(UI, dn)
    FT = pack_faces(face_score, explode, rr_tiers, kinds)
    res = np.zeros(N_STATS, dtype=np.int64)
    nu = np.int64(UI.shape[0])
    return (seed_state(seed), ntr, hist, rec, AT, W, nu, DC, R, deck0.copy(), FT, res, slots)


@jit_noalloc(vectorize=False)
def run_trials(st, ntr, hist, rec, AT, W, nu, DC, R, deck, FT, res, slots):
    """``ntr`` trials of one chunk (serial), histogrammed into ``hist[slots[s], value]``
    (int64[n_stats, n_bins]) for the statistics ``ST_*``; ``slots[s]`` is -1 for a
    statistic that is not reported. With ``rec`` (int32[r, n_stats]) not empty, trial ``t``
    also writes those values to ``rec[t, slots[s]]`` (the records contract of
    :mod:`oddslab._kernels.chunks`). The arrays after ``rec`` are those of
    :func:`_prologue`."""
    keep = rec.shape[0] > 0
    for t in range(ntr):
        simulate_trial(st, AT, W, nu, DC, R, deck, FT, res)
        for s in range(N_STATS):
            slot = slots[s]
            if slot >= 0:
                hist[slot, res[s]] += 1
        if keep:
            for s in range(N_STATS):
                slot = slots[s]
                if slot >= 0:
                    rec[t, slot] = res[s]


#: Engine kernel (contract in :mod:`oddslab.engine`): :func:`run_trials` on the arguments of
#: :func:`_prologue`, for each chunk of a batch, on threads
#: (:class:`~oddslab._kernels.chunks.ChunkKernel`).
run_armoured_clash = ChunkKernel(run_trials, "run_armoured_clash", prologue=_prologue, records=True)


def _pool_prologue(seed, ntr, hist, rec, n, rating, face_score, explode, rr_tiers, kinds):
    FT = pack_faces(face_score, explode, rr_tiers, kinds)
    return (seed_state(seed), ntr, hist, rec, n, rating, FT)


@jit_noalloc
def pool_trials(st, ntr, hist, rec, n, rating, FT):
    """One chunk of :data:`run_pool_only`: ``hist[0, hits]`` of one attack pool per trial
    (and ``rec[t, 0] = hits`` when ``rec``, int32[r, 1], is not empty)."""
    keep = rec.shape[0] > 0
    for t in range(ntr):
        h = pool_hits(st, n, rating, 0, FT)
        hist[0, h] += 1
        if keep:
            rec[t, 0] = h


#: Engine kernel: the hits of one attack pool (for checks and benchmarks); its jobs declare
#: ``records=True``.
run_pool_only = ChunkKernel(pool_trials, "run_pool_only", prologue=_pool_prologue, records=True)
