"""Numba kernels for formation actions: one trial plays N turns of a two-army game.

Everything a game needs lives in one packed ``int64`` array ``G`` built by :mod:`.compile`
(one array instead of several because every array argument of a call costs reference
counting; the game is one function over ``G`` and the generator state ``st``):

``G[0:H_SIZE]``
    rule switches ``R_*`` and the offsets ``H_*`` of the sections below.
``G[H_FOFF ...]``
    one row of ``F_NCOLS`` per formation (army 0's formations first, then army 1's).
``G[H_AOFF ...]``
    one row of ``A_NCOLS`` per army.
``G[H_POFF ...]``
    one formation index per formation: each army's formations in activation order when
    that order is fixed (listed, or best/worst-first when chances never change, i.e. the
    action test's -1 does not depend on Shock).
``G[H_WOFF ...]``
    per-trial state: the Shock of each formation.
``G[H_ROFF ...]``
    the per-trial statistics row (layout in :mod:`.compile`).

``cdf`` float64[F, 22] holds cumulative outside-Shock probabilities for formations whose
outside Shock is a table. ``st`` is the generator state (uint64[6]); a scripted state
(:func:`play_scripted`) carries word 6 = index of the next scripted die and D6 results from
word 7 on.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit, jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import d6 as roll_d6
from oddslab._kernels.rng import new_state, next_u64, randint

# header: rule switches
R_TURNS = 0
R_PENALTY = 1  # 0 suppressed, 1 shock, 2 either, 3 both
R_NAT1 = 2
R_NAT6 = 3
R_RALLY_PEN = 4
R_RETAIN_LIMIT = 5  # 0 in-a-row, 1 once-per-turn
R_WITHDRAW = 6  # 0 stays-broken, 1 removed
R_BREAK = 7  # 0 immediate, 1 end-phase
R_OS_TIMING = 8  # 0 before-rally, 1 start-of-turn
R_FIRST_TIE = 9  # -1 reroll, else the army index
# header: layout
H_NF = 10
H_FOFF = 11
H_AOFF = 12
H_WOFF = 13
H_ROFF = 14
H_NSLOTS = 15
H_POFF = 16  # activation order: formation indices, each army's block sorted by its policy
H_SIZE = 17

# formation columns
F_ARMY = 0
F_COMMAND = 1
F_UNITS = 2
F_SUPP = 3
F_SHOCK0 = 4
F_BROKEN0 = 5
F_THRESH = 6
F_NEAR = 7
F_OS_KIND = 8  # 0 none, 1 fixed, 2 dice, 3 table
F_OS_N = 9  # fixed value, or number of dice
F_OS_SIDES = 10
F_OS_ADD = 11
F_STAT0 = 12
F_NCOLS = 13
# formation statistic offsets (then N shock_after_turn, N broken_by_turn, N action_turn)
FS_ACTIONS = 0
FS_HOLDS = 1
FS_RALLIED = 2
FS_WITHDRAWALS = 3
FS_SHOCK = 4

# army columns
A_STRAT = 0
A_RETAIN = 1  # 0 never, 1 if-chance, 2 always
A_MINFACES = 2
A_ORDER = 3  # 0 listed, 1 best-first, 2 worst-first
A_CHOOSE = 4  # 0 first, 1 second
A_START = 5  # first formation row
A_STOP = 6
A_STAT0 = 7
A_NCOLS = 8
# army statistic offsets: won, withdrawals, N actions_turn, N holds_turn, N broken_after_turn,
# retain_attempts, retained, N won_strategy_turn
AS_WON = 0
AS_WITHDRAWALS = 1
AS_TURNS = 2

# per-trial state rows (flags are bit masks in registers, see play_game)
W_SHOCK = 0
W_NROWS = 1

_INV53 = 1.0 / 9007199254740992.0
_ELEVEN = np.uint64(11)
_ONE = np.uint64(1)


@jit_noalloc(inline="always")
def d6(st):
    """One D6 (1-6): the next scripted result if any are left, else from the generator.

    Draws the same lanes as ``randint(st, 6) + 1`` (exactly uniform).
    """
    if st.shape[0] > 6:
        i = st[6]
        if i < st.shape[0]:
            st[6] = i + _ONE
            return np.int64(st[i])
    return roll_d6(st)


@jit_noalloc(inline="always")
def passes(roll, target, nat1, nat6):
    """Whether a D6 ``roll`` passes a test against the modified rating ``target``."""
    ok = roll <= target
    ok = ok or (nat1 != 0 and roll == 1)
    return ok and not (nat6 != 0 and roll == 6)


@jit_noalloc(inline="always")
def faces(target, nat1, nat6):
    """Passing faces (of 6) against ``target`` (closed form of counting :func:`passes`)."""
    n = min(max(target, 0), 6)
    if nat1 != 0 and n < 1:
        n = 1
    if nat6 != 0 and n > 5:
        n = 5
    return n


@jit_noalloc(inline="always")
def penalty(suppressed, shock, mode):
    """The action test's modifier (0, 1 or 2) under reading ``mode`` (``R_PENALTY``)."""
    sup = 1 if suppressed != 0 else 0
    sh = 1 if shock > 0 else 0
    if mode == 0:
        return sup
    if mode == 1:
        return sh
    if mode == 2:
        return sup if sup > sh else sh
    return sup + sh


