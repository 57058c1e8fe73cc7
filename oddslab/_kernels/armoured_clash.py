"""Kernel for Armoured Clash: a sequence of ranged / close quarters attacks in one trial.

The ruleset (:mod:`oddslab.rulesets.armoured_clash`) turns units and attacks into integer
tables; this module only reads them. Every unit taking part has one row of the packed array
``W`` (built per chunk by :func:`pack_units`): static values ``W[u, U_*]`` followed by its
per-trial state ``W[u, S_*]``; two more rows hold each side's VPs and deck pointer. Packing
keeps the non-inlined helpers to one table argument (numba reference-counts every array
argument of a call). Every attack has a row of
``AT[a, A_*]``. Attack dice columns live in ``DC[col, m]`` (dice for ``m`` counted models, or
for ``m`` damage tokens on a behemoth). Each side has its own C&C deck; cards are drawn
without replacement (a partial Fisher-Yates draw from the not-yet-drawn part of the array,
which is uniform whatever order earlier trials left the array in), and the deck carries over
from attack to attack within a trial.

The attack pool (:func:`pool_hits`, faces packed in one table by :func:`pack_faces`) rolls the
same dice in the same order as :func:`oddslab._kernels.pools.roll_pool` would (heroic strikes
explode once, one re-roll tier, re-rolled heroics add no dice).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from oddslab._jit import jit, jit_parallel
from oddslab._kernels.rng import new_state, randint

# -- unit table W[u, :] -----------------------------------------------------------------------
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

# -- per-trial state W[u, S_*] -----------------------------------------------------------------
# The state columns follow the static ones in the same packed array W (one array per chunk,
# so helpers take one table instead of three; see run_chunk).
S_M = U_NCOLS + 0  # models
S_T = U_NCOLS + 1  # damage tokens
S_SUPP = U_NCOLS + 2
S_DISO = U_NCOLS + 3
S_COVER = U_NCOLS + 4
S_GARR = U_NCOLS + 5
S_GONE = U_NCOLS + 6  # annihilated / broken / fled
S_OFFL = U_NCOLS + 7  # officer lost at least once
S_FB = U_NCOLS + 8  # fell back at least once
S_BRK = U_NCOLS + 9  # broke
S_LOST = U_NCOLS + 10  # models destroyed (damage, withdrawal, falling back, transport capacity)
S_HITS = U_NCOLS + 11  # hits taken
S_DMG = U_NCOLS + 12  # damage points taken
S_START = U_NCOLS + 13  # models at the start of the current attack
W_NCOLS = U_NCOLS + 14

# -- per-side rows W[nu + side, X_*] after the nu unit rows --------------------------------------
X_VP = 0  # victory points scored by the side
X_PTR = 1  # cards drawn from its C&C deck
X_DN = 2  # cards in its C&C deck

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
def draw_card(st, deck, W, nu, side):
    """Draw one card from side ``side``'s deck without replacement; returns its value.

    ``deck[side, :k]`` holds the ``k = W[nu + side, X_DN]`` cards, ``W[nu + side, X_PTR]`` how
    many are drawn. When the deck runs out (communications breakdown) the discards are
    shuffled back: drawing restarts.
    """
    row = nu + side
    k = W[row, X_DN]
    if W[row, X_PTR] >= k:
        W[row, X_PTR] = 0
    p = W[row, X_PTR]
    j = p + randint(st, k - p)
    card = deck[side, j]
    deck[side, j] = deck[side, p]
    deck[side, p] = card
    W[row, X_PTR] = p + 1
    return card


# -- packed face table FT[r, f] --------------------------------------------------------------------
F_SCORE = 0  # hits scored by face f
F_EXPL = 1  # 1 = the face adds one die (original dice only)
F_KIND = 2  # face kind (HEROIC .. BLANK)
F_RR0 = 3  # 1 = re-rolled at combat rating 0; F_RR0 + 1, F_RR0 + 2 for ratings 1, 2
F_NROWS = 6


@jit
def pack_faces(face_score, explode, rr_tiers, kinds):
    """``FT`` int64[F_NROWS, faces]: every per-face table of the attack die in one array."""
    k = face_score.shape[0]
    FT = np.zeros((F_NROWS, k), dtype=np.int64)
    for f in range(k):
        FT[F_SCORE, f] = face_score[f]
        FT[F_EXPL, f] = 1 if explode[f] != 0 else 0
        FT[F_KIND, f] = kinds[f]
        for r in range(3):
            FT[F_RR0 + r, f] = 1 if rr_tiers[r, f] != 0 else 0
    return FT


@jit(inline="always")
def pool_hits(st, n, rating, rr_extra, FT):
    """Hits of one attack pool of ``n`` dice at ``rating`` (0 weakened, 1 neutral, 2 improved).

    ``rr_extra`` is a bitmask over face kinds that a special rule adds to the re-roll tier.
    The same dice, in the same order, as :func:`oddslab._kernels.pools.roll_pool` with
    ``explode_depth=1``, no re-rolled explosions and no keep: the ``n`` original dice, then one
    added die per heroic strike; each die is re-rolled once if its face is in the tier (and,
    as there, the re-roll die is drawn only when the tier re-rolls some face).
    """
    if n <= 0:
        return 0
    k = FT.shape[1]
    rrow = F_RR0 + rating
    has_rr = False
    for f in range(k):
        if (FT[rrow, f] | ((rr_extra >> FT[F_KIND, f]) & 1)) != 0:
            has_rr = True
    total = np.int64(0)
    added = np.int64(0)
    if has_rr:
        for _ in range(n):
            f = randint(st, k)
            g = randint(st, k)  # always rolled: a select is cheaper than a branch
            r = FT[rrow, f] | ((rr_extra >> FT[F_KIND, f]) & 1)
            total += FT[F_SCORE, f + r * (g - f)]
            added += FT[F_EXPL, f]
        for _ in range(added):
            f = randint(st, k)
            g = randint(st, k)
            r = FT[rrow, f] | ((rr_extra >> FT[F_KIND, f]) & 1)
            total += FT[F_SCORE, f + r * (g - f)]
    else:
        for _ in range(n):
            f = randint(st, k)
            total += FT[F_SCORE, f]
            added += FT[F_EXPL, f]
        for _ in range(added):
            total += FT[F_SCORE, randint(st, k)]
    return total


@jit(inline="always")
def _rating(static, live, force):
    if force >= 0:
        return force
    d = static + live
    return 2 if d > 0 else (1 if d == 0 else 0)


@jit
def annihilate(u, W, nu):
    """Remove unit ``u`` from play (annihilated): the other side scores its VPs."""
    if W[u, S_GONE] != 0:
        return
    W[u, S_GONE] = 1
    W[u, S_M] = 0
    W[u, S_T] = 0
    W[nu + 1 - W[u, U_SIDE], X_VP] += W[u, U_VP]
    c = W[u, U_CARRYING]
    if c >= 0 and W[c, S_GONE] == 0:
        # a transport leaving play takes its passengers with it: all are destroyed
        W[c, S_LOST] += W[c, S_M]
        W[c, S_OFFL] = 1
        W[c, S_M] = 0
        W[c, S_T] = 0
        W[c, S_GONE] = 1
        W[nu + 1 - W[c, U_SIDE], X_VP] += W[c, U_VP]


@jit
def _remove(st, u, k, W, nu):
    """Destroy ``k`` models of unit ``u`` (no transport follow-up); returns models destroyed."""
    m = W[u, S_M]
    if k > m:
        k = m
    if k <= 0:
        return 0
    mode = W[u, U_OFFICER]
    lost = False
    if k == m:
        lost = True
    elif mode == 0:
        lost = W[u, S_OFFL] == 0  # the officer is the first casualty; its successor stays back
    elif mode == 2:
        lost = randint(st, m) < k  # the officer is a random one of the m models
    if lost:
        W[u, S_OFFL] = 1
        if W[u, U_CMDR] == 0:
            W[u, S_DISO] = 1
    W[u, S_M] = m - k
    W[u, S_LOST] += k
    if m - k == 0:
        annihilate(u, W, nu)
    return k


@jit
def destroy(st, u, k, W, nu):
    """Destroy ``k`` models of ``u``; a transport's lost capacity destroys passengers too.

    Returns the models destroyed, passengers included (they count towards close quarters).
    """
    done = _remove(st, u, k, W, nu)
    c = W[u, U_CARRYING]
    if done > 0 and c >= 0 and W[c, S_GONE] == 0:
        cap = W[u, U_CAP] * W[u, S_M]
        if W[c, S_M] > cap:
            done += _remove(st, c, W[c, S_M] - cap, W, nu)
    return done


@jit(inline="always")
def apply_damage(st, u, dmg, exposed, W, nu):
    """Add ``dmg`` damage to ``u``; each DAMAGE LIMIT reached destroys a model.

    With ``exposed >= 0`` only that many models can be destroyed; once they are, the rest of
    the damage is discarded. Returns the models destroyed (passengers included).
    """
    if dmg <= 0 or W[u, S_GONE] != 0:
        return 0
    W[u, S_DMG] += dmg
    dl = W[u, U_DL]
    total = W[u, S_T] + dmg
    k = total // dl
    W[u, S_T] = total - k * dl
    if exposed >= 0 and k >= exposed:
        k = exposed
        W[u, S_T] = 0
    if k >= W[u, S_M]:
        W[u, S_T] = 0
    return destroy(st, u, k, W, nu)


@jit(inline="always")
def _test_one(st, u, W, nu, deck):
    """One suppression test for ``u``; returns 1 if it failed."""
    if W[u, S_GONE] != 0 or W[u, U_NOSUPP] != 0:
        return 0
    card = draw_card(st, deck, W, nu, W[u, U_SIDE])
    start = W[u, S_START]
    disc = W[u, U_DISC] - W[u, S_DISO]
    if 2 * (start - W[u, S_M]) >= start:
        disc -= 1
    if card <= disc:
        return 0
    if W[u, U_BREAK] >= 0 and W[u, S_M] <= W[u, U_BREAK]:
        W[u, S_BRK] = 1
        annihilate(u, W, nu)
    elif W[u, S_SUPP] != 0:
        W[u, S_FB] = 1
        if W[u, U_CARRIED] == 0:
            W[u, S_GARR] = 0  # a garrison falls back by exiting the building
            destroy(st, u, W[u, U_FB_LOSS], W, nu)
            if W[u, U_FLEES] != 0:
                annihilate(u, W, nu)
    else:
        W[u, S_SUPP] = 1
    return 1


@jit(inline="always")
def suppression_test(st, u, W, nu, deck, R):
    """Suppression test for ``u`` and, if it is an occupied transport, for its passengers."""
    failed = _test_one(st, u, W, nu, deck)
    c = W[u, U_CARRYING]
    if c >= 0 and (R[R_EMB_ALWAYS] != 0 or failed != 0):
        _test_one(st, c, W, nu, deck)


@jit(inline="always")
def _dice_for(u, col, half, W, DC):
    if col < 0 or W[u, S_GONE] != 0:
        return 0
    if W[u, U_BYDMG] != 0:
        return DC[col, W[u, S_T]]
    m = W[u, S_M]
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
    W,
    nu,
    DC,
    FT,
):
    """Close quarters attack pool of ``u`` against ``t``; returns models of ``t`` destroyed."""
    n = _dice_for(u, col, half, W, DC)
    if n <= 0 or W[t, S_GONE] != 0:
        return 0
    rating = _rating(static, -W[u, S_SUPP], force)
    hits = pool_hits(st, n, rating, rr_extra, FT)
    W[t, S_HITS] += hits
    return apply_damage(st, t, hits // W[t, U_DEF], -1, W, nu)


@jit(inline="always")
def run_attack(
    st,
    a,
    AT,
    W,
    nu,
    DC,
    deck,
    R,
    FT,
):
    """Resolve attack ``a``; returns the close quarters result (0 none/ranged, 1-3)."""
    att = AT[a, A_ATT]
    tgt = AT[a, A_TGT]
    if W[att, S_GONE] != 0 or W[tgt, S_GONE] != 0:
        return 0
    for u in range(nu):
        W[u, S_START] = W[u, S_M]
    if AT[a, A_KIND] == 0:
        # -- ranged attack ---------------------------------------------------------------------
        garr = W[tgt, S_GARR]
        conc = 1 if (garr != 0 or (AT[a, A_CONC] != 0 and AT[a, A_EXPOSED] < 0)) else 0
        rating = _rating(AT[a, A_STATIC], -conc - W[att, S_SUPP], AT[a, A_FORCE])
        n = _dice_for(att, AT[a, A_COL], W[att, S_GARR] != 0, W, DC)
        hits = pool_hits(st, n, rating, AT[a, A_RR], FT)
        W[tgt, S_HITS] += hits
        defence = W[tgt, U_DEF] + garr + (conc & W[tgt, S_COVER])
        dmg = hits // defence
        k = 0
        if dmg > 0:
            k = apply_damage(st, tgt, dmg, AT[a, A_EXPOSED], W, nu)
        if k > 0 and AT[a, A_OPP] == 0:
            suppression_test(st, tgt, W, nu, deck, R)
        return 0
    # -- close quarters attack ---------------------------------------------------------------
    storming = W[tgt, S_GARR] != 0
    defadv = AT[a, A_DEFADV] != 0 or storming
    half_att = storming or W[att, S_GARR] != 0
    killed_t = 0  # models of the target destroyed (passengers included)
    killed_a = 0
    nsec = AT[a, A_NSEC]
    ended = False
    for phase in range(2):
        if (phase == 0) != defadv:  # the attacker's strike
            if W[att, S_GONE] != 0:
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
                W,
                nu,
                DC,
                FT,
            )
            if W[tgt, S_GONE] != 0:
                ended = True  # the action ends when the target is annihilated
                break
        else:  # the target and any secondary combatants retaliate (or strike first)
            if W[tgt, S_GONE] != 0:
                ended = True
                break
            killed_a += _strike(
                st,
                a,
                tgt,
                att,
                W[tgt, U_MELEE],
                W[tgt, S_GARR] != 0,
                AT[a, A_RSTATIC],
                AT[a, A_RFORCE],
                AT[a, A_RRR],
                W,
                nu,
                DC,
                FT,
            )
            for i in range(nsec):
                s2 = AT[a, A_SEC0 + i]
                killed_a += _strike(
                    st,
                    a,
                    s2,
                    att,
                    W[s2, U_MELEE],
                    W[s2, S_GARR] != 0,
                    AT[a, A_RSTATIC],
                    AT[a, A_RFORCE],
                    AT[a, A_RRR],
                    W,
                    nu,
                    DC,
                    FT,
                )
            if W[att, S_GONE] != 0:
                ended = True
                break
    # entering contact ends taking cover on both sides
    W[att, S_COVER] = 0
    W[tgt, S_COVER] = 0
    if ended:
        if W[tgt, S_GONE] != 0 and W[att, S_GONE] == 0:
            return 1
        if W[att, S_GONE] != 0 and W[tgt, S_GONE] == 0:
            return 2
        return 1 if killed_t > killed_a else (2 if killed_a > killed_t else 3)
    if killed_t > killed_a:
        # the target loses: it withdraws (a garrison exits instead) and tests
        if W[tgt, S_GARR] != 0:
            W[tgt, S_GARR] = 0
        else:
            destroy(st, tgt, W[tgt, U_WD_LOSS], W, nu)
        for i in range(nsec):
            s2 = AT[a, A_SEC0 + i]
            if W[s2, S_GARR] != 0:
                W[s2, S_GARR] = 0
            else:
                destroy(st, s2, W[s2, U_WD_LOSS], W, nu)
        suppression_test(st, tgt, W, nu, deck, R)
        return 1
    destroy(st, att, W[att, U_WD_LOSS], W, nu)  # the attacker withdraws either way
    if killed_a > killed_t:
        suppression_test(st, att, W, nu, deck, R)
        return 2
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


@jit(inline="always")
def simulate_trial(
    st,
    AT,
    W,
    nu,
    DC,
    R,
    deck,
    FT,
    res,
):
    """One trial: every attack in order, then the focus unit's rally test; fills ``res``."""
    reset_state(W, nu)
    qc = 0
    for a in range(AT.shape[0]):
        r = run_attack(
            st,
            a,
            AT,
            W,
            nu,
            DC,
            deck,
            R,
            FT,
        )
        if AT[a, A_KIND] == 1 and r > 0:
            qc = r
    f = R[R_FOCUS]
    side = W[f, U_SIDE]
    on_table = W[f, S_GONE] == 0
    rally_failed = 0
    full = 1 if on_table else 0
    if on_table and W[f, S_SUPP] != 0:
        if R[R_RALLY] != 0:
            card = draw_card(st, deck, W, nu, side)
            if card > W[f, U_DISC] - W[f, S_DISO]:
                rally_failed = 1
                full = 0
        else:
            full = 0
    res[ST_HITS] = W[f, S_HITS]
    res[ST_DMG] = W[f, S_DMG]
    res[ST_DESTROYED] = W[f, S_LOST]
    res[ST_OFFICER] = W[f, S_OFFL]
    res[ST_SUPP] = 1 if (on_table and W[f, S_SUPP] != 0) else 0
    res[ST_FB] = W[f, S_FB]
    res[ST_BROKE] = W[f, S_BRK]
    res[ST_ANNIH] = W[f, S_GONE]
    res[ST_VP] = W[nu + 1 - side, X_VP]
    res[ST_VP_AGAINST] = W[nu + side, X_VP]
    own = 0
    other = 0
    for u in range(nu):
        if W[u, U_SIDE] == side:
            own += W[u, S_LOST]
        else:
            other += W[u, S_LOST]
    res[ST_ATT_LOST] = other
    res[ST_DEF_LOST] = own
    res[ST_RALLY_FAILED] = rally_failed
    res[ST_FULL] = full
    res[ST_QC] = qc
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


