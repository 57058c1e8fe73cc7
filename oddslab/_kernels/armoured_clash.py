"""Kernel for Armoured Clash: a sequence of ranged / close quarters attacks in one trial.

The ruleset (:mod:`oddslab.rulesets.armoured_clash`) turns units and attacks into integer
tables; this module only reads them. Every unit taking part has a row of static values
(``UI[u, U_*]``) and a row of per-trial state (``S[u, S_*]``); every attack has a row of
``AT[a, A_*]``. Attack dice columns live in ``DC[col, m]`` (dice for ``m`` counted models, or
for ``m`` damage tokens on a behemoth). Each side has its own C&C deck; cards are drawn
without replacement (a partial Fisher-Yates draw from the not-yet-drawn part of the array,
which is uniform whatever order earlier trials left the array in), and the deck carries over
from attack to attack within a trial.

The attack pool itself is :func:`oddslab._kernels.pools.roll_pool` (heroic strikes explode
once, one re-roll tier, re-rolled heroics add no dice).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from oddslab._jit import jit, jit_parallel
from oddslab._kernels.pools import roll_pool
from oddslab._kernels.rng import new_state, randint

# -- unit table UI[u, :] -----------------------------------------------------------------------
U_SIDE = 0  # 0 or 1: whose C&C deck it draws from, who scores its VPs (the other side)
U_DEF = 1  # DEFENCE
U_DL = 2  # DAMAGE LIMIT
U_DISC = 3  # DISCIPLINE
U_BREAK = 4  # BREAK LIMIT, -1 = cannot break
U_VP = 5  # VP rating at its reinforcement level
U_OFFICER = 6  # 0 officer dies with the first casualty, 1 last, 2 a random model
U_CMDR = 7  # 1 = within 6" of a friendly commander: cannot become disordered
U_NOSUPP = 8  # 1 = cannot be suppressed (aircraft): no suppression tests
U_CAP = 9  # transport capacity per model (0 = not a transport)
U_CARRYING = 10  # index of the embarked unit, -1 none
U_CARRIED = 11  # 1 = this unit is embarked on a transport
U_FB_LOSS = 12  # models removed when it falls back (blocked), >= 0
U_FLEES = 13  # 1 = falling back takes it off its own edge: annihilated
U_WD_LOSS = 14  # models destroyed when it withdraws from a close quarters combat
U_BYDMG = 15  # 1 = dice columns indexed by damage tokens (behemoth)
U_MODELS = 16  # models at the start of the sequence
U_TOKENS = 17  # damage tokens at the start
U_SUPP = 18  # statuses at the start
U_DISO = 19
U_COVER = 20
U_GARR = 21
U_MELEE = 22  # dice column of its retaliation (melee) attack, -1 = no MELEE score
U_NCOLS = 23

# -- per-trial state S[u, :] -------------------------------------------------------------------
S_M = 0  # models
S_T = 1  # damage tokens
S_SUPP = 2
S_DISO = 3
S_COVER = 4
S_GARR = 5
S_GONE = 6  # annihilated / broken / fled
S_OFFL = 7  # officer lost at least once
S_FB = 8  # fell back at least once
S_BRK = 9  # broke
S_LOST = 10  # models destroyed (damage, withdrawal, falling back, transport capacity)
S_HITS = 11  # hits taken
S_DMG = 12  # damage points taken
S_START = 13  # models at the start of the current attack
S_NCOLS = 14

# -- attack table AT[a, :] ---------------------------------------------------------------------
A_KIND = 0  # 0 ranged, 1 close quarters
A_ATT = 1
A_TGT = 2
A_COL = 3  # attacker's dice column
A_STATIC = 4  # bonuses - penalties known in advance (suppressed/concealed are added live)
A_CONC = 5  # situation says concealed (before prioritising exposed models)
A_EXPOSED = 6  # prioritise exposed models: how many are exposed; -1 = not prioritising
A_OPP = 7  # opportunity fire: the target cannot be suppressed
A_DEFADV = 8  # defensive advantage (charged through difficult terrain)
A_RSTATIC = 9  # retaliation: bonuses - penalties known in advance
A_FORCE = 10  # forced combat rating 0/1/2, -1 = computed
A_RFORCE = 11
A_RR = 12  # bitmask of extra re-rollable face kinds (special rule / command), attacker
A_RRR = 13  # same for the retaliating units
A_NSEC = 14  # secondary combatants
A_SEC0 = 15  # ... A_SEC0 + MAX_SEC - 1
MAX_SEC = 4
A_NCOLS = A_SEC0 + MAX_SEC

# -- rule switches R[:] -----------------------------------------------------------------------
R_EMB_ALWAYS = 0  # 1: the embarked unit tests whenever its transport tests; 0: only on a fail
R_RALLY = 1  # 1: the focus unit takes a rally test at the end if suppressed
R_FOCUS = 2  # index of the unit the statistics describe
R_NCOLS = 3

# -- statistics res[:] ---------------------------------------------------------------------------
ST_HITS = 0
ST_DMG = 1
ST_DESTROYED = 2
ST_OFFICER = 3
ST_SUPP = 4
ST_FB = 5
ST_BROKE = 6
ST_ANNIH = 7
ST_VP = 8
ST_VP_AGAINST = 9
ST_ATT_LOST = 10
ST_DEF_LOST = 11
ST_RALLY_FAILED = 12
ST_FULL = 13
ST_QC = 14  # 0 no close quarters, 1 attacker won, 2 defender won, 3 stalemate (last one)
ST_QC_ATT = 15
ST_QC_DEF = 16
ST_QC_STALE = 17
ST_EMB_LOST = 18
ST_EMB_SUPP = 19
ST_EMB_ANNIH = 20
N_STATS = 21

# face kinds
HEROIC = 0
STRIKE = 1
GLANCING = 2
MISS = 3
BLANK = 4


@jit(inline="always")
def draw_card(st, deck, n, ptr, side):
    """Draw one card from side ``side``'s deck without replacement; returns its value.

    ``deck[side, :n[side]]`` holds the cards, ``ptr[side]`` how many are drawn. When the deck
    runs out (communications breakdown) the discards are shuffled back: drawing restarts.
    """
    k = n[side]
    if ptr[side] >= k:
        ptr[side] = 0
    p = ptr[side]
    j = p + randint(st, k - p)
    card = deck[side, j]
    deck[side, j] = deck[side, p]
    deck[side, p] = card
    ptr[side] = p + 1
    return card


@jit(inline="always")
def pool_hits(st, n, rating, rr_extra, face_score, explode, rr_tiers, kinds, rr_buf, scratch):
    """Hits of one attack pool of ``n`` dice at ``rating`` (0 weakened, 1 neutral, 2 improved).

    ``rr_extra`` is a bitmask over face kinds that a special rule adds to the re-roll tier.
    """
    if n <= 0:
        return 0
    if rr_extra == 0:
        rr = rr_tiers[rating]
    else:
        for f in range(kinds.shape[0]):
            rr_buf[f] = rr_tiers[rating, f] | ((rr_extra >> kinds[f]) & 1)
        rr = rr_buf
    return roll_pool(st, n, face_score, explode, 1, rr, False, 0, True, scratch)


@jit(inline="always")
def _rating(static, live, force):
    if force >= 0:
        return force
    d = static + live
    return 2 if d > 0 else (1 if d == 0 else 0)


@jit
def annihilate(u, UI, S, vp):
    """Remove unit ``u`` from play (annihilated): the other side scores its VPs."""
    if S[u, S_GONE] != 0:
        return
    S[u, S_GONE] = 1
    S[u, S_M] = 0
    S[u, S_T] = 0
    vp[1 - UI[u, U_SIDE]] += UI[u, U_VP]
    c = UI[u, U_CARRYING]
    if c >= 0 and S[c, S_GONE] == 0:
        # a transport leaving play takes its passengers with it: all are destroyed
        S[c, S_LOST] += S[c, S_M]
        S[c, S_OFFL] = 1
        S[c, S_M] = 0
        S[c, S_T] = 0
        S[c, S_GONE] = 1
        vp[1 - UI[c, U_SIDE]] += UI[c, U_VP]


@jit
def _remove(st, u, k, UI, S, vp):
    """Destroy ``k`` models of unit ``u`` (no transport follow-up); returns models destroyed."""
    m = S[u, S_M]
    if k > m:
        k = m
    if k <= 0:
        return 0
    mode = UI[u, U_OFFICER]
    lost = False
    if k == m:
        lost = True
    elif mode == 0:
        lost = S[u, S_OFFL] == 0  # the officer is the first casualty; its successor stays back
    elif mode == 2:
        lost = randint(st, m) < k  # the officer is a random one of the m models
    if lost:
        S[u, S_OFFL] = 1
        if UI[u, U_CMDR] == 0:
            S[u, S_DISO] = 1
    S[u, S_M] = m - k
    S[u, S_LOST] += k
    if m - k == 0:
        annihilate(u, UI, S, vp)
    return k


@jit
def destroy(st, u, k, UI, S, vp):
    """Destroy ``k`` models of ``u``; a transport's lost capacity destroys passengers too.

    Returns the models destroyed, passengers included (they count towards close quarters).
    """
    done = _remove(st, u, k, UI, S, vp)
    c = UI[u, U_CARRYING]
    if done > 0 and c >= 0 and S[c, S_GONE] == 0:
        cap = UI[u, U_CAP] * S[u, S_M]
        if S[c, S_M] > cap:
            done += _remove(st, c, S[c, S_M] - cap, UI, S, vp)
    return done


@jit(inline="always")
def apply_damage(st, u, dmg, exposed, UI, S, vp):
    """Add ``dmg`` damage to ``u``; each DAMAGE LIMIT reached destroys a model.

    With ``exposed >= 0`` only that many models can be destroyed; once they are, the rest of
    the damage is discarded. Returns the models destroyed (passengers included).
    """
    if dmg <= 0 or S[u, S_GONE] != 0:
        return 0
    S[u, S_DMG] += dmg
    dl = UI[u, U_DL]
    total = S[u, S_T] + dmg
    k = total // dl
    S[u, S_T] = total - k * dl
    if exposed >= 0 and k >= exposed:
        k = exposed
        S[u, S_T] = 0
    if k >= S[u, S_M]:
        S[u, S_T] = 0
    return destroy(st, u, k, UI, S, vp)


@jit(inline="always")
def _test_one(st, u, UI, S, vp, deck, dn, ptr):
    """One suppression test for ``u``; returns 1 if it failed."""
    if S[u, S_GONE] != 0 or UI[u, U_NOSUPP] != 0:
        return 0
    card = draw_card(st, deck, dn, ptr, UI[u, U_SIDE])
    start = S[u, S_START]
    disc = UI[u, U_DISC] - S[u, S_DISO]
    if 2 * (start - S[u, S_M]) >= start:
        disc -= 1
    if card <= disc:
        return 0
    if UI[u, U_BREAK] >= 0 and S[u, S_M] <= UI[u, U_BREAK]:
        S[u, S_BRK] = 1
        annihilate(u, UI, S, vp)
    elif S[u, S_SUPP] != 0:
        S[u, S_FB] = 1
        if UI[u, U_CARRIED] == 0:
            S[u, S_GARR] = 0  # a garrison falls back by exiting the building
            destroy(st, u, UI[u, U_FB_LOSS], UI, S, vp)
            if UI[u, U_FLEES] != 0:
                annihilate(u, UI, S, vp)
    else:
        S[u, S_SUPP] = 1
    return 1


@jit(inline="always")
def suppression_test(st, u, UI, S, vp, deck, dn, ptr, R):
    """Suppression test for ``u`` and, if it is an occupied transport, for its passengers."""
    failed = _test_one(st, u, UI, S, vp, deck, dn, ptr)
    c = UI[u, U_CARRYING]
    if c >= 0 and (R[R_EMB_ALWAYS] != 0 or failed != 0):
        _test_one(st, c, UI, S, vp, deck, dn, ptr)


@jit(inline="always")
def _dice_for(u, col, half, UI, S, DC):
    if col < 0 or S[u, S_GONE] != 0:
        return 0
    if UI[u, U_BYDMG] != 0:
        return DC[col, S[u, S_T]]
    m = S[u, S_M]
    if half:
        m = (m + 1) // 2
    return DC[col, m]


@jit
def _strike(
    st,
    a,
    u,
    t,
    col,
    half,
    static,
    force,
    rr_extra,
    UI,
    S,
    DC,
    vp,
    face_score,
    explode,
    rr_tiers,
    kinds,
    rr_buf,
    scratch,
):
    """Close quarters attack pool of ``u`` against ``t``; returns models of ``t`` destroyed."""
    n = _dice_for(u, col, half, UI, S, DC)
    if n <= 0 or S[t, S_GONE] != 0:
        return 0
    rating = _rating(static, -S[u, S_SUPP], force)
    hits = pool_hits(st, n, rating, rr_extra, face_score, explode, rr_tiers, kinds, rr_buf, scratch)
    S[t, S_HITS] += hits
    return apply_damage(st, t, hits // UI[t, U_DEF], -1, UI, S, vp)


@jit(inline="always")
def run_attack(
    st,
    a,
    AT,
    UI,
    S,
    DC,
    vp,
    deck,
    dn,
    ptr,
    R,
    face_score,
    explode,
    rr_tiers,
    kinds,
    rr_buf,
    scratch,
):
    """Resolve attack ``a``; returns the close quarters result (0 none/ranged, 1-3)."""
    att = AT[a, A_ATT]
    tgt = AT[a, A_TGT]
    if S[att, S_GONE] != 0 or S[tgt, S_GONE] != 0:
        return 0
    for u in range(S.shape[0]):
        S[u, S_START] = S[u, S_M]
    if AT[a, A_KIND] == 0:
        # -- ranged attack ---------------------------------------------------------------------
        garr = S[tgt, S_GARR]
        conc = 1 if (garr != 0 or (AT[a, A_CONC] != 0 and AT[a, A_EXPOSED] < 0)) else 0
        rating = _rating(AT[a, A_STATIC], -conc - S[att, S_SUPP], AT[a, A_FORCE])
        n = _dice_for(att, AT[a, A_COL], S[att, S_GARR] != 0, UI, S, DC)
        hits = pool_hits(
            st, n, rating, AT[a, A_RR], face_score, explode, rr_tiers, kinds, rr_buf, scratch
        )
        S[tgt, S_HITS] += hits
        defence = UI[tgt, U_DEF] + garr + (conc & S[tgt, S_COVER])
        dmg = hits // defence
        k = 0
        if dmg > 0:
            k = apply_damage(st, tgt, dmg, AT[a, A_EXPOSED], UI, S, vp)
        if k > 0 and AT[a, A_OPP] == 0:
            suppression_test(st, tgt, UI, S, vp, deck, dn, ptr, R)
        return 0
    # -- close quarters attack ---------------------------------------------------------------
    storming = S[tgt, S_GARR] != 0
    defadv = AT[a, A_DEFADV] != 0 or storming
    half_att = storming or S[att, S_GARR] != 0
    killed_t = 0  # models of the target destroyed (passengers included)
    killed_a = 0
    nsec = AT[a, A_NSEC]
    ended = False
    for phase in range(2):
        if (phase == 0) != defadv:  # the attacker's strike
            if S[att, S_GONE] != 0:
                ended = True
                break
            killed_t += _strike(
                st,
                a,
                att,
                tgt,
                AT[a, A_COL],
                half_att,
                AT[a, A_STATIC],
                AT[a, A_FORCE],
                AT[a, A_RR],
                UI,
                S,
                DC,
                vp,
                face_score,
                explode,
                rr_tiers,
                kinds,
                rr_buf,
                scratch,
            )
            if S[tgt, S_GONE] != 0:
                ended = True  # the action ends when the target is annihilated
                break
        else:  # the target and any secondary combatants retaliate (or strike first)
            if S[tgt, S_GONE] != 0:
                ended = True
                break
            killed_a += _strike(
                st,
                a,
                tgt,
                att,
                UI[tgt, U_MELEE],
                S[tgt, S_GARR] != 0,
                AT[a, A_RSTATIC],
                AT[a, A_RFORCE],
                AT[a, A_RRR],
                UI,
                S,
                DC,
                vp,
                face_score,
                explode,
                rr_tiers,
                kinds,
                rr_buf,
                scratch,
            )
            for i in range(nsec):
                s2 = AT[a, A_SEC0 + i]
                killed_a += _strike(
                    st,
                    a,
                    s2,
                    att,
                    UI[s2, U_MELEE],
                    S[s2, S_GARR] != 0,
                    AT[a, A_RSTATIC],
                    AT[a, A_RFORCE],
                    AT[a, A_RRR],
                    UI,
                    S,
                    DC,
                    vp,
                    face_score,
                    explode,
                    rr_tiers,
                    kinds,
                    rr_buf,
                    scratch,
                )
            if S[att, S_GONE] != 0:
                ended = True
                break
    # entering contact ends taking cover on both sides
    S[att, S_COVER] = 0
    S[tgt, S_COVER] = 0
    if ended:
        if S[tgt, S_GONE] != 0 and S[att, S_GONE] == 0:
            return 1
        if S[att, S_GONE] != 0 and S[tgt, S_GONE] == 0:
            return 2
        return 1 if killed_t > killed_a else (2 if killed_a > killed_t else 3)
    if killed_t > killed_a:
        # the target loses: it withdraws (a garrison exits instead) and tests
        if S[tgt, S_GARR] != 0:
            S[tgt, S_GARR] = 0
        else:
            destroy(st, tgt, UI[tgt, U_WD_LOSS], UI, S, vp)
        for i in range(nsec):
            s2 = AT[a, A_SEC0 + i]
            if S[s2, S_GARR] != 0:
                S[s2, S_GARR] = 0
            else:
                destroy(st, s2, UI[s2, U_WD_LOSS], UI, S, vp)
        suppression_test(st, tgt, UI, S, vp, deck, dn, ptr, R)
        return 1
    destroy(st, att, UI[att, U_WD_LOSS], UI, S, vp)  # the attacker withdraws either way
    if killed_a > killed_t:
        suppression_test(st, att, UI, S, vp, deck, dn, ptr, R)
        return 2
    return 3


@jit
def reset_state(UI, S):
    for u in range(S.shape[0]):
        for j in range(S_NCOLS):
            S[u, j] = 0
        S[u, S_M] = UI[u, U_MODELS]
        S[u, S_T] = UI[u, U_TOKENS]
        S[u, S_SUPP] = UI[u, U_SUPP]
        S[u, S_DISO] = UI[u, U_DISO]
        S[u, S_COVER] = UI[u, U_COVER]
        S[u, S_GARR] = UI[u, U_GARR]


@jit(inline="always")
def simulate_trial(
    st,
    AT,
    UI,
    DC,
    R,
    S,
    vp,
    deck,
    dn,
    ptr,
    face_score,
    explode,
    rr_tiers,
    kinds,
    rr_buf,
    scratch,
    res,
):
    """One trial: every attack in order, then the focus unit's rally test; fills ``res``."""
    reset_state(UI, S)
    vp[0] = 0
    vp[1] = 0
    ptr[0] = 0
    ptr[1] = 0
    qc = 0
    for a in range(AT.shape[0]):
        r = run_attack(
            st,
            a,
            AT,
            UI,
            S,
            DC,
            vp,
            deck,
            dn,
            ptr,
            R,
            face_score,
            explode,
            rr_tiers,
            kinds,
            rr_buf,
            scratch,
        )
        if AT[a, A_KIND] == 1 and r > 0:
            qc = r
    f = R[R_FOCUS]
    side = UI[f, U_SIDE]
    on_table = S[f, S_GONE] == 0
    rally_failed = 0
    full = 1 if on_table else 0
    if on_table and S[f, S_SUPP] != 0:
        if R[R_RALLY] != 0:
            card = draw_card(st, deck, dn, ptr, side)
            if card > UI[f, U_DISC] - S[f, S_DISO]:
                rally_failed = 1
                full = 0
        else:
            full = 0
    res[ST_HITS] = S[f, S_HITS]
    res[ST_DMG] = S[f, S_DMG]
    res[ST_DESTROYED] = S[f, S_LOST]
    res[ST_OFFICER] = S[f, S_OFFL]
    res[ST_SUPP] = 1 if (on_table and S[f, S_SUPP] != 0) else 0
    res[ST_FB] = S[f, S_FB]
    res[ST_BROKE] = S[f, S_BRK]
    res[ST_ANNIH] = S[f, S_GONE]
    res[ST_VP] = vp[1 - side]
    res[ST_VP_AGAINST] = vp[side]
    own = 0
    other = 0
    for u in range(S.shape[0]):
        if UI[u, U_SIDE] == side:
            own += S[u, S_LOST]
        else:
            other += S[u, S_LOST]
    res[ST_ATT_LOST] = other
    res[ST_DEF_LOST] = own
    res[ST_RALLY_FAILED] = rally_failed
    res[ST_FULL] = full
    res[ST_QC] = qc
    res[ST_QC_ATT] = 1 if qc == 1 else 0
    res[ST_QC_DEF] = 1 if qc == 2 else 0
    res[ST_QC_STALE] = 1 if qc == 3 else 0
    c = UI[f, U_CARRYING]
    if c >= 0:
        res[ST_EMB_LOST] = S[c, S_LOST]
        res[ST_EMB_SUPP] = 1 if (S[c, S_GONE] == 0 and S[c, S_SUPP] != 0) else 0
        res[ST_EMB_ANNIH] = S[c, S_GONE]
    else:
        res[ST_EMB_LOST] = 0
        res[ST_EMB_SUPP] = 0
        res[ST_EMB_ANNIH] = 0