@jit_noalloc
def outside_draw(st, G, cdf, row, f):
    """Outside Shock gained by formation ``f`` (its row offset ``row``) this turn."""
    kind = G[row + F_OS_KIND]
    if kind == 1:
        return G[row + F_OS_N]
    if kind == 2:
        k = G[row + F_OS_ADD]
        for _ in range(G[row + F_OS_N]):
            k += randint(st, G[row + F_OS_SIDES]) + 1
        return k if k > 0 else 0
    u = np.float64(next_u64(st) >> _ELEVEN) * _INV53
    k = 0
    while k < cdf.shape[1] - 1 and u >= cdf[f, k]:
        k += 1
    return k


@jit_noalloc(inline="always")
def _count(mask):
    """Set bits of a non-negative int64 mask."""
    n = 0
    while mask != 0:
        mask &= mask - 1
        n += 1
    return n


@jit_noalloc
def play_game(st, G, cdf):
    """One game of ``G[R_TURNS]`` turns; its statistics added into ``G[H_ROFF:]`` (all zero on
    entry: :func:`run_chunk` clears each slot as it histograms it, cheaper than clearing here).

    Formation flags (broken, ever broken, out of play, activated this turn, to rally) are
    bit masks held in registers (bit ``f`` = formation ``f``); Shock lives in ``G``.
    """
    nt = G[R_TURNS]
    nf = G[H_NF]
    fo = G[H_FOFF]
    ao = G[H_AOFF]
    ro = G[H_ROFF]
    po = G[H_POFF]
    w_shock = G[H_WOFF] + W_SHOCK * nf
    mode = G[R_PENALTY]
    nat1 = G[R_NAT1]
    nat6 = G[R_NAT6]
    immediate = G[R_BREAK] == 0
    a0 = ao
    a1 = ao + A_NCOLS
    start0 = G[a0 + A_START]
    stop0 = G[a0 + A_STOP]
    start1 = G[a1 + A_START]
    stop1 = G[a1 + A_STOP]
    one = np.int64(1)
    m0 = (one << stop0) - (one << start0)
    m1 = (one << stop1) - (one << start1)
    any_outside = False
    broken = np.int64(0)
    gone = np.int64(0)
    for f in range(nf):
        row = fo + f * F_NCOLS
        G[w_shock + f] = G[row + F_SHOCK0]
        broken |= G[row + F_BROKEN0] << f
        any_outside = any_outside or G[row + F_OS_KIND] != 0
    ever = broken
    last = -1
    for t in range(nt):
        # -- outside Shock at the start of the turn (switch) ---------------------------------
        if any_outside and G[R_OS_TIMING] == 1:
            for f in range(nf):
                row = fo + f * F_NCOLS
                bit = one << f
                if G[row + F_OS_KIND] != 0 and (gone & bit) == 0:
                    k = outside_draw(st, G, cdf, row, f)
                    s = G[w_shock + f] + k
                    G[w_shock + f] = s
                    if immediate and k > 0 and (broken & bit) == 0 and s >= G[row + F_THRESH]:
                        broken |= bit
                        ever |= bit
        # -- strategy phase --------------------------------------------------------------------
        while True:
            r0 = d6(st) + G[a0 + A_STRAT]
            r1 = d6(st) + G[a1 + A_STRAT]
            if r0 != r1:
                w = 0 if r0 > r1 else 1
                break
            if last >= 0:
                w = 1 - last  # the side that failed to win it last round
                break
            if G[R_FIRST_TIE] >= 0:
                w = G[R_FIRST_TIE]
                break
            # first turn, "reroll": roll again
        last = w
        aw = ao + w * A_NCOLS
        G[ro + G[aw + A_STAT0] + AS_WON] += 1
        G[ro + G[aw + A_STAT0] + AS_TURNS + 3 * nt + 2 + t] = 1  # won turn t's roll
        side = w if G[aw + A_CHOOSE] == 0 else 1 - w
        # -- action phase ----------------------------------------------------------------------
        done = np.int64(0)
        rem0 = _count(m0 & ~(broken | gone))
        rem1 = _count(m1 & ~(broken | gone))
        ptr0 = start0
        ptr1 = start1
        retaining = False
        used0 = 0
        used1 = 0
        while rem0 + rem1 > 0:
            if (side == 0 and rem0 == 0) or (side == 1 and rem1 == 0):
                side = 1 - side
                retaining = False
            a = ao + side * A_NCOLS
            order = G[a + A_ORDER]
            fixed = order == 0 or mode == 0  # chances never change: a fixed order
            free = (m0 if side == 0 else m1) & ~(done | broken | gone)
            # the formation this army activates (its order policy)
            if fixed:
                i = ptr0 if side == 0 else ptr1
                f = G[po + i]
                while ((free >> f) & one) == 0:
                    i += 1
                    f = G[po + i]
                if side == 0:
                    ptr0 = i
                else:
                    ptr1 = i
            else:
                f = -1
                best = 0
                for g in range(G[a + A_START], G[a + A_STOP]):
                    if ((free >> g) & one) == 0:
                        continue
                    row = fo + g * F_NCOLS
                    n = faces(
                        G[row + F_COMMAND] - penalty(G[row + F_SUPP], G[w_shock + g], mode),
                        nat1,
                        nat6,
                    )
                    if f < 0 or (order == 1 and n > best) or (order == 2 and n < best):
                        f = g
                        best = n
            row = fo + f * F_NCOLS
            bit = one << f
            s = G[w_shock + f]
            target = G[row + F_COMMAND] - penalty(G[row + F_SUPP], s, mode)
            if retaining:
                target -= 1
            okv = np.int64(passes(d6(st), target, nat1, nat6))
            fail = 1 - okv
            done |= bit
            if side == 0:
                rem0 -= 1
            else:
                rem1 -= 1
            base = ro + G[a + A_STAT0]
            # branch-free bookkeeping (the test's outcome is unpredictable)
            fs = ro + G[row + F_STAT0]
            G[fs + FS_ACTIONS + fail] += 1  # FS_HOLDS = FS_ACTIONS + 1
            G[fs + FS_SHOCK + 2 * nt + t] = 1 + fail  # this turn: 1 action, 2 Hold
            G[base + AS_TURNS + t + fail * nt] += 1
            if retaining:
                G[base + AS_TURNS + 3 * nt + 1] += okv
            s += fail
            G[w_shock + f] = s
            brk = -(fail * np.int64(immediate and s >= G[row + F_THRESH])) & bit
            broken |= brk
            ever |= brk
            if retaining:
                retaining = False  # after a retaining test the initiative passes
                side = 1 - side
                continue
            mine = rem0 if side == 0 else rem1
            other = rem1 if side == 0 else rem0
            policy = G[a + A_RETAIN]
            if okv != 0 and policy != 0 and other > 0 and mine > 0:
                used = used0 if side == 0 else used1
                if G[R_RETAIN_LIMIT] == 0 or used == 0:
                    try_it = policy == 2
                    if not try_it:
                        # the next test's chance: the formation the order policy picks next
                        free = (m0 if side == 0 else m1) & ~(done | broken | gone)
                        g = -1
                        best = 0
                        for i in range(G[a + A_START], G[a + A_STOP]):
                            h = G[po + i] if fixed else i
                            if ((free >> h) & one) == 0:
                                continue
                            hr = fo + h * F_NCOLS
                            n = faces(
                                G[hr + F_COMMAND]
                                - penalty(G[hr + F_SUPP], G[w_shock + h], mode)
                                - 1,
                                nat1,
                                nat6,
                            )
                            if g < 0 or (order == 1 and n > best) or (order == 2 and n < best):
                                g = h
                                best = n
                            if fixed:
                                break
                        try_it = best >= G[a + A_MINFACES]
                    if try_it:
                        retaining = True
                        G[base + AS_TURNS + 3 * nt] += 1
                        if side == 0:
                            used0 += 1
                        else:
                            used1 += 1
                        continue
            side = 1 - side
        # -- end phase: outside Shock (default timing), break check, who rallies ---------------
        need = np.int64(0)
        for f in range(nf):
            bit = one << f
            if (gone & bit) != 0:
                continue
            row = fo + f * F_NCOLS
            s = G[w_shock + f]
            k = 0
            if any_outside and G[R_OS_TIMING] == 0 and G[row + F_OS_KIND] != 0:
                k = outside_draw(st, G, cdf, row, f)
                s += k
                G[w_shock + f] = s
            # breaking: when Shock rose (immediate) or at the start of the end phase (switch)
            if (broken & bit) == 0 and s >= G[row + F_THRESH] and (k > 0 or not immediate):
                broken |= bit
                ever |= bit
            if s > 0 or (broken & bit) != 0:
                need |= bit
        # -- rallying: one at a time, alternating, higher strategy rating first ---------------
        if G[a0 + A_STRAT] != G[a1 + A_STRAT]:
            side = 0 if G[a0 + A_STRAT] > G[a1 + A_STRAT] else 1
        else:
            side = w
        p0 = start0
        p1 = start1
        while True:
            while p0 < stop0 and ((need >> p0) & one) == 0:
                p0 += 1
            while p1 < stop1 and ((need >> p1) & one) == 0:
                p1 += 1
            left0 = p0 < stop0
            left1 = p1 < stop1
            if not left0 and not left1:
                break
            if (side == 0 and left0) or not left1:
                f = p0
                p0 += 1
            else:
                f = p1
                p1 += 1
            side = 1 - side
            row = fo + f * F_NCOLS
            bit = one << f
            bk = (broken >> f) & one
            target = G[row + F_COMMAND] - G[row + F_NEAR] - 2 * bk
            if G[R_RALLY_PEN] != 0:
                target -= penalty(G[row + F_SUPP], G[w_shock + f], mode)
            okv = np.int64(passes(d6(st), target, nat1, nat6))
            # branch-free: a pass halves the Shock (a broken formation first counts as having
            # Shock equal to its units and is no longer broken); a broken formation that
            # fails withdraws
            s0 = G[w_shock + f]
            s = s0 + bk * (G[row + F_UNITS] - s0)
            half = s // 2
            halved = s - (half if half > 1 else 1)
            G[w_shock + f] = s0 + okv * (halved - s0)
            broken &= ~(-(bk * okv) & bit)
            fs = ro + G[row + F_STAT0]
            G[fs + FS_RALLIED] += bk * okv
            wd = bk * (1 - okv)
            G[fs + FS_WITHDRAWALS] += wd
            G[ro + G[ao + G[row + F_ARMY] * A_NCOLS + A_STAT0] + AS_WITHDRAWALS] += wd
            gone |= -(wd * G[R_WITHDRAW]) & bit
        # -- statistics of the turn ------------------------------------------------------------
        for f in range(nf):
            fs = ro + G[fo + f * F_NCOLS + F_STAT0]
            G[fs + FS_SHOCK + t] = G[w_shock + f]
            G[fs + FS_SHOCK + nt + t] = (ever >> f) & one
        out_of_action = broken | gone
        G[ro + G[a0 + A_STAT0] + AS_TURNS + 2 * nt + t] = _count(out_of_action & m0)
        G[ro + G[a1 + A_STAT0] + AS_TURNS + 2 * nt + t] = _count(out_of_action & m1)