@jit
def pack_units(UI, dn):
    """``W`` int64[U + 2, W_NCOLS]: unit tables and state in one array, plus one row per side.

    Columns ``0..U_NCOLS-1`` of unit rows are ``UI``; the state columns ``S_*`` follow. Rows
    ``U`` and ``U + 1`` hold each side's VPs, cards drawn and deck size (``X_*``).
    """
    nu = UI.shape[0]
    W = np.zeros((nu + 2, W_NCOLS), dtype=np.int64)
    for u in range(nu):
        for j in range(U_NCOLS):
            W[u, j] = UI[u, j]
    for side in range(2):
        W[nu + side, X_DN] = dn[side]
    return W


@jit
def run_chunk(st, ntr, hist, AT, UI, DC, R, deck0, dn, face_score, explode, rr_tiers, kinds, slots):
    """``ntr`` trials of one chunk (serial), histogrammed into ``hist[slot, value]``.

    All scratch (the packed unit table ``W``, the deck, ``res``) is made once per chunk.
    """
    nu = UI.shape[0]
    W = pack_units(UI, dn)
    FT = pack_faces(face_score, explode, rr_tiers, kinds)
    deck = deck0.copy()
    res = np.zeros(N_STATS, dtype=np.int64)
    for _ in range(ntr):
        simulate_trial(st, AT, W, nu, DC, R, deck, FT, res)
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
        FT = pack_faces(face_score, explode, rr_tiers, kinds)
        hist = out[c]
        for _ in range(ntrials[c]):
            h = pool_hits(st, n, rating, 0, FT)
            hist[0, h] += 1
