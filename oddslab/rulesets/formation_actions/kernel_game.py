"""Numba kernel for formation actions: the packed game array ``G`` and one game on it.

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
(:func:`.kernel.play_scripted`) carries word 6 = index of the next scripted die and D6
results from word 7 on. The per-chunk loop and the parallel driver are in :mod:`.kernel`.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_noalloc
from oddslab._kernels.bits import lowest_bit, popcount
from oddslab._kernels.rng import d6 as roll_d6
from oddslab._kernels.rng import next_u64, randint

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
#: indices into ``G`` in the game's loops go through ``_u``: with an unsigned index numba
#: skips the negative-index wraparound (a compare and a select on every load and store)
_u = np.uint64


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


@jit_noalloc
def passes(roll, target, nat1, nat6):
    """1 if a D6 ``roll`` passes a test against the modified rating ``target``, else 0."""
    ok = np.int64(roll <= target) | (nat1 & np.int64(roll == 1))
    return ok & (1 - (nat6 & np.int64(roll == 6)))


@jit_noalloc
def faces(target, nat1, nat6):
    """Passing faces (of 6) against ``target`` (closed form of counting :func:`passes`)."""
    n = min(max(target, 0), 6)
    if nat1 != 0 and n < 1:
        n = 1
    if nat6 != 0 and n > 5:
        n = 5
    return n


@jit_noalloc
def penalty(suppressed, shock, mode):
    """The action test's modifier (0, 1 or 2) under reading ``mode`` (``R_PENALTY``)."""
    sup = np.int64(suppressed != 0)
    sh = np.int64(shock > 0)
    if mode == 0:
        return sup
    if mode == 1:
        return sh
    if mode == 2:
        return sup | sh
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


@jit_noalloc
def best_faces(G, free, start, stop, order, minus, mode, nat1, nat6):
    """(formation, its passing faces) the best/worst-first ``order`` picks among ``free``
    (a mask of formations ``start..stop-1``) with ``minus`` more off the test; ties go to
    the first listed. Used only when chances change with Shock (not a fixed order)."""
    fo = G[H_FOFF]
    ws = G[H_WOFF] + W_SHOCK * G[H_NF]
    f = -1
    best = 0
    for g in range(start, stop):
        if ((free >> g) & 1) == 0:
            continue
        row = fo + g * F_NCOLS
        pen = penalty(G[row + F_SUPP], G[ws + g], mode)
        n = faces(G[row + F_COMMAND] - pen - minus, nat1, nat6)
        if f < 0 or (order == 1 and n > best) or (order == 2 and n < best):
            f = g
            best = n
    return f, best