@jit
def run_chunk(seed_words, n, out_c, G0, cdf, slots, offs):
    """``n`` games; histogram every reported statistic into ``out_c[s, value]``.

    Counts go first to a compact histogram (statistic ``s`` at ``offs[s]..offs[s+1]``), small
    enough to stay in the L1 cache, and are copied into ``out_c`` at the end. Each slot is
    reset for the next game in the pass that histograms it (one sweep of the row per game, not
    two: ~10% more games/s), the few unreported slots after it.
    """
    st = new_state(seed_words)
    G = G0.copy()
    ro = G[H_ROFF]
    nslots = G[H_NSLOTS]
    ns = slots.shape[0]
    hist = np.zeros(offs[ns], dtype=np.int64)
    at = np.empty(ns, dtype=np.int64)
    reported = np.zeros(nslots, dtype=np.int64)
    for s in range(ns):
        at[s] = ro + slots[s]
        reported[slots[s]] = 1
    G[ro : ro + nslots] = 0
    rest = ro + np.nonzero(reported == 0)[0]  # the slots not reported (slots are distinct)
    for _ in range(n):
        play_game(st, G, cdf)
        for s in range(ns):
            v = G[at[s]]
            G[at[s]] = 0
            hist[offs[s] + v] += 1
        for i in range(rest.shape[0]):
            G[rest[i]] = 0
    for s in range(ns):
        for v in range(offs[s + 1] - offs[s]):
            out_c[s, v] += hist[offs[s] + v]


