"""Numba kernels for formation actions: one trial plays N turns of a two-army game.

The game reads and writes one packed ``int64`` array ``G`` (layout: :mod:`.layout`). ``cdf``
float64[F, 22] holds cumulative outside-Shock probabilities for formations whose outside
Shock is a table. ``st`` is the game's generator state (uint64[6]): word 0 is its counter
stream (:mod:`oddslab._kernels.rng`; each game has its own, so the lock-step kernel of
:mod:`.kernel_block` plays exactly the same games); a scripted state carries word 6 = index
of the next scripted die and D6 results from word 7 on (:func:`play_scripted`).
The dice, tests and choices the game is made of are in :mod:`.kernel_rolls`. (numba's own
cache keys a compiled kernel on its file alone; oddslab caches under a digest of every source
file, :func:`oddslab._jit.cache_dir`, so an edit to either file recompiles both.)
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit, jit_inner, jit_noalloc
from oddslab._kernels.bits import lowest_bit, popcount
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import stream_state
from oddslab.rulesets.formation_actions.kernel_rolls import (
    best_faces,
    d6,
    faces,
    game_constants,
    outside_draw,
    passes,
    penalty,
)
from oddslab.rulesets.formation_actions.layout import (
    A_CHOOSE,
    A_FIXED,
    A_MINFACES,
    A_NCOLS,
    A_ORDER,
    A_RETAIN,
    A_START,
    A_STAT0,
    A_STOP,
    A_STRAT,
    AS_TURNS,
    AS_WITHDRAWALS,
    AS_WON,
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
    H_NSLOTS,
    H_POFF,
    H_ROFF,
    H_TOFF,
    H_WOFF,
    R_BREAK,
    R_BROKEN_CAP,
    R_FIRST_TIE,
    R_NAT1,
    R_NAT6,
    R_OS_TIMING,
    R_PENALTY,
    R_RALLY_PEN,
    R_RETAIN_LIMIT,
    R_TURNS,
    R_WITHDRAW,
    T_ACTION,
    T_BROKEN,
    T_NCOLS,
    T_SHOCK,
    TA_ACTIONS,
    TA_BROKEN,
    TA_HOLDS,
    TA_NCOLS,
    TA_WON,
    W_SHOCK,
    turn_slots,
)

__all__ = ["play_game", "run_games", "run_formation_actions", "play_scripted"]

#: indices into ``G`` in the game's loops go through ``_u``: with an unsigned index numba
#: skips the negative-index wraparound (a compare and a select on every load and store)
_u = np.uint64


@jit_inner(ints="last")
def play_game(st, G, cdf, broken0, rok, any_outside, hist, keep):
    """One game of ``G[R_TURNS]`` turns. Each turn's statistics are counted into ``hist`` at
    the offsets of the table ``G[H_TOFF:]`` as the turn ends; the game's totals are added
    into ``G[H_ROFF:]`` (all zero on entry: :func:`run_games` clears each slot as it
    histograms it). ``broken0``, ``rok`` and ``any_outside`` are :func:`game_constants` of
    ``G``. With ``keep`` (per-trial records) each turn statistic is also written to its
    slot of the row, the value it counts (the game's dice are the same either way).

    Formation flags (broken, ever broken, out of play, passed or held this turn, to rally)
    are bit masks held in registers (bit ``f`` = formation ``f``); Shock lives in ``G``.
    Outcomes of dice (a test passed, a formation breaking, retaining) feed arithmetic rather
    than branches: they are unpredictable, and a mispredicted branch costs more than the few
    operations computed for nothing.

    An army whose activation order is fixed (``A_FIXED``: listed, or chances that never
    change and that the retaining -1 does not reorder) keeps its unactivated formations as
    a mask of *positions* in that order (bit ``i`` = formation ``G[H_POFF + i]``), so the
    next one is the lowest set bit; otherwise the mask is of formation indices and
    :func:`best_faces` scans it, with the -1 when the test is a retaining one.
    """
    nt = G[R_TURNS]
    nf = G[H_NF]
    fo = G[H_FOFF]
    ao = G[H_AOFF]
    ro = G[H_ROFF]
    po = G[H_POFF]
    ws = G[H_WOFF] + W_SHOCK * nf
    tw = T_NCOLS * nf + TA_NCOLS * 2  # a turn's block of the turn-statistics table
    mode = G[R_PENALTY]
    nat1 = np.int64(G[R_NAT1] != 0)
    nat6 = np.int64(G[R_NAT6] != 0)
    immediate = np.int64(G[R_BREAK] == 0)
    per_turn = G[R_RETAIN_LIMIT] != 0
    removed = np.int64(G[R_WITHDRAW] != 0)
    rally_pen = G[R_RALLY_PEN] != 0
    cap = np.int64(G[R_BROKEN_CAP] != 0)
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
    fixed0 = G[a0 + A_FIXED] != 0  # listed, or chances that never change: a fixed order
    fixed1 = G[a1 + A_FIXED] != 0
    one = np.int64(1)
    m0 = (one << stop0) - (one << start0)
    m1 = (one << stop1) - (one << start1)
    broken = broken0
    gone = np.int64(0)
    for f in range(nf):
        G[ws + f] = G[fo + f * F_NCOLS + F_SHOCK0]
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
        tb = G[H_TOFF] + t * tw  # turn t's block of the turn-statistics table
        ta = tb + T_NCOLS * nf
        hist[_u(G[_u(ta + w * TA_NCOLS + TA_WON)] + 1)] += 1  # won turn t's roll
        hist[_u(G[_u(ta + (1 - w) * TA_NCOLS + TA_WON)])] += 1
        if keep:
            G[st0 + AS_TURNS + 3 * nt + 2 + t] = 1 - w
            G[st1 + AS_TURNS + 3 * nt + 2 + t] = w
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
                    retaining,  # a retaining test's chances are with its -1
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
        if not os_end:
            # no draws: the same rules as the loop after ``else``, on masks (bit f = formation f);
            # only Shock and its threshold are per formation
            over = np.int64(0)  # Shock (after a failed test) at or over the threshold
            some = np.int64(0)  # any Shock
            for f in range(nf):
                s = G[_u(ws + f)] + ((held >> f) & one)
                G[_u(ws + f)] = s
                over |= np.int64(s >= G[_u(fo + f * F_NCOLS + F_THRESH)]) << f
                some |= np.int64(s > 0) << f
            here = ~gone
            imm = -immediate  # all bits when breaking is immediate, else none
            bk = broken | (held & over & imm)
            bk |= here & ~bk & over & ~imm
            broken = bk
            ever |= bk
            need = here & (some | bk)
        else:
            for f in range(nf):
                row = fo + f * F_NCOLS
                here = 1 - ((gone >> f) & one)
                thresh = G[_u(row + F_THRESH)]
                # a failed action test: +1 Shock, and it breaks the formation (immediate)
                hb = (held >> f) & one
                s = G[_u(ws + f)] + hb
                bk = ((broken >> f) & one) | (hb & immediate & np.int64(s >= thresh))
                k = np.int64(0)
                if G[_u(row + F_OS_KIND)] != 0 and here:
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
            G[_u(fs + FS_RALLIED_UNBROKEN)] += (1 - bk) & ok
            wd = bk & (1 - ok)
            G[_u(fs + FS_WITHDRAWALS)] += wd
            wd0 += wd & t0
            wd1 += wd & (1 - t0)
            gone |= (wd & removed) << f
        G[st0 + AS_WITHDRAWALS] += wd0
        G[st1 + AS_WITHDRAWALS] += wd1
        # -- statistics of the turn: counted now; totals kept in the row ----------------------
        for f in range(nf):
            row = fo + f * F_NCOLS
            fs = ro + G[_u(row + F_STAT0)]
            pb = (passed >> f) & one
            hb = (held >> f) & one
            G[_u(fs + FS_ACTIONS)] += pb
            G[_u(fs + FS_HOLDS)] += hb
            e = tb + T_NCOLS * f
            # broken_shock "cap": a formation still broken keeps at most its units in Shock.
            # Nothing reads a broken formation's Shock but this statistic and "any Shock",
            # which the cap keeps, so capping once a turn equals capping at every gain
            s = G[_u(ws + f)]
            over = s - G[_u(row + F_UNITS)]
            s -= (cap & (broken >> f) & np.int64(over > 0)) * over
            G[_u(ws + f)] = s
            hist[_u(G[_u(e + T_SHOCK)] + s)] += 1
            hist[_u(G[_u(e + T_BROKEN)] + ((ever >> f) & one))] += 1
            hist[_u(G[_u(e + T_ACTION)] + pb + 2 * hb)] += 1  # 0 no action, 1 action, 2 Hold
            if keep:  # the turn's slots: FS_SHOCK + t, then broken_by and action_turn
                G[_u(fs + FS_SHOCK + t)] = s
                G[_u(fs + FS_SHOCK + nt + t)] = (ever >> f) & one
                G[_u(fs + FS_SHOCK + 2 * nt + t)] = pb + 2 * hb
        out = broken | gone
        for e, m in ((ta, m0), (ta + TA_NCOLS, m1)):
            hist[_u(G[_u(e + TA_ACTIONS)] + popcount(passed & m))] += 1
            hist[_u(G[_u(e + TA_HOLDS)] + popcount(held & m))] += 1
            hist[_u(G[_u(e + TA_BROKEN)] + popcount(out & m))] += 1
        if keep:  # the armies' turn slots: AS_TURNS + t, then holds and broken_after
            for sa, m in ((st0, m0), (st1, m1)):
                G[sa + AS_TURNS + t] = popcount(passed & m)
                G[sa + AS_TURNS + nt + t] = popcount(held & m)
                G[sa + AS_TURNS + 2 * nt + t] = popcount(out & m)
    # the end state: game totals, histogrammed from the row by run_games (draws nothing)
    for f in range(nf):
        fe = ro + G[_u(fo + f * F_NCOLS + F_STAT0)] + FS_SHOCK + 3 * nt
        G[_u(fe + FE_BROKEN)] = ((broken | gone) >> f) & one
        G[_u(fe + FE_OUT)] = (gone >> f) & one


def _prologue(seed_words, n, out_c, rec, G0, cdf, slots, offs):
    """Per-chunk setup (Python): the arguments of :func:`run_games` for ``n`` games from the
    seed words ``seed_words`` (uint64[4]) into ``out_c[s, value]`` (and each game's
    statistics into ``rec[j, s]`` when ``rec`` has rows, handed on as it is): the RNG state,
    the chunk's own copy of the game array with a zeroed statistics row, the game totals'
    indices in ``G`` (``at``) and first bins (``first``), the compact histogram (with the
    unreported turn statistics' bins past its end), the totals' slots no statistic reports
    and each reported statistic's index in ``G`` (``rs``)."""
    G = G0.copy()
    ro = G[H_ROFF]
    nslots = G[H_NSLOTS]
    ns = slots.shape[0]
    # the game counts the turn statistics itself and writes only the totals into the row
    nf = G[H_NF]
    f_stat0 = G[G[H_FOFF] + F_STAT0 + F_NCOLS * np.arange(nf)]
    a_stat0 = G[G[H_AOFF] + A_STAT0 + A_NCOLS * np.arange(2)]
    written = np.ones(nslots, dtype=bool)
    written[turn_slots(G[R_TURNS], f_stat0, a_stat0)] = False
    totals = written[slots]
    at = (ro + slots[totals]).astype(np.int64)
    first = offs[:ns][totals].astype(np.int64)
    unreported = written.copy()
    unreported[slots] = False
    G[ro : ro + nslots] = 0
    rest = (ro + np.nonzero(unreported)[0]).astype(np.int64)
    hist = np.zeros(offs[ns] + int(np.diff(offs).max()), dtype=np.int64)
    st = np.zeros(6, dtype=np.uint64)
    rs = (ro + slots).astype(np.int64)
    return (seed_words.copy(), st, n, out_c, rec, G, cdf, offs, at, first, hist, rest, rs)


@jit_noalloc(vectorize=False, llvm_opt=2)
def run_games(seed, st, n, out_c, rec, G, cdf, offs, at, first, hist, rest, rs):
    """``n`` games; histogram every reported statistic into ``out_c[s, value]`` and, when
    ``rec`` (int32[r, n_stats]) has rows, write game ``j``'s to ``rec[j, s]`` (the arrays
    after ``offs`` come from :func:`_prologue`; allocates nothing). Game ``j`` draws from its
    own counter stream (:func:`~oddslab._kernels.rng.stream_state` of the chunk's seed words
    ``seed`` and ``j``), held in ``st[0]``.

    Counts go first to a compact histogram (statistic ``s`` at ``offs[s]..offs[s+1]``), small
    enough to stay in the L1 cache, and are copied into ``out_c`` at the end. The game counts
    each turn's statistics itself; the game totals are histogrammed here from the row, each
    slot reset for the next game in the pass that reads it, the few unreported slots after.
    """
    ntot = at.shape[0]
    broken0, rok, any_outside = game_constants(G)
    keep = rec.shape[0] > 0
    for j in range(n):
        st[0] = stream_state(seed, j)
        play_game(st, G, cdf, broken0, rok, any_outside, hist, keep)
        if keep:  # before the totals' slots are cleared below
            for k in range(rs.shape[0]):
                rec[j, k] = G[rs[k]]
        for k in range(ntot):
            # unsigned indices: no negative-index wraparound on these accesses
            i = np.uint64(at[k])
            v = G[i]
            G[i] = 0
            hist[np.uint64(first[k] + v)] += 1
        for i in range(rest.shape[0]):
            G[rest[i]] = 0
    for s in range(offs.shape[0] - 1):
        for v in range(offs[s + 1] - offs[s]):
            out_c[s, v] += hist[offs[s] + v]


#: Engine kernel (contract in :mod:`oddslab.engine`): :func:`run_games` on the arguments of
#: :func:`_prologue`, for each chunk of a batch, on threads
#: (:class:`~oddslab._kernels.chunks.ChunkKernel`). ``slots``
#: int64[n_stats] maps each reported statistic to its slot of the per-trial row (the retain
#: slots of an army that cannot retain are not reported); ``offs`` int64[n_stats + 1] are the
#: cumulative bin counts of the statistics. Simulations run on the lock-step kernels of
#: :mod:`.kernel_block`, which give the same histograms; this one is their reference (and a
#: drop-in ``Job.kernel`` for comparing the two).
run_formation_actions = ChunkKernel(
    run_games, "run_formation_actions", prologue=_prologue, records=True
)


@jit
def play_scripted(G0, cdf, dice, seed_words, hist):
    """One game with the D6 results ``dice`` (int64[k]) used first, then generated ones; its
    turn statistics are counted into ``hist`` at the offsets of ``G0``'s table.

    Returns ``(statistics row int64[n_slots] (game totals; zero in the turn statistics'
    slots), number of scripted dice used)``.
    """
    k = dice.shape[0]
    st = np.zeros(7 + k, dtype=np.uint64)
    st[0] = stream_state(seed_words, 0)
    st[6] = np.uint64(7)
    for i in range(k):
        st[7 + i] = np.uint64(dice[i])
    G = G0.copy()
    ro = G[H_ROFF]
    G[ro : ro + G[H_NSLOTS]] = 0  # play_game adds into a zeroed statistics row
    broken0, rok, any_outside = game_constants(G)
    play_game(st, G, cdf, broken0, rok, any_outside, hist, False)
    return G[ro : ro + G[H_NSLOTS]].copy(), np.int64(st[6]) - 7