@jit_noalloc
def play_game(st, G, cdf):
    """One game of ``G[R_TURNS]`` turns; its statistics added into ``G[H_ROFF:]`` (all zero on
    entry: :func:`.kernel.run_chunk` clears each slot as it histograms it).

    Formation flags (broken, ever broken, out of play, passed or held this turn, to rally)
    are bit masks held in registers (bit ``f`` = formation ``f``); Shock lives in ``G``.
    Outcomes of dice (a test passed, a formation breaking, retaining) feed arithmetic rather
    than branches: they are unpredictable, and a mispredicted branch costs more than the few
    operations computed for nothing.

    An army whose activation order is fixed (listed, or chances that never change) keeps its
    unactivated formations as a mask of *positions* in that order (bit ``i`` = formation
    ``G[H_POFF + i]``), so the next one is the lowest set bit; otherwise the mask is of
    formation indices and :func:`best_faces` scans it.
    """
    nt = G[R_TURNS]
    nf = G[H_NF]
    fo = G[H_FOFF]
    ao = G[H_AOFF]
    ro = G[H_ROFF]
    po = G[H_POFF]
    ws = G[H_WOFF] + W_SHOCK * nf
    mode = G[R_PENALTY]
    nat1 = np.int64(G[R_NAT1] != 0)
    nat6 = np.int64(G[R_NAT6] != 0)
    immediate = np.int64(G[R_BREAK] == 0)
    per_turn = G[R_RETAIN_LIMIT] != 0
    removed = np.int64(G[R_WITHDRAW] != 0)
    rally_pen = G[R_RALLY_PEN] != 0
    a0 = ao
    a1 = ao + A_NCOLS
    start0 = G[a0 + A_START]
    stop0 = G[a0 + A_STOP]
    start1 = G[a1 + A_START]
    stop1 = G[a1 + A_STOP]
    st0 = ro + G[a0 + A_STAT0]
    st1 = ro + G[a1 + A_STAT0]
    pol0 = G[a0 + A_RETAIN]
    pol1 = G[a1 + A_RETAIN]
    minf0 = G[a0 + A_MINFACES]
    minf1 = G[a1 + A_MINFACES]
    ord0 = G[a0 + A_ORDER]
    ord1 = G[a1 + A_ORDER]
    fixed0 = ord0 == 0 or mode == 0  # chances never change: a fixed order
    fixed1 = ord1 == 0 or mode == 0
    one = np.int64(1)
    m0 = (one << stop0) - (one << start0)
    m1 = (one << stop1) - (one << start1)
    any_outside = False
    broken = np.int64(0)
    gone = np.int64(0)
    rok = np.int64(0)  # positions whose retaining test passes often enough (fixed chances)
    for f in range(nf):
        row = fo + f * F_NCOLS
        G[ws + f] = G[row + F_SHOCK0]
        broken |= G[row + F_BROKEN0] << f
        any_outside = any_outside or G[row + F_OS_KIND] != 0
        h = fo + G[po + f] * F_NCOLS
        n = faces(G[h + F_COMMAND] - penalty(G[h + F_SUPP], 0, mode) - 1, nat1, nat6)
        rok |= np.int64(n >= (minf0 if f < stop0 else minf1)) << f
    os_start = any_outside and G[R_OS_TIMING] == 1
    os_end = any_outside and G[R_OS_TIMING] == 0
    ever = broken
    last = -1
    for t in range(nt):
        # -- outside Shock at the start of the turn (switch) ---------------------------------
        if os_start:
            for f in range(nf):
                row = fo + f * F_NCOLS
                bit = one << f
                if G[row + F_OS_KIND] != 0 and (gone & bit) == 0:
                    k = outside_draw(st, G, cdf, row, f)
                    s = G[ws + f] + k
                    G[ws + f] = s
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
        sw = st1 if w else st0
        G[sw + AS_WON] += 1
        G[sw + AS_TURNS + 3 * nt + 2 + t] = 1  # won turn t's roll
        side = np.int64(w if G[(a1 if w else a0) + A_CHOOSE] == 0 else 1 - w)
        # -- action phase ----------------------------------------------------------------------
        able = ~(broken | gone)
        pos = np.int64(0)
        for i in range(nf):
            pos |= ((able >> G[_u(po + i)]) & one) << i
        free0 = (pos if fixed0 else able) & m0
        free1 = (pos if fixed1 else able) & m1
        acted = able & (m0 | m1)  # every formation able to act acts once, passing or not
        passed = np.int64(0)
        retaining = np.int64(0)
        # tries to retain (army 0 in bits 0-15, army 1 in 16-31) and retained (32-47, 48-63),
        # packed to keep the loop's state in registers; at most 20 formations try per turn
        tries = np.int64(0)
        while (free0 | free1) != 0:
            # the side to act has no formation left: the other activates the rest
            empty = np.int64((free1 if side else free0) == 0)
            side ^= empty
            retaining &= 1 - empty
            mine = free1 if side else free0
            other = free0 if side else free1
            pol = pol1 if side else pol0
            minf = minf1 if side else minf0
            # the formation the army's order picks, and whether the one after it would pass
            # a retaining test often enough (its chance does not depend on this test)
            if fixed1 if side else fixed0:
                f = G[_u(po + lowest_bit(mine))]
                mine &= mine - 1
                nxt = min(lowest_bit(mine), nf - 1)  # a valid index even when none is left
                if mode == 0:
                    ok_next = (rok >> nxt) & one
                else:
                    h = G[_u(po + nxt)]
                    hr = fo + h * F_NCOLS
                    pen = penalty(G[_u(hr + F_SUPP)], G[_u(ws + h)], mode)
                    n = faces(G[_u(hr + F_COMMAND)] - pen - 1, nat1, nat6)
                    ok_next = np.int64(n >= minf)
            else:
                order = ord1 if side else ord0
                f, _n = best_faces(
                    G,
                    mine,
                    start1 if side else start0,
                    stop1 if side else stop0,
                    order,
                    0,
                    mode,
                    nat1,
                    nat6,
                )
                mine &= ~(one << f)
                ok_next = np.int64(0)
                if pol == 1 and mine != 0:
                    _g, n = best_faces(
                        G,
                        mine,
                        start1 if side else start0,
                        stop1 if side else stop0,
                        order,
                        1,
                        mode,
                        nat1,
                        nat6,
                    )
                    ok_next = np.int64(n >= minf)
            # the test's Shock and breaking wait for the end phase: nothing in this phase
            # reads them (a formation's Shock changes only when it acts, once a turn)
            row = fo + f * F_NCOLS
            pen = penalty(G[_u(row + F_SUPP)], G[_u(ws + f)], mode)
            target = G[_u(row + F_COMMAND)] - pen - retaining
            ok = passes(d6(st), target, nat1, nat6)
            passed |= ok << f
            # retain after a passed test that was not itself retaining, while both sides
            # still have formations to activate, if the army's policy and the limit allow
            # (updates as arithmetic: which side acts is itself unpredictable)
            sh = 16 * side
            again = (
                ok
                & (1 - retaining)
                & np.int64(pol != 0 and mine != 0 and other != 0)
                & np.int64(not per_turn or ((tries >> sh) & 0xFFFF) == 0)
                & (np.int64(pol == 2) | ok_next)
            )
            tries += (again << sh) + ((ok & retaining) << (32 + sh))
            free0 = free0 if side else mine
            free1 = mine if side else free1
            retaining = again
            side ^= 1 - again  # after any other test the initiative passes
        held = acted & ~passed
        G[st0 + AS_TURNS + 3 * nt] += tries & 0xFFFF
        G[st0 + AS_TURNS + 3 * nt + 1] += (tries >> 32) & 0xFFFF
        G[st1 + AS_TURNS + 3 * nt] += (tries >> 16) & 0xFFFF
        G[st1 + AS_TURNS + 3 * nt + 1] += (tries >> 48) & 0xFFFF
        # -- end phase: outside Shock (default timing), break check, who rallies ---------------
        need = np.int64(0)
        for f in range(nf):
            row = fo + f * F_NCOLS
            here = 1 - ((gone >> f) & one)
            thresh = G[_u(row + F_THRESH)]
            # a failed action test: +1 Shock, and it breaks the formation (immediate)
            hb = (held >> f) & one
            s = G[_u(ws + f)] + hb
            bk = ((broken >> f) & one) | (hb & immediate & np.int64(s >= thresh))
            k = np.int64(0)
            if os_end and G[_u(row + F_OS_KIND)] != 0 and here:
                k = outside_draw(st, G, cdf, row, f)
                s += k
            G[_u(ws + f)] = s
            # breaking: when Shock rose (immediate) or at the start of the end phase (switch)
            nb = here & (1 - bk) & np.int64(s >= thresh)
            bk |= nb & (np.int64(k > 0) | (1 - immediate))
            broken |= bk << f
            ever |= bk << f  # every formation ever broken, so still true of the old ones
            need |= (here & (np.int64(s > 0) | bk)) << f
        # -- rallying: one at a time, alternating, higher strategy rating first ---------------
        if G[a0 + A_STRAT] != G[a1 + A_STRAT]:
            side = np.int64(0 if G[a0 + A_STRAT] > G[a1 + A_STRAT] else 1)
        else:
            side = np.int64(w)
        n0 = need & m0
        n1 = need & m1
        wd0 = np.int64(0)
        wd1 = np.int64(0)
        while (n0 | n1) != 0:
            take0 = (side == 0 and n0 != 0) or n1 == 0
            t0 = np.int64(take0)
            f = lowest_bit(n0 if take0 else n1)
            n0 = n0 & (n0 - 1) if take0 else n0
            n1 = n1 if take0 else n1 & (n1 - 1)
            side = 1 - side
            row = fo + f * F_NCOLS
            bk = (broken >> f) & one
            target = G[_u(row + F_COMMAND)] - G[_u(row + F_NEAR)] - 2 * bk
            if rally_pen:
                target -= penalty(G[_u(row + F_SUPP)], G[_u(ws + f)], mode)
            ok = passes(d6(st), target, nat1, nat6)
            # a pass halves the Shock (a broken formation first counts as having Shock equal
            # to its units and is no longer broken); a broken formation that fails withdraws
            s0 = G[_u(ws + f)]
            s = s0 + bk * (G[_u(row + F_UNITS)] - s0)
            half = s >> 1  # Shock is never negative
            halved = s - (half if half > 1 else 1)
            G[_u(ws + f)] = s0 + ok * (halved - s0)
            broken &= ~((bk & ok) << f)
            fs = ro + G[_u(row + F_STAT0)]
            G[_u(fs + FS_RALLIED)] += bk & ok
            wd = bk & (1 - ok)
            G[_u(fs + FS_WITHDRAWALS)] += wd
            wd0 += wd & t0
            wd1 += wd & (1 - t0)
            gone |= (wd & removed) << f
        G[st0 + AS_WITHDRAWALS] += wd0
        G[st1 + AS_WITHDRAWALS] += wd1
        # -- statistics of the turn ------------------------------------------------------------
        for f in range(nf):
            fs = ro + G[_u(fo + f * F_NCOLS + F_STAT0)]
            pb = (passed >> f) & one
            hb = (held >> f) & one
            G[_u(fs + FS_ACTIONS)] += pb
            G[_u(fs + FS_HOLDS)] += hb
            G[_u(fs + FS_SHOCK + t)] = G[_u(ws + f)]
            G[_u(fs + FS_SHOCK + nt + t)] = (ever >> f) & one
            G[_u(fs + FS_SHOCK + 2 * nt + t)] = pb + 2 * hb  # 0 no action, 1 action, 2 Hold
        out = broken | gone
        for sa, m in ((st0, m0), (st1, m1)):
            G[sa + AS_TURNS + t] = popcount(passed & m)
            G[sa + AS_TURNS + nt + t] = popcount(held & m)
            G[sa + AS_TURNS + 2 * nt + t] = popcount(out & m)
