"""Numba kernel of the hex platoon ruleset, part 3: the trial loop, statistics, drivers.

:func:`run_hex_platoon` is the engine kernel (contract in :mod:`oddslab.engine`); it runs
either the general step interpreter (:func:`play`) or, for a scenario that is one static
fire attack, the fast path :func:`fire_trials`. Layouts are those of :mod:`.kernel`.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import D6, randint, seed_state

from . import layout as K
from .kernel import (
    _lead,
    _stack_alive,
    _stack_hit,
    barred,
    distribute,
    fire,
    hex_attack,
    hq_check,
    mark_moved,
    stack_barred,
    stack_out_of_command,
    state_detail_of,
    state_of,
)
from .kernel_melee import air_strike, melee
from .layout import BOOL, I1, I2, I3, INT, U1, U2, sig  # noqa: F401


@jit_noalloc(inline="always")
def can_call(ws, u):
    """Unit ``u`` may call an artillery mission (or observe mortar fire as one) now: not
    eliminated, Good Order, in command and no Ops Complete marker (rule 11.2: "a Good Order
    (s)HQ/Reconnaissance Unit ... this must be the first action of the unit"; 1.3.3.2:
    recon "who are in command")."""
    return (
        ws[K.W_SIDE, u] < 2 and ws[K.W_DIS, u] == 0 and ws[K.W_OOC, u] == 0 and ws[K.W_OPS, u] == 0
    )


@jit_noalloc(inline="always")
def play(st, ui, hx, hexu, sp, mb, rules, ws, rec, hs, pick, tmp):
    """One trial: every step in order, from the initial unit state."""
    n_units = ui.shape[0]
    for u in range(n_units):
        ws[K.W_SIDE, u] = ui[u, K.U_SIDE0]
        ws[K.W_DIS, u] = ui[u, K.U_DIS0]
        ws[K.W_OPS, u] = ui[u, K.U_OPS0]
        ws[K.W_OOC, u] = ui[u, K.U_OOC0]
        ws[K.W_CLOST, u] = 0
        ws[K.W_HIT, u] = 0
        ws[K.W_KILL, u] = 0
        ws[K.W_GONE, u] = 0
        ws[K.W_STEP, u] = 0
        ws[K.W_MV, u] = 0
    for h in range(hx.shape[0]):
        hs[h] = 0
    for k in range(rec.shape[0]):
        for j in range(K.NREC):
            rec[k, j] = 0
    for k in range(sp.shape[0]):
        kind = sp[k, K.S_KIND]
        attack = True
        h = sp[k, K.S_MARK]
        if h >= 0 and hs[h] & K.HS_MOVED:  # the stack's movement is over
            hs[h] -= K.HS_MOVED
            mark_moved(hx, hexu, ws, h)
        for u in range(n_units):  # only the stack this step may continue is still moving
            if ws[K.W_MV, u] and ui[u, K.U_HEX] != sp[k, K.S_CONT]:
                ws[K.W_MV, u] = 0
        if kind == K.K_FIRE:
            fire(st, ui, hx, ws, rules, sp, k, rec)
            if sp[k, K.S_OPP] >= 0:
                h = ui[sp[k, K.S_TARGET], K.U_HEX]
                if _stack_hit(hx, hexu, ws, h):
                    hs[h] |= K.HS_STOPPED
        elif kind == K.K_MORTAR:
            f = sp[k, K.S_UNIT]
            spot = sp[k, K.S_SPOT]
            ok = ws[K.W_SIDE, f] < 2 and ws[K.W_DIS, f] == 0 and ws[K.W_OPS, f] == 0
            ok = ok and ws[K.W_OOC, f] == 0
            if spot >= 0:
                ok = ok and can_call(ws, spot)
            if ok:
                ws[K.W_OPS, f] = 1
                rec[k, 3] = 1
                if spot >= 0 and sp[k, K.S_FLAG] and randint(st, D6) == 0:
                    rec[k, 2] = 1
                else:
                    lead = _lead(ui, ws, sp[k, K.S_HQ])
                    hits, uns = hex_attack(
                        st, ui, hx, hexu, ws, rules, sp[k, K.S_TARGET], sp[k, K.S_DICE],
                        sp[k, K.S_AUG], sp[k, K.S_TH], lead, rules[K.R_HQ_MODE], False, pick,
                    )  # fmt: skip
                    rec[k, 0] = hits
                    rec[k, 1] = uns
        elif kind == K.K_ARTILLERY:
            spot = sp[k, K.S_SPOT]
            if spot < 0 or can_call(ws, spot):
                rec[k, 15] = 1
                if randint(st, D6) == 0:
                    rec[k, 0] = 1
                else:
                    for m in range(sp[k, K.S_NMEM]):
                        hits, uns = hex_attack(
                            st, ui, hx, hexu, ws, rules, mb[k, m, K.M_UNIT], sp[k, K.S_DICE],
                            0, sp[k, K.S_TH], 0, 0, False, pick,
                        )  # fmt: skip
                        rec[k, 1 + 2 * m] = hits
                        rec[k, 2 + 2 * m] = uns
        elif kind == K.K_MOVE:
            h = sp[k, K.S_TARGET]
            # a stopped stack moves no further; out of command it "may only opportunity fire";
            # a unit with an Ops Complete marker (from before this movement) has done its part
            if (
                (hs[h] & K.HS_STOPPED) == 0
                and _stack_alive(hx, hexu, ws, h) > 0
                and stack_out_of_command(hx, hexu, ws, h) == 0
                and stack_barred(hx, hexu, ws, rules, h) == 0
            ):
                rec[k, 1] = 1
                if rules[K.R_MOVE_OPS_ON_ENTER]:
                    mark_moved(hx, hexu, ws, h)
                else:  # marked when its movement is over (sp[., S_MARK])
                    hs[h] |= K.HS_MOVED
                if sp[k, K.S_FLAG]:
                    a = randint(st, D6) + 1
                    b = randint(st, D6) + 1
                    if rules[K.R_MINES_SUM]:
                        hits = 1 if a + b >= 5 else 0
                    else:
                        hits = (a >= 5) + (b >= 5)
                    rec[k, 0] = hits
                    if hx[h, K.H_IP] and rules[K.R_MINES_NO_IP] == 0 and hits > 0:
                        hits -= 1  # 8.1: "the first hit of any attack"
                    distribute(
                        st, ui, ws, rules, hexu, hx[h, K.H_FIRST], hx[h, K.H_COUNT], hits,
                        False, False, pick,
                    )  # fmt: skip
                    if rules[K.R_MINES_NO_STOP] == 0 and _stack_hit(hx, hexu, ws, h):
                        hs[h] |= K.HS_STOPPED
            else:
                attack = False
        elif kind == K.K_ASSAULT or kind == K.K_OVERRUN:
            melee(st, ui, hx, hexu, ws, rules, sp, mb, k, rec, hs, pick, tmp)
        elif kind == K.K_AIR:
            air_strike(st, ui, hx, hexu, ws, rules, sp, mb, k, rec, pick)
        else:
            attack = False
            if kind == K.K_CLEAR:
                cleared = 0
                for m in range(sp[k, K.S_NMEM]):
                    u = mb[k, m, K.M_UNIT]
                    if ws[K.W_SIDE, u] >= 2 or ws[K.W_OOC, u]:
                        continue  # out of command: "may only opportunity fire"
                    if barred(ws, rules, u):
                        continue  # its Ops Complete marker: it has acted already
                    ws[K.W_OPS, u] = 1
                    even = 0
                    total = 0
                    for _ in range(mb[k, m, K.M_DICE]):
                        d = randint(st, D6) + 1
                        even |= (d & 1) == 0
                        total += d
                    if rules[K.R_CLEAR_SUM]:
                        even = (total & 1) == 0
                    cleared |= even
                rec[k, 0] = cleared
            elif kind == K.K_RALLY:
                rallied = 0
                for m in range(sp[k, K.S_NMEM]):
                    u = mb[k, m, K.M_UNIT]
                    if ws[K.W_SIDE, u] >= 2 or ws[K.W_DIS, u] == 0:
                        continue
                    lead = _lead(ui, ws, hx[ui[u, K.U_HEX], K.H_HQ])
                    roll = randint(st, D6) + randint(st, D6) + 2 + ws[K.W_OOC, u] - lead
                    if roll <= ui[u, K.U_MORALE]:
                        ws[K.W_DIS, u] = 0
                        rallied += 1
                rec[k, 0] = rallied
            elif kind == K.K_COMMAND:
                h = sp[k, K.S_TARGET]
                if randint(st, D6) + randint(st, D6) + 2 > sp[k, K.S_FLAG]:
                    rec[k, 0] = 1
                    for i in range(hx[h, K.H_FIRST], hx[h, K.H_FIRST] + hx[h, K.H_COUNT]):
                        ws[K.W_OOC, hexu[i]] = 1
                    # 4.2 "hex is Out Of Command": the (s)HQ in it too (it then calls no
                    # artillery mission, 11.2)
                    if hx[h, K.H_HQ] >= 0:
                        ws[K.W_OOC, hx[h, K.H_HQ]] = 1
        if attack:
            for h in range(hx.shape[0]):
                if hx[h, K.H_HQ] >= 0 and _stack_hit(hx, hexu, ws, h):
                    hq_check(st, ui, hx, hexu, ws, rules, h)
            for u in range(n_units):
                ws[K.W_HIT, u] = 0
                ws[K.W_KILL, u] = 0
                ws[K.W_STEP, u] = 0


@jit_noalloc(inline="always")
def evaluate(ui, hx, hexu, ws, rec, so, res):
    """The statistics of the finished trial into ``res`` (programme ``so``)."""
    for s in range(so.shape[0]):
        kind = so[s, K.O_KIND]
        a = so[s, K.O_A]
        b = so[s, K.O_B]
        if kind == K.OK_STATE:
            v = state_of(ws, a)
        elif kind == K.OK_REC:
            v = rec[a, b]
        elif kind == K.OK_HEX_GE:
            v = 0
            for i in range(hx[a, K.H_FIRST], hx[a, K.H_FIRST] + hx[a, K.H_COUNT]):
                v += state_of(ws, hexu[i]) >= b
        elif kind == K.OK_STATE_DETAIL:
            v = state_detail_of(ws, a)
        else:
            v = 1 if state_of(ws, a) >= b else 0
        top = so[s, K.O_MAX]
        res[s] = v if v < top else top


def _prologue(seed, n, out, trials, ui, hx, hexu, sp, mb, rules, so, fast):
    """Per-chunk setup (Python): the arguments of :func:`play_trials` (the RNG state from
    the seed words ``seed``, uint64[4], and the scratch arrays; the chunk's records
    ``trials`` handed on as they are). ``fast`` is unused here: a single static fire attack
    runs :data:`.kernel_fire.run_hex_fire` instead."""
    nu = ui.shape[0]
    ws = np.zeros((K.W_NROWS, nu), dtype=np.int64)
    rec = np.zeros((sp.shape[0], K.NREC), dtype=np.int64)
    hs = np.zeros(hx.shape[0], dtype=np.int64)
    pick = np.zeros(nu + 1, dtype=np.int64)
    tmp = np.zeros(nu + 1, dtype=np.int64)
    res = np.zeros(so.shape[0], dtype=np.int64)
    st = seed_state(seed)
    return (st, n, out, trials, ui, hx, hexu, sp, mb, rules, so, ws, rec, hs, pick, tmp, res)


@jit_noalloc(vectorize=False, llvm_opt=2)
def play_trials(st, n, out, trials, ui, hx, hexu, sp, mb, rules, so, ws, rec, hs, pick, tmp, res):
    """One chunk: ``n`` trials into ``out[stat, value]``, the step interpreter :func:`play`
    running trial after trial on the scratch arrays of :func:`_prologue` (allocates
    nothing). :func:`play` and :func:`evaluate` are inlined here, so numba compiles this
    one function rather than linking, optimising and emitting their code a second time.

    ``trials`` int32[r, n_stats] (per-trial records, :mod:`oddslab._kernels.chunks`): when
    ``r > 0`` trial ``t`` also writes its statistics to ``trials[t, :]``; ``rec`` is the
    trial's own per-step scratch, not these records."""
    keep = trials.shape[0] > 0
    for t in range(n):
        play(st, ui, hx, hexu, sp, mb, rules, ws, rec, hs, pick, tmp)
        evaluate(ui, hx, hexu, ws, rec, so, res)
        for s in range(res.shape[0]):
            out[s, res[s]] += 1
        if keep:
            for s in range(res.shape[0]):
                trials[t, s] = res[s]


#: Engine kernel (contract in :mod:`oddslab.engine`) of the step interpreter:
#: :func:`play_trials` on the arguments of :func:`_prologue`, for each chunk of a batch, on
#: threads (:class:`~oddslab._kernels.chunks.ChunkKernel`).
run_hex_platoon = ChunkKernel(play_trials, "run_hex_platoon", prologue=_prologue, records=True)