@jit
def run_chunk(st, ntr, hist, AT, UI, DC, R, deck0, dn, face_score, explode, rr_tiers, kinds, slots):
    """``ntr`` trials of one chunk (serial), histogrammed into ``hist[slot, value]``."""
    S = np.zeros((UI.shape[0], S_NCOLS), dtype=np.int64)
    vp = np.zeros(2, dtype=np.int64)
    deck = deck0.copy()
    ptr = np.zeros(2, dtype=np.int64)
    rr_buf = np.zeros(kinds.shape[0], dtype=np.uint8)
    scratch = np.zeros(1, dtype=np.int64)
    res = np.zeros(N_STATS, dtype=np.int64)
    for _ in range(ntr):
        simulate_trial(
            st,
            AT,
            UI,
            DC,
            R,
            S,
            vp,
            deck,
            dn,
            ptr,
            face_score,
            explode,
            rr_tiers,
            kinds,
            rr_buf,
            scratch,
            res,
        )
        for s in range(N_STATS):
            slot = slots[s]
            if slot >= 0:
                hist[slot, res[s]] += 1


@jit_parallel
def run_armoured_clash(
    seeds, ntrials, out, AT, UI, DC, R, deck0, dn, face_score, explode, rr_tiers, kinds, slots
):
    """Chunk driver: histograms ``out[c, slots[s], value]`` of the statistics ``ST_*``.

    ``slots[s]`` is the row of ``out`` for statistic ``s``, or -1 when it is not reported.
    Each chunk works on private copies of the tables, so no two threads share an array.
    """
    for c in prange(seeds.shape[0]):
        st = new_state(seeds[c])
        run_chunk(
            st,
            ntrials[c],
            out[c],
            AT.copy(),
            UI.copy(),
            DC.copy(),
            R.copy(),
            deck0.copy(),
            dn.copy(),
            face_score.copy(),
            explode.copy(),
            rr_tiers.copy(),
            kinds.copy(),
            slots.copy(),
        )


@jit_parallel
def run_pool_only(seeds, ntrials, out, n, rating, face_score, explode, rr_tiers, kinds):
    """Chunk driver: histogram of the hits of one attack pool (for checks and benchmarks)."""
    for c in prange(seeds.shape[0]):
        st = new_state(seeds[c])
        rr_buf = np.zeros(kinds.shape[0], dtype=np.uint8)
        scratch = np.zeros(1, dtype=np.int64)
        hist = out[c]
        for _ in range(ntrials[c]):
            h = pool_hits(st, n, rating, 0, face_score, explode, rr_tiers, kinds, rr_buf, scratch)
            hist[0, h] += 1
