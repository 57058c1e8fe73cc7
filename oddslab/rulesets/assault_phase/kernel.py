"""Kernel for the assault-phase ruleset: one trial is one whole combat.

Charge, rounds (Initiative steps from 11 = "strikes first" down to 1, see :mod:`.fight`),
assault result, morale, fall back, sweeping advance, repeated for up to
``rules[R_MAX_TURNS]`` turns. :func:`run_trials` plays the combats of a chunk one after
another; each writes its per-trial statistics into ``res`` (layout ``S_*`` then one slain
count per group, see :mod:`.layout`) and is histogrammed.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_inner, jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import seed_state
from oddslab.rulesets.assault_phase.fight import d6 as _d6
from oddslab.rulesets.assault_phase.fight import ld_test as _ld_test
from oddslab.rulesets.assault_phase.fight import pick_target
from oddslab.rulesets.assault_phase.layout import (
    COVER_STEP,
    CX_ENT,
    CX_HIT,
    CX_NENT,
    CX_RULES,
    CX_WOUND,
    E_NCOLS,
    E_UNIT,
    G_AIM,
    G_CONTACT,
    G_COUNT,
    G_FIST,
    G_I,
    G_I_C,
    G_LD,
    G_SIDE,
    G_SUPPORT,
    G_UNIT,
    MAX_SPLIT,
    R_DOUBLE_ONE,
    R_FIST_LAST,
    R_FRAG,
    R_HALF_PENALTY,
    R_LD_MODE,
    R_MAX_TURNS,
    R_PILE_IN,
    R_PLASMA,
    R_REACH,
    S_CHARGE,
    S_DESTROYED,
    S_DRAW,
    S_FELL_BACK,
    S_FIGHT_ATT,
    S_FIGHT_DEF,
    S_INFLICTED,
    S_LOSER_FAILED,
    S_NFIXED,
    S_REGROUP_FAILED,
    S_SLAIN,
    S_SWEPT,
    S_TURNS,
    S_WIN_ATT,
    S_WIN_DEF,
    U_CHARGE_DIST,
    U_COVER,
    U_FALLING_BACK,
    U_FAST,
    U_FIRED,
    U_GRENADES,
    U_SIDE,
    U_TRAPPED,
    W_ABSENT,
    W_ALIVE,
    W_CHARGE_BONUS,
    W_CON,
    W_DMG,
    W_FB,
    W_FLED,
    W_IN_COMBAT,
    W_NROWS,
    W_PRIO_C,
    W_PRIO_S,
    W_SUP,
    W_SWEEPER,
    W_TURN_INF,
)
from oddslab.rulesets.assault_phase.step import fight_step


@jit_inner(ints="best best_n n")
def _unit_ld(gi, u, wk, mode):
    """Leadership a unit tests on: the highest among its living models, or the majority."""
    best = 0
    if mode == 0:
        for g in range(gi.shape[0]):
            if gi[g, G_UNIT] == u and wk[W_ALIVE, g] > 0 and gi[g, G_LD] > best:
                best = gi[g, G_LD]
        return best
    best_n = 0
    for g in range(gi.shape[0]):
        if gi[g, G_UNIT] != u or wk[W_ALIVE, g] == 0:
            continue
        n = 0
        for h in range(gi.shape[0]):
            if gi[h, G_UNIT] == u and gi[h, G_LD] == gi[g, G_LD]:
                n += wk[W_ALIVE, h]
        if n > best_n or (n == best_n and gi[g, G_LD] > best):
            best_n = n
            best = gi[g, G_LD]
    return best


@jit_inner
def _unit_alive(gi, u, wk):
    n = u - u  # typed int64 zeros: literal 0s cost numba extra typing passes
    for g in range(gi.shape[0]):
        if gi[g, G_UNIT] == u:
            n += wk[W_ALIVE, g]
    return n


@jit_inner
def _unit_start(gi, u):
    n = u - u
    for g in range(gi.shape[0]):
        if gi[g, G_UNIT] == u:
            n += gi[g, G_COUNT]
    return n


@jit_inner(ints="n_att n_def")
def _sides_in_combat(gi, wk):
    """Living models of units still in the combat: (attacker's, defender's)."""
    n_att = 0
    n_def = 0
    for g in range(gi.shape[0]):
        if wk[W_IN_COMBAT, gi[g, G_UNIT]] != 0:
            if gi[g, G_SIDE] == 0:
                n_att += wk[W_ALIVE, g]
            else:
                n_def += wk[W_ALIVE, g]
    return n_att, n_def


@jit_inner
def _roll_distance(st, script, fast):
    """2D6 (3D6 for fast units) inches."""
    total = _d6(st, script) + _d6(st, script)
    if fast:
        total += _d6(st, script)
    return total


@jit_inner
def _record(hist, rec, t, sel, res):
    """Histogram trial ``t``'s reported values (``res[sel[k]]`` into ``hist[k]``) and, when
    the chunk keeps records (``rec`` int32[r, K] not empty), write them to ``rec[t]``."""
    for k in range(sel.shape[0]):
        hist[k, res[sel[k]]] += 1
    if rec.shape[0] > 0:
        for k in range(sel.shape[0]):
            rec[t, k] = res[sel[k]]


@jit_noalloc(
    vectorize=False,
    llvm_opt=1,
    no_cfunc_wrapper=True,
    ints="active f slain_by_att slain_by_def v winner",
    flags="all_fled any_charge any_fled any_sweep cover_on frag_any gone ok plasma_all "
    "reach_unit strikes_first yes",
)
def run_trials(st, ntrials, hist, rec, script, gi, ui, cx, res, wk, sel):
    """``ntrials`` whole combats, serially: each fills ``res`` (``S_NFIXED + G`` values) and
    adds 1 to ``hist[k, res[sel[k]]]`` for every ``k`` (allocates nothing); with ``rec``
    (int32[r, K]) not empty, combat ``t`` also writes ``rec[t, k] = res[sel[k]]`` (the
    records contract of :mod:`oddslab._kernels.chunks`).

    The arguments come from :func:`_prologue`: ``cx`` holds the entity table, rules and charts
    (:func:`_chunk_arrays`); ``wk`` is int64 scratch ``(W_NROWS, max(G, U + 1, E, MAX_SPLIT) +
    1)``, overwritten; ``sel`` int64[K] picks the per-trial values (``S_*`` / ``S_NFIXED + g``)
    that are reported. The combat is written inline in the trial loop, not as a function it
    calls: numba compiles every function it calls on its own and then again inside the
    caller, so one level less is about a second less compiling, with the same machine code.
    The Initiative step (:func:`~.step.fight_step`, with everything it calls) is inlined here
    by LLVM (``always_inline``): called, it took every array as machine words on the stack
    and kept its values there, and the trial ran about 22 % slower (1.6 against 2.05 M
    trials per second on one thread). It has one call site, the steps' loop, whose last pass
    is the sweeping advance, so its code is compiled once.
    """
    G = gi.shape[0]
    U = ui.shape[0]
    for t in range(ntrials):
        for i in range(res.shape[0]):
            res[i] = 0
        double_one = cx[CX_RULES + R_DOUBLE_ONE] != 0
        # typed (not literal) constants: a literal argument compiles another specialisation
        zero = cx[CX_RULES + R_MAX_TURNS] * 0
        yes = zero == 0
        for g in range(G):
            wk[W_ALIVE, g] = gi[g, G_COUNT]
            wk[W_CON, g] = gi[g, G_CONTACT]
            wk[W_SUP, g] = gi[g, G_SUPPORT]
            wk[W_DMG, g] = 0
            wk[W_SWEEPER, g] = -1
        # -- charge: difficult terrain, 2D6 pick the highest ----------------------------------
        any_charge = False
        for u in range(U):
            wk[W_FLED, u] = 0
            wk[W_FB, u] = 0
            wk[W_IN_COMBAT, u] = 1
            wk[W_ABSENT, u] = 0
            wk[W_CHARGE_BONUS, u + 1] = 0
            if ui[u, U_SIDE] == 0:
                dist = ui[u, U_CHARGE_DIST]
                ok = True
                if dist > 0:
                    a = _d6(st, script)
                    b = _d6(st, script)
                    ok = (a if a > b else b) >= dist
                if ok:
                    any_charge = True
                    wk[W_CHARGE_BONUS, u + 1] = 0 if ui[u, U_FIRED] != 0 else 1
                else:
                    wk[W_IN_COMBAT, u] = 0
                    wk[W_ABSENT, u] = 1
        if not any_charge:
            _record(hist, rec, t, sel, res)
            continue
        res[S_CHARGE] = 1
        # -- defenders assaulted while falling back must regroup -------------------------------
        for u in range(U):
            if ui[u, U_SIDE] == 1 and ui[u, U_FALLING_BACK] != 0:
                ld = _unit_ld(gi, u, wk, cx[CX_RULES + R_LD_MODE]) + zero
                if not _ld_test(st, script, ld, double_one):
                    res[S_REGROUP_FAILED] = 1
                    wk[W_IN_COMBAT, u] = 0
                    wk[W_ABSENT, u] = 1
                    for g in range(G):
                        if gi[g, G_UNIT] == u:
                            wk[W_ALIVE, g] = 0
                            wk[W_CON, g] = 0
                            wk[W_SUP, g] = 0
        # cover: defenders in cover strike first, but not against a charging unit with plasma
        # grenades; ``cover_on``: some charging unit in the combat has none (if none has,
        # nobody strikes first under either reading of the grenades)
        cover_on = False
        for u in range(U):
            if ui[u, U_SIDE] == 0 and wk[W_IN_COMBAT, u] != 0 and ui[u, U_GRENADES] != 2:
                cover_on = True
        frag_any = cx[CX_RULES + R_FRAG] != 0
        reach_unit = cx[CX_RULES + R_REACH] != 0
        plasma_all = cx[CX_RULES + R_PLASMA] != 0
        max_turns = cx[CX_RULES + R_MAX_TURNS]
        turns = max_turns + 1
        for turn in range(1, max_turns + 1):
            first = turn == 1
            redirect = not first and cx[CX_RULES + R_PILE_IN] != 0
            for g in range(G):
                u = gi[g, G_UNIT]
                wk[W_PRIO_C, g] = gi[g, G_I_C]
                wk[W_PRIO_S, g] = gi[g, G_I]
                if first and cover_on:
                    v = cx[CX_ENT + E_NCOLS * gi[g, G_AIM] + E_UNIT]  # the unit g attacks
                    if wk[W_ABSENT, v] != 0:  # never joined the fight: g attacks another
                        f = pick_target(gi, cx, g, wk, reach_unit, yes, zero - 1, yes)
                        if f >= 0:
                            v = cx[CX_ENT + E_NCOLS * f + E_UNIT]
                    strikes_first = False
                    if ui[u, U_SIDE] == 1 and ui[u, U_COVER] != 0:
                        # plasma grenades: their unit fights "in Initiative sequence" against
                        # enemy in cover, so only blows at other units come first
                        strikes_first = plasma_all or ui[v, U_GRENADES] != 2
                    if ui[u, U_SIDE] == 0 and ui[u, U_GRENADES] == 1:
                        # frag grenades: "charging enemy in ... cover fight simultaneously with
                        # them": with the cover step when the unit it attacks is in cover
                        if frag_any:
                            strikes_first = _any_cover(ui, wk)
                        else:
                            strikes_first = ui[v, U_COVER] != 0 and wk[W_IN_COMBAT, v] != 0
                    if strikes_first:
                        wk[W_PRIO_S, g] = COVER_STEP
                        if cx[CX_RULES + R_FIST_LAST] == 0 or gi[g, G_FIST] == 0:
                            wk[W_PRIO_C, g] = COVER_STEP
            if not first:
                for u in range(U):
                    wk[W_CHARGE_BONUS, u + 1] = 0
            wk[W_TURN_INF, 0] = 0
            wk[W_TURN_INF, 1] = 0
            # the steps at which some group strikes (bit ``step``), found once per turn
            active = 0
            for g in range(G):
                active |= (1 << wk[W_PRIO_C, g]) | (1 << wk[W_PRIO_S, g])
            # Initiative steps COVER_STEP..1, then step 0: the assault result, morale and,
            # when there is one, the sweeping advance (one call of fight_step for both, so
            # its code is compiled once, in this loop)
            any_fled = False
            for step in range(COVER_STEP, -1, -1):
                if step == 0:
                    any_sweep = False
                    # -- assault result ------------------------------------------------
                    left_a, left_d = _sides_in_combat(gi, wk)
                    winner = -1
                    if left_a == 0 or left_d == 0:
                        if left_a > 0:
                            winner = 0
                        elif left_d > 0:
                            winner = 1
                    elif wk[W_TURN_INF, 0] > wk[W_TURN_INF, 1]:
                        winner = 0
                    elif wk[W_TURN_INF, 1] > wk[W_TURN_INF, 0]:
                        winner = 1
                    if first:
                        if winner == 0:
                            res[S_WIN_ATT] = 1
                        elif winner == 1:
                            res[S_WIN_DEF] = 1
                        else:
                            res[S_DRAW] = 1
                    for u in range(U):
                        if _unit_alive(gi, u, wk) == 0:
                            wk[W_IN_COMBAT, u] = 0
                    # -- loser checks morale -------------------------------------------
                    if winner >= 0:
                        loser = 1 - winner
                        for u in range(U):
                            if ui[u, U_SIDE] != loser or wk[W_IN_COMBAT, u] == 0:
                                continue
                            ld = _unit_ld(gi, u, wk, cx[CX_RULES + R_LD_MODE]) + zero
                            if cx[CX_RULES + R_HALF_PENALTY] != 0 and 2 * _unit_alive(
                                gi, u, wk
                            ) < _unit_start(gi, u):
                                ld -= 1
                            if not _ld_test(st, script, ld, double_one):
                                wk[W_FLED, u] = 1
                                any_fled = True
                                res[S_FELL_BACK + loser] = 1
                                if first:
                                    res[S_LOSER_FAILED] = 1
                                wk[W_FB, u] = _roll_distance(st, script, ui[u, U_FAST] != 0)
                                if ui[u, U_TRAPPED] != 0:  # trapped: destroyed, no sweep needed
                                    for g in range(G):
                                        if gi[g, G_UNIT] == u:
                                            wk[W_ALIVE, g] = 0
                                            wk[W_CON, g] = 0
                                            wk[W_SUP, g] = 0
                                    wk[W_IN_COMBAT, u] = 0
                        # -- sweeping advance: winners whose every opponent fell back ------
                        if any_fled:
                            for g in range(G):
                                wk[W_SWEEPER, g] = -1
                            for w in range(U):
                                if ui[w, U_SIDE] != winner or wk[W_IN_COMBAT, w] == 0:
                                    continue
                                # "only ... if all of the units they are Engaged with fall
                                # back": every enemy unit still in the combat (all of them
                                # are engaged) must have fled
                                all_fled = True
                                for v in range(U):
                                    if ui[v, U_SIDE] == loser and wk[W_IN_COMBAT, v] != 0:
                                        if wk[W_FLED, v] == 0:
                                            all_fled = False
                                if not all_fled:
                                    continue
                                dist = _roll_distance(st, script, ui[w, U_FAST] != 0)
                                for g in range(G):
                                    if gi[g, G_UNIT] != w or wk[W_ALIVE, g] == 0:
                                        continue
                                    # the unit it fought if caught, else the first other unit caught
                                    v = cx[CX_ENT + E_NCOLS * gi[g, G_AIM] + E_UNIT]
                                    if not (wk[W_IN_COMBAT, v] != 0 and dist > wk[W_FB, v]):
                                        v = -1
                                        for x in range(U):
                                            if (
                                                v < 0
                                                and ui[x, U_SIDE] == loser
                                                and wk[W_FLED, x] != 0
                                            ):
                                                if wk[W_IN_COMBAT, x] != 0 and dist > wk[W_FB, x]:
                                                    v = x
                                    if v >= 0:
                                        wk[W_SWEEPER, g] = v
                                        any_sweep = True
                                        res[S_SWEPT + loser] = 1
                    if not any_sweep:
                        break
                elif (active >> step) & 1 == 0:
                    continue
                # a sweeping advance's wounds count in the totals, not in the result (decided)
                fight_step(st, script, gi, cx, step, wk, redirect, step == 0, res)
            if any_fled:
                for u in range(U):
                    if wk[W_FLED, u] != 0:
                        wk[W_IN_COMBAT, u] = 0
            res[S_INFLICTED] += wk[W_TURN_INF, 0]
            res[S_INFLICTED + 1] += wk[W_TURN_INF, 1]
            left_a, left_d = _sides_in_combat(gi, wk)
            if left_a == 0 or left_d == 0:
                turns = turn
                if left_a > 0:
                    res[S_FIGHT_ATT] = 1
                elif left_d > 0:
                    res[S_FIGHT_DEF] = 1
                break
            # pile in: survivors move into base contact for the next turn
            if cx[CX_RULES + R_PILE_IN] != 0:
                for g in range(G):
                    wk[W_CON, g] = wk[W_ALIVE, g]
                    wk[W_SUP, g] = 0
        res[S_TURNS] = turns
        slain_by_att = 0  # (sums in registers, not read-modify-write on res)
        slain_by_def = 0
        for g in range(G):
            if gi[g, G_SIDE] == 0:
                slain_by_def += res[S_NFIXED + g]
            else:
                slain_by_att += res[S_NFIXED + g]
        res[S_SLAIN] += slain_by_att
        res[S_SLAIN + 1] += slain_by_def
        for side in range(2):
            gone = True
            for g in range(G):
                if gi[g, G_SIDE] == side and wk[W_ALIVE, g] > 0:
                    gone = False
            res[S_DESTROYED + side] = 1 if gone else 0
        _record(hist, rec, t, sel, res)


@jit_inner
def _any_cover(ui, wk):
    for u in range(ui.shape[0]):
        if ui[u, U_SIDE] == 1 and ui[u, U_COVER] != 0 and wk[W_IN_COMBAT, u] != 0:
            return True
    return False


def _chunk_arrays(gi, ui, ei, rules, hit_tab, wound_tab):
    """Per-chunk arrays (numpy): the work array ``wk`` and the constants ``cx``.

    ``cx`` is the entity table, rule switches and charts in one int64 vector (layout
    ``CX_*``): every call of the step passes this one array instead of four (each array
    argument is 7-9 machine words pushed per call).
    """
    n = max(gi.shape[0], ui.shape[0] + 1, ei.shape[0], MAX_SPLIT) + 1
    wk = np.zeros((W_NROWS, n), dtype=np.int64)
    E = ei.shape[0]
    cx = np.zeros(CX_ENT + E_NCOLS * E, dtype=np.int64)
    cx[CX_NENT] = E
    cx[CX_RULES : CX_RULES + rules.shape[0]] = rules
    cx[CX_HIT : CX_HIT + 121] = hit_tab[:11, :11].ravel()
    cx[CX_WOUND : CX_WOUND + 121] = wound_tab[:11, :11].ravel()
    cx[CX_ENT : CX_ENT + E_NCOLS * E] = ei[:, :E_NCOLS].ravel()
    return wk, cx


def run_scripted(gi, ui, ei, rules, hit_tab, wound_tab, script, seed_words):
    """One trial with scripted dice (tests); returns ``res`` (int64[S_NFIXED + G])."""
    res = np.zeros(S_NFIXED + gi.shape[0], dtype=np.int64)
    wk, cx = _chunk_arrays(gi, ui, ei, rules, hit_tab, wound_tab)
    hist = np.zeros((0, 1), dtype=np.int64)  # nothing histogrammed: ``res`` is the answer
    sel = np.zeros(0, dtype=np.int64)
    rec = np.zeros((0, 0), dtype=np.int32)
    run_trials(seed_state(seed_words), 1, hist, rec, script, gi, ui, cx, res, wk, sel)
    return res


def _prologue(seed_words, ntrials, hist, rec, gi, ui, ei, rules, hit_tab, wound_tab, sel):
    """Per-chunk setup (Python): the arguments of :func:`run_trials` (the RNG state from the
    seed words, uint64[4], the chunk's records ``rec`` as they are, no script, the result
    row and the chunk's arrays)."""
    script = None  # nothing scripted: compiled without the scripted-dice branches
    res = np.zeros(S_NFIXED + gi.shape[0], dtype=np.int64)
    wk, cx = _chunk_arrays(gi, ui, ei, rules, hit_tab, wound_tab)
    return (seed_state(seed_words), ntrials, hist, rec, script, gi, ui, cx, res, wk, sel)


#: Engine kernel (contract in :mod:`oddslab.engine`): :func:`run_trials` on the arguments of
#: :func:`_prologue`, for each chunk of a batch, on threads
#: (:class:`~oddslab._kernels.chunks.ChunkKernel`).
run_assault = ChunkKernel(run_trials, "run_assault", prologue=_prologue, records=True)
