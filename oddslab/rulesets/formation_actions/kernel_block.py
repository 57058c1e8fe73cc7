"""The lock-step kernel of formation actions: a block of games played together, one step at a
time, each game in its own lane.

:func:`~.kernel.play_game` plays one game at a time: each activation's formation, test and
who acts next hang on the one before, a chain of dependent loads and branches the CPU cannot
overlap. Here every step (an activation, a rally, a formation's end phase) is one loop over
the ``B`` games of a block, reading and writing each game's state in arrays indexed by lane
(``W[row, lane]``), so the compiler turns it into SIMD code running 4-8 games per
instruction. Nothing in those loops is looked up by a per-lane index (that would need a
gather and stops the vectoriser): a formation's command at an activation *position* comes
from 4-bit fields of three words, its flags from bit masks.

Same games, same dice: game ``j`` of a chunk draws from its own counter stream
(:func:`~oddslab._kernels.rng.stream_state`), the same positions in the same order as
:func:`~.kernel.play_game` draws them, so both kernels give bit-identical histograms (the tests
check it on every example). Rallies, rolled one at a time alternating between the armies,
are processed here formation by formation, each reading the die at its place in that order
(:func:`.block_end.rally`).

Used when both armies' activation orders are fixed (``A_FIXED``); a best/worst-first order
that must be picked at each activation runs on :func:`~.kernel.run_games`.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import stream_state
from oddslab.rulesets.formation_actions import kernel as K
from oddslab.rulesets.formation_actions.block_end import (
    end_phase,
    end_phase_outside,
    outside_start,
    rally,
    turn_statistics,
)
from oddslab.rulesets.formation_actions.block_steps import (
    L_BROKEN,
    L_EVER,
    L_FIRST,
    L_GONE,
    L_LAST,
    L_NROWS,
    L_W,
    action_finish,
    action_setup,
    action_step,
    count_values,
    strategy,
)
from oddslab.rulesets.formation_actions.kernel_rolls import game_constants
from oddslab.rulesets.formation_actions.layout import (
    A_MINFACES,
    A_NCOLS,
    A_RETAIN,
    A_START,
    A_STAT0,
    A_STOP,
    A_STRAT,
    AS_TURNS,
    F_COMMAND,
    F_NCOLS,
    F_SHOCK0,
    F_SUPP,
    H_AOFF,
    H_FOFF,
    H_NF,
    H_NSLOTS,
    H_POFF,
    H_ROFF,
    H_TOFF,
    R_BREAK,
    R_NAT1,
    R_NAT6,
    R_OS_TIMING,
    R_PENALTY,
    R_RALLY_PEN,
    R_RETAIN_LIMIT,
    R_TURNS,
    R_WITHDRAW,
    T_NCOLS,
    TA_NCOLS,
)

__all__ = ["BLOCK", "run_block_games", "run_formation_actions_block", "step_constants"]

#: games per block (measured: 64 lanes 1.45, 128 1.56, 256 1.62, 512 1.63 M games/s a thread on
#: the benchmark game; a block's state is about 40 rows of 2 KiB, within the L2 cache)
BLOCK = 256

#: the action test's modifier under each ``R_PENALTY`` reading (suppressed, shock, either,
#: both) for a formation (with a suppressed unit, with Shock)
_PENALTY = (
    lambda sup, sh: sup,
    lambda sup, sh: sh,
    lambda sup, sh: sup | sh,
    lambda sup, sh: sup + sh,
)


def _faces(target: int, nat1: bool, nat6: bool) -> int:
    """Passing faces of a D6 test against ``target`` (as :func:`.kernel_rolls.faces`)."""
    n = min(max(target, 0), 6)
    if nat1:
        n = max(n, 1)
    if nat6:
        n = min(n, 5)
    return n


def step_constants(G: np.ndarray) -> np.ndarray:
    """What :func:`~.block_steps.action_step` reads of ``G``, packed (int64[16]), by
    activation position ``i``: ``P[0:3]`` the test's target for a formation with no Shock,
    plus 2, in 4-bit fields (positions 0-15, 16-31, 32-47); ``P[3]`` the positions where Shock
    takes 1 more off it; ``P[4]``, ``P[5]`` the positions whose retaining test (with its -1)
    passes often enough for the army to try, without and with Shock; then the naturals, the
    retain limit, both armies' retain policies and the last position."""
    nf = int(G[H_NF])
    fo = int(G[H_FOFF])
    po = int(G[H_POFF])
    ao = int(G[H_AOFF])
    a1 = ao + A_NCOLS
    pen = _PENALTY[int(G[R_PENALTY])]
    nat1 = bool(G[R_NAT1])
    nat6 = bool(G[R_NAT6])
    words = [0, 0, 0]
    extra = rok0 = rok1 = 0
    for i in range(nf):
        row = fo + int(G[po + i]) * F_NCOLS
        cmd = int(G[row + F_COMMAND])
        sup = int(G[row + F_SUPP] != 0)
        t0 = cmd - pen(sup, 0)
        t1 = cmd - pen(sup, 1)
        words[i // 16] |= (t0 + 2) << (4 * (i % 16))
        extra |= (t0 - t1) << i
        minf = int(G[(ao if i < int(G[ao + A_STOP]) else a1) + A_MINFACES])
        rok0 |= int(_faces(t0 - 1, nat1, nat6) >= minf) << i
        rok1 |= int(_faces(t1 - 1, nat1, nat6) >= minf) << i
    P = np.zeros(16, dtype=np.int64)
    P[:6] = [*words, extra, rok0, rok1]
    P[6:9] = [nat1, nat6, G[R_RETAIN_LIMIT] != 0]
    P[9:12] = [G[ao + A_RETAIN], G[a1 + A_RETAIN], nf - 1]
    return P


def _prologue(seed_words, n, out_c, G0, cdf, slots, offs):
    """Per-chunk setup (Python): :func:`.kernel._prologue`'s arguments without the scalar
    generator state, plus the block's work arrays and :func:`step_constants`."""
    seed, _st, n, out_c, G, cdf, offs, at, first, hist, rest = K._prologue(
        seed_words, n, out_c, G0, cdf, slots, offs
    )
    nf = int(G[H_NF])
    W = np.zeros((L_NROWS + nf, BLOCK), dtype=np.int64)
    SM = np.zeros(BLOCK, dtype=np.uint64)
    RT = np.zeros((int(G[H_NSLOTS]), BLOCK), dtype=np.int64)
    ro = G[H_ROFF]
    return (
        seed,
        n,
        out_c,
        G,
        cdf,
        offs,
        at - ro,
        first,
        hist,
        rest - ro,
        W,
        SM,
        RT,
        step_constants(G),
    )


@jit_noalloc
def run_block_games(seed, n, out_c, G, cdf, offs, at, first, hist, rest, W, SM, RT, P):
    """``n`` games in blocks of ``W.shape[1]``; histogram every reported statistic into
    ``out_c[s, value]`` exactly as :func:`.kernel.run_games` does (``at``, ``rest``: slots
    of the statistics row ``RT``; the other arrays from :func:`_prologue`)."""
    B = W.shape[1]
    nf = G[H_NF]
    nt = G[R_TURNS]
    fo = G[H_FOFF]
    a0 = G[H_AOFF]
    a1 = a0 + A_NCOLS
    one = np.int64(1)
    start1 = G[a1 + A_START]
    m0 = (one << G[a0 + A_STOP]) - (one << G[a0 + A_START])
    m1 = (one << G[a1 + A_STOP]) - (one << start1)
    mode = G[R_PENALTY]
    nat1 = np.int64(G[R_NAT1] != 0)
    nat6 = np.int64(G[R_NAT6] != 0)
    immediate = np.int64(G[R_BREAK] == 0)
    rally_pen = np.int64(G[R_RALLY_PEN] != 0)
    removed = np.int64(G[R_WITHDRAW] != 0)
    broken0, _rok, any_outside = game_constants(G)
    os_start = any_outside and G[R_OS_TIMING] == 1
    os_end = any_outside and G[R_OS_TIMING] == 0
    s0 = G[a0 + A_STRAT]
    s1 = G[a1 + A_STRAT]
    rally_first = -1 if s0 == s1 else (0 if s0 > s1 else 1)  # else the strategy roll's winner
    r0 = G[a0 + A_STAT0] + AS_TURNS + 3 * nt
    r1 = G[a1 + A_STAT0] + AS_TURNS + 3 * nt
    tw = T_NCOLS * nf + TA_NCOLS * 2
    for j0 in range(0, n, B):
        nb = min(B, n - j0)
        for g in range(nb):
            SM[g] = stream_state(seed, j0 + g)
            W[L_BROKEN, g] = broken0
            W[L_EVER, g] = broken0
            W[L_GONE, g] = 0
            W[L_LAST, g] = -1
        for f in range(nf):
            s = G[fo + f * F_NCOLS + F_SHOCK0]
            for g in range(nb):
                W[L_NROWS + f, g] = s
        for k in range(at.shape[0]):
            for g in range(nb):
                RT[at[k], g] = 0
        for k in range(rest.shape[0]):
            for g in range(nb):
                RT[rest[k], g] = 0
        for t in range(nt):
            if os_start:
                outside_start(W, SM, G, cdf, nb, immediate)
            tb = G[H_TOFF] + t * tw
            strategy(W, SM, RT, hist, G, tb + T_NCOLS * nf, nb)
            n_act = action_setup(W, G, nb, m0, m1, mode != 0)
            while n_act > 0:
                n_act = action_step(W, SM, nb, P)
            action_finish(W, RT, G, nb, r0, r1)
            if os_end:
                end_phase_outside(W, SM, G, cdf, nb, immediate)
            else:
                end_phase(W, G, nb, immediate)
            for g in range(nb):
                W[L_FIRST, g] = rally_first if rally_first >= 0 else W[L_W, g]
            rally(W, SM, RT, G, nb, m0, start1, mode, nat1, nat6, rally_pen, removed)
            turn_statistics(W, RT, hist, G, tb, nb, m0, m1)
        for k in range(at.shape[0]):
            count_values(hist, first[k], RT[at[k]], nb)
    for s in range(offs.shape[0] - 1):
        for v in range(offs[s + 1] - offs[s]):
            out_c[s, v] += hist[offs[s] + v]


#: Engine kernel (contract in :mod:`oddslab.engine`): :func:`run_block_games` for each chunk of
#: a batch, on threads; the same parameters and results as :data:`.kernel.run_formation_actions`
#: for a scenario whose armies both have a fixed activation order.
run_formation_actions_block = ChunkKernel(
    run_block_games, "run_formation_actions_block", prologue=_prologue
)
