"""The lock-step kernels of formation actions: a block of games played together, one step at a
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
:func:`~.kernel.play_game` draws them, so these kernels and that one give bit-identical
histograms (tests/test_formation_actions_kernel_block.py). Rallies, rolled one at a time alternating between the armies,
are processed here formation by formation, each reading the die at its place in that order
(:func:`.block_end.rally`).

:func:`run_block_games` plays games whose activation orders are both fixed (``A_FIXED``);
:func:`run_block_games_picking` those in which an army picks its next formation at each
activation (best/worst-first when the chances change, see
:func:`~.block_steps.action_step_picking`). The engine runs every simulation on one of them;
:func:`~.kernel.play_game` replays scripted dice and is the tests' reference.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_inner, jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import stream_state
from oddslab.rulesets.formation_actions import kernel as K
from oddslab.rulesets.formation_actions.block_end import (
    end_phase,
    end_phase_outside,
    formation_end,
    outside_start,
    rally,
    record_block,
    record_turn,
    split_rallies,
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
    action_step_picking,
    count_values,
    strategy,
)
from oddslab.rulesets.formation_actions.layout import (
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
    F_BROKEN0,
    F_COMMAND,
    F_NCOLS,
    F_OS_KIND,
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
from oddslab.rulesets.formation_actions.model import pass_faces

__all__ = [
    "BLOCK",
    "run_block_games",
    "run_block_games_picking",
    "run_formation_actions_block",
    "run_formation_actions_picking",
    "step_constants",
]

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


def step_constants(G: np.ndarray) -> np.ndarray:
    """What :func:`~.block_steps.action_step` reads of ``G``, packed (int64[42]), by
    activation position ``i`` (for an army whose order is picked at each activation, the
    position is the formation's index: :func:`_prologue`): ``P[0:3]`` the test's target for a
    formation with no Shock, plus 2, in 4-bit fields (positions 0-15, 16-31, 32-47); ``P[3]``
    the positions where Shock takes 1 more off it; ``P[4]``, ``P[5]`` the positions whose
    retaining test (with its -1) passes often enough for the army to try, without and with
    Shock; ``P[6:12]`` the naturals, the retain limit, both armies' retain policies and the
    last position; ``P[12:16]`` whether each army picks its order at each activation and
    which (1 best-first, 2 worst-first); ``P[16 + 2 * (6 * m + k - 1) + s]`` the positions
    whose test less ``m`` (0 or 1) passes on ``k`` (1-6) faces or more, without Shock
    (``s`` 0) and with it (``s`` 1); ``P[40]`` the formations broken at the start, ``P[41]``
    whether any formation gains outside Shock."""
    nf = int(G[H_NF])
    fo = int(G[H_FOFF])
    po = int(G[H_POFF])
    ao = int(G[H_AOFF])
    a1 = ao + A_NCOLS
    pen = _PENALTY[int(G[R_PENALTY])]
    nat1 = bool(G[R_NAT1])
    nat6 = bool(G[R_NAT6])
    P = np.zeros(42, dtype=np.int64)
    words = [0, 0, 0]
    extra = rok0 = rok1 = 0
    faces = [0] * 24
    for i in range(nf):
        row = fo + int(G[po + i]) * F_NCOLS
        cmd = int(G[row + F_COMMAND])
        sup = int(G[row + F_SUPP] != 0)
        t0 = cmd - pen(sup, 0)
        t1 = cmd - pen(sup, 1)
        words[i // 16] |= (t0 + 2) << (4 * (i % 16))
        extra |= (t0 - t1) << i
        minf = int(G[(ao if i < int(G[ao + A_STOP]) else a1) + A_MINFACES])
        rok0 |= int(pass_faces(t0 - 1, nat1, nat6) >= minf) << i
        rok1 |= int(pass_faces(t1 - 1, nat1, nat6) >= minf) << i
        for m in range(2):
            for k in range(1, 7):
                for sh, t in enumerate((t0, t1)):
                    faces[2 * (6 * m + k - 1) + sh] |= int(pass_faces(t - m, nat1, nat6) >= k) << i
    P[:6] = [*words, extra, rok0, rok1]
    P[6:9] = [nat1, nat6, G[R_RETAIN_LIMIT] != 0]
    P[9:12] = [G[ao + A_RETAIN], G[a1 + A_RETAIN], nf - 1]
    P[12:16] = [G[ao + A_FIXED] == 0, G[a1 + A_FIXED] == 0, G[ao + A_ORDER], G[a1 + A_ORDER]]
    P[16:40] = faces
    rows = fo + F_NCOLS * np.arange(nf)
    P[40] = int((G[rows + F_BROKEN0] << np.arange(nf)).sum())  # broken at the start
    P[41] = bool((G[rows + F_OS_KIND] != 0).any())  # any outside Shock
    return P


def _prologue(seed_words, n, out_c, rec, G0, cdf, slots, offs):
    """Per-chunk setup (Python): :func:`.kernel._prologue`'s arguments without the scalar
    generator state, plus the block's work arrays and :func:`step_constants`."""
    seed, _st, n, out_c, rec, G, cdf, offs, at, first, hist, rest, rs = K._prologue(
        seed_words, n, out_c, rec, G0, cdf, slots, offs
    )
    nf = int(G[H_NF])
    # an army whose order is picked at each activation keeps its formations in listed order
    # (position = formation index); the step picks among them by their chances
    ao = int(G[H_AOFF])
    po = int(G[H_POFF])
    for a in range(2):
        row = ao + a * A_NCOLS
        if G[row + A_FIXED] == 0:
            start, stop = int(G[row + A_START]), int(G[row + A_STOP])
            G[po + start : po + stop] = np.arange(start, stop)
    W = np.zeros((L_NROWS + nf, BLOCK), dtype=np.int64)
    SM = np.zeros(BLOCK, dtype=np.uint64)
    RT = np.zeros((int(G[H_NSLOTS]), BLOCK), dtype=np.int64)
    ro = G[H_ROFF]
    return (
        seed,
        n,
        out_c,
        rec,
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
        rs - ro,
    )


@jit_inner(ints="m0 m1 start1")
def _armies(G):
    """``(m0, m1, start1)``: each army's formations as a mask, and army 1's first."""
    a0 = G[H_AOFF]
    a1 = a0 + A_NCOLS
    one = np.int64(1)
    start1 = G[a1 + A_START]
    m0 = (one << G[a0 + A_STOP]) - (one << G[a0 + A_START])
    m1 = (one << G[a1 + A_STOP]) - (one << start1)
    return m0, m1, start1


@jit_inner
def _block_start(seed, j0, nb, W, SM, RT, G, P, at, rest):
    """Lanes ``0..nb-1`` start games ``j0..j0+nb-1``: their streams, the formations' starting
    Shock and flags, and zeroed statistics rows."""
    nf = G[H_NF]
    fo = G[H_FOFF]
    broken0 = P[40]
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


@jit_inner
def _turn_start(W, SM, RT, hist, G, P, cdf, t, nb):
    """Turn ``t`` up to the action phase (outside Shock at its start when that is the
    timing, the strategy roll, who may act); returns how many lanes have a formation to
    activate."""
    nf = G[H_NF]
    m0, m1, _s1 = _armies(G)
    any_outside = P[41] != 0
    if any_outside and G[R_OS_TIMING] == 1:
        outside_start(W, SM, G, cdf, nb, np.int64(G[R_BREAK] == 0))
    tb = G[H_TOFF] + t * (T_NCOLS * nf + TA_NCOLS * 2)
    strategy(W, SM, RT, hist, G, tb + T_NCOLS * nf, nb)
    return action_setup(W, G, nb, m0, m1, G[R_PENALTY] != 0)


@jit_inner
def _turn_end(W, SM, RT, hist, G, P, cdf, t, nb):
    """Turn ``t`` after the action phase: retain counts, the end phase, rallies and the
    turn's statistics."""
    nf = G[H_NF]
    nt = G[R_TURNS]
    a0 = G[H_AOFF]
    a1 = a0 + A_NCOLS
    m0, m1, start1 = _armies(G)
    immediate = np.int64(G[R_BREAK] == 0)
    action_finish(
        W,
        RT,
        G,
        nb,
        G[a0 + A_STAT0] + AS_TURNS + 3 * nt,
        G[a1 + A_STAT0] + AS_TURNS + 3 * nt,
    )
    any_outside = P[41] != 0
    if any_outside and G[R_OS_TIMING] == 0:
        end_phase_outside(W, SM, G, cdf, nb, immediate)
    else:
        end_phase(W, G, nb, immediate)
    s0 = G[a0 + A_STRAT]
    s1 = G[a1 + A_STRAT]
    first = -1 if s0 == s1 else (0 if s0 > s1 else 1)  # else the strategy roll's winner
    for g in range(nb):
        W[L_FIRST, g] = first if first >= 0 else W[L_W, g]
    rally(
        W,
        SM,
        RT,
        G,
        nb,
        m0,
        start1,
        G[R_PENALTY],
        np.int64(G[R_NAT1] != 0),
        np.int64(G[R_NAT6] != 0),
        np.int64(G[R_RALLY_PEN] != 0),
        np.int64(G[R_WITHDRAW] != 0),
    )
    turn_statistics(W, RT, hist, G, G[H_TOFF] + t * (T_NCOLS * nf + TA_NCOLS * 2), nb, m0, m1)


@jit_inner
def _block_end(hist, first, RT, at, nb, G, W):
    """Histogram the game totals of the block's ``nb`` games (with each formation's end
    state, set here: it draws nothing)."""
    split_rallies(RT, G, nb)
    formation_end(W, RT, G, nb)
    for k in range(at.shape[0]):
        count_values(hist, first[k], RT[at[k]], nb)


@jit_inner
def _copy_out(hist, offs, out_c):
    """Add the chunk's compact histogram into ``out_c[s, value]``."""
    for s in range(offs.shape[0] - 1):
        for v in range(offs[s + 1] - offs[s]):
            out_c[s, v] += hist[offs[s] + v]


@jit_noalloc
def run_block_games(seed, n, out_c, rec, G, cdf, offs, at, first, hist, rest, W, SM, RT, P, rs):
    """``n`` games in blocks of ``W.shape[1]``; histogram every reported statistic into
    ``out_c[s, value]`` exactly as :func:`.kernel.run_games` does, and each game's
    statistics into its own row ``rec[j, s]`` when ``rec`` has rows (``at``, ``rest``,
    ``rs``: slots of the statistics row ``RT``; the other arrays from :func:`_prologue`).
    Both armies' activation orders are fixed."""
    B = W.shape[1]
    keep = rec.shape[0] > 0
    for j0 in range(0, n, B):
        nb = min(B, n - j0)
        _block_start(seed, j0, nb, W, SM, RT, G, P, at, rest)
        for t in range(G[R_TURNS]):
            n_act = _turn_start(W, SM, RT, hist, G, P, cdf, t, nb)
            while n_act > 0:
                n_act = action_step(W, SM, nb, P)
            _turn_end(W, SM, RT, hist, G, P, cdf, t, nb)
            if keep:
                record_turn(W, RT, G, t, nb)
        _block_end(hist, first, RT, at, nb, G, W)
        if keep:
            record_block(rec, j0, nb, RT, rs)
    _copy_out(hist, offs, out_c)


@jit_noalloc
def run_block_games_picking(
    seed, n, out_c, rec, G, cdf, offs, at, first, hist, rest, W, SM, RT, P, rs
):
    """:func:`run_block_games` for games in which an army picks its order at each activation
    (a kernel of its own: the picking step is a second second of compile that games with
    fixed orders need not wait for)."""
    B = W.shape[1]
    keep = rec.shape[0] > 0
    for j0 in range(0, n, B):
        nb = min(B, n - j0)
        _block_start(seed, j0, nb, W, SM, RT, G, P, at, rest)
        for t in range(G[R_TURNS]):
            n_act = _turn_start(W, SM, RT, hist, G, P, cdf, t, nb)
            while n_act > 0:
                n_act = action_step_picking(W, SM, nb, P)
            _turn_end(W, SM, RT, hist, G, P, cdf, t, nb)
            if keep:
                record_turn(W, RT, G, t, nb)
        _block_end(hist, first, RT, at, nb, G, W)
        if keep:
            record_block(rec, j0, nb, RT, rs)
    _copy_out(hist, offs, out_c)


#: Engine kernels (contract in :mod:`oddslab.engine`): :func:`run_block_games` (both armies'
#: orders fixed) and :func:`run_block_games_picking` for each chunk of a batch, on threads;
#: the same parameters and results as :data:`.kernel.run_formation_actions`.
run_formation_actions_block = ChunkKernel(
    run_block_games, "run_formation_actions_block", prologue=_prologue, records=True
)
run_formation_actions_picking = ChunkKernel(
    run_block_games_picking, "run_formation_actions_picking", prologue=_prologue, records=True
)