#: Engine kernel (contract in :mod:`oddslab.engine`): :func:`run_chunk` over each chunk of a
#: batch, on threads (:class:`~oddslab._kernels.chunks.ChunkKernel`). ``slots``
#: int64[n_stats] maps each reported statistic to its slot of the per-trial row (the retain
#: slots of an army that cannot retain are not reported); ``offs`` int64[n_stats + 1] are the
#: cumulative bin counts of the statistics.
run_formation_actions = ChunkKernel(run_chunk, "run_formation_actions")


@jit
def play_scripted(G0, cdf, dice, seed_words):
    """One game with the D6 results ``dice`` (int64[k]) used first, then generated ones.

    Returns ``(statistics row int64[n_slots], number of scripted dice used)``.
    """
    base = new_state(seed_words)
    k = dice.shape[0]
    st = np.empty(7 + k, dtype=np.uint64)
    for i in range(6):
        st[i] = base[i]
    st[6] = np.uint64(7)
    for i in range(k):
        st[7 + i] = np.uint64(dice[i])
    G = G0.copy()
    ro = G[H_ROFF]
    G[ro : ro + G[H_NSLOTS]] = 0  # play_game adds into a zeroed statistics row
    play_game(st, G, cdf)
    return G[ro : ro + G[H_NSLOTS]].copy(), np.int64(st[6]) - 7
