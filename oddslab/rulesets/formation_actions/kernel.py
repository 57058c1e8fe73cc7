"""Numba kernels for formation actions: one trial plays N turns of a two-army game.

Inputs are plain arrays built by :mod:`.compile`:

``fi`` int64[F, F_NCOLS]
    one row per formation (army 0's formations first, then army 1's), columns ``F_*``.
``ai`` int64[2, A_NCOLS]
    one row per army, columns ``A_*``.
``rules`` int64[R_NCOLS]
    switches, columns ``R_*``.
``cdf`` float64[F, 22]
    cumulative outside-Shock probabilities for formations whose outside Shock is a table.
``script`` int64[k]
    scripted D6 results for tests (``script[0]`` is the index of the next one to use; when it
    reaches ``k`` dice come from the generator). The simulation passes ``[1]`` (no script).

Each trial writes its statistics into a row ``res[n_stats]`` (layout: ``A_STAT0``/``F_STAT0``
blocks, see :mod:`.compile`), then adds one to ``out[chunk, s, res[s]]``.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from oddslab._jit import jit, jit_parallel
from oddslab._kernels.rng import new_state, next_u64, randint

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
# formation statistic offsets (then N shock_after_turn, then N broken_by_turn)
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
A_HAS_RETAIN = 8
A_NCOLS = 9
# army statistic offsets (then N actions_turn, N holds_turn, N broken_after_turn, and the two
# retain statistics when A_HAS_RETAIN)
AS_WON = 0
AS_WITHDRAWALS = 1
AS_TURNS = 2

# rules columns
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
R_NCOLS = 10

# per-trial state rows
W_SHOCK = 0
W_BROKEN = 1
W_EVER = 2
W_GONE = 3
W_DONE = 4
W_RALLY = 5
W_NROWS = 6

_INV53 = 1.0 / 9007199254740992.0
_ELEVEN = np.uint64(11)


@jit
def d6(st, script):
    """One D6 (1-6): the next scripted result if any are left, else from the generator."""
    i = script[0]
    if i < script.shape[0]:
        script[0] = i + 1
        return script[i]
    return randint(st, 6) + 1


@jit
def passes(roll, target, nat1, nat6):
    """Whether a D6 ``roll`` passes a test against the modified rating ``target``."""
    if nat1 != 0 and roll == 1:
        return True
    if nat6 != 0 and roll == 6:
        return False
    return roll <= target


@jit
def faces(target, nat1, nat6):
    """Passing faces (of 6) against ``target``."""
    n = 0
    for d in range(1, 7):
        n += passes(d, target, nat1, nat6)
    return n


@jit
def penalty(fi, ws, f, mode):
    """The action test's -1 (or -2 for the stacking reading) for formation ``f`` now."""
    sup = 1 if fi[f, F_SUPP] != 0 else 0
    sh = 1 if ws[W_SHOCK, f] > 0 else 0
    if mode == 0:
        return sup
    if mode == 1:
        return sh
    if mode == 2:
        return sup if sup > sh else sh
    return sup + sh


@jit
def add_shock(fi, ws, f, k, immediate):
    ws[W_SHOCK, f] += k
    if immediate and ws[W_BROKEN, f] == 0 and ws[W_SHOCK, f] >= fi[f, F_THRESH]:
        ws[W_BROKEN, f] = 1
        ws[W_EVER, f] = 1


@jit
def outside_shock(st, fi, cdf, ws, immediate):
    """Every formation still in play gains its outside Shock for this turn."""
    for f in range(fi.shape[0]):
        kind = fi[f, F_OS_KIND]
        if kind == 0 or ws[W_GONE, f] != 0:
            continue
        if kind == 1:
            k = fi[f, F_OS_N]
        elif kind == 2:
            k = fi[f, F_OS_ADD]
            for _ in range(fi[f, F_OS_N]):
                k += randint(st, fi[f, F_OS_SIDES]) + 1
            if k < 0:
                k = 0
        else:
            u = np.float64(next_u64(st) >> _ELEVEN) * _INV53
            k = 0
            while k < cdf.shape[1] - 1 and u >= cdf[f, k]:
                k += 1
        if k > 0:
            add_shock(fi, ws, f, k, immediate)


@jit
def remaining(ai, ws, side):
    """Unactivated, unbroken formations of army ``side`` still in play."""
    n = 0
    for f in range(ai[side, A_START], ai[side, A_STOP]):
        n += ws[W_DONE, f] == 0 and ws[W_BROKEN, f] == 0 and ws[W_GONE, f] == 0
    return n


@jit
def pick(fi, ai, rules, ws, side):
    """The formation army ``side`` activates next under its order policy (-1 if none)."""
    order = ai[side, A_ORDER]
    best = -1
    best_faces = 0
    for f in range(ai[side, A_START], ai[side, A_STOP]):
        if ws[W_DONE, f] != 0 or ws[W_BROKEN, f] != 0 or ws[W_GONE, f] != 0:
            continue
        if order == 0:
            return f
        n = faces(
            fi[f, F_COMMAND] - penalty(fi, ws, f, rules[R_PENALTY]), rules[R_NAT1], rules[R_NAT6]
        )
        if best < 0 or (order == 1 and n > best_faces) or (order == 2 and n < best_faces):
            best = f
            best_faces = n
    return best


@jit
def strategy_roll(st, script, ai, rules, turn, last):
    """Winner (0 or 1) of the opposed strategy roll; ``last`` is last turn's winner or -1."""
    while True:
        r0 = d6(st, script) + ai[0, A_STRAT]
        r1 = d6(st, script) + ai[1, A_STRAT]
        if r0 > r1:
            return 0
        if r1 > r0:
            return 1
        if last >= 0:
            return 1 - last  # the side that failed to win it last round
        if rules[R_FIRST_TIE] >= 0:
            return rules[R_FIRST_TIE]
        # first turn, "reroll": roll again


@jit
def action_phase(st, script, fi, ai, rules, ws, res, first, t, nt):
    """Alternate activations, with retaining the initiative, until every formation acted."""
    for f in range(fi.shape[0]):
        ws[W_DONE, f] = 0
    immediate = rules[R_BREAK] == 0
    side = first
    retaining = False
    used0 = 0
    used1 = 0
    while True:
        rem_side = remaining(ai, ws, side)
        if rem_side == 0:
            side = 1 - side
            retaining = False
            if remaining(ai, ws, side) == 0:
                break
        f = pick(fi, ai, rules, ws, side)
        target = fi[f, F_COMMAND] - penalty(fi, ws, f, rules[R_PENALTY])
        if retaining:
            target -= 1
        ok = passes(d6(st, script), target, rules[R_NAT1], rules[R_NAT6])
        ws[W_DONE, f] = 1
        fs = fi[f, F_STAT0]
        base = ai[side, A_STAT0]
        if ok:
            res[fs + FS_ACTIONS] += 1
            res[base + AS_TURNS + t] += 1
            if retaining:
                res[base + AS_TURNS + 3 * nt + 1] += 1
        else:
            res[fs + FS_HOLDS] += 1
            res[base + AS_TURNS + nt + t] += 1
            add_shock(fi, ws, f, 1, immediate)
        if retaining:
            retaining = False  # after a retaining test the initiative passes
            side = 1 - side
            continue
        other = remaining(ai, ws, 1 - side)
        if ok and other > 0 and ai[side, A_RETAIN] != 0 and remaining(ai, ws, side) > 0:
            used = used0 if side == 0 else used1
            if rules[R_RETAIN_LIMIT] == 0 or used == 0:
                try_it = ai[side, A_RETAIN] == 2
                if not try_it:
                    g = pick(fi, ai, rules, ws, side)
                    tg = fi[g, F_COMMAND] - penalty(fi, ws, g, rules[R_PENALTY]) - 1
                    try_it = faces(tg, rules[R_NAT1], rules[R_NAT6]) >= ai[side, A_MINFACES]
                if try_it:
                    retaining = True
                    res[base + AS_TURNS + 3 * nt] += 1
                    if side == 0:
                        used0 += 1
                    else:
                        used1 += 1
                    continue
        side = 1 - side


@jit
def rally(st, script, fi, ai, rules, ws, res, f):
    """One rally test for formation ``f`` (it has Shock or is broken)."""
    broken = ws[W_BROKEN, f] != 0
    target = fi[f, F_COMMAND] - fi[f, F_NEAR]
    if broken:
        target -= 2
    if rules[R_RALLY_PEN] != 0:
        target -= penalty(fi, ws, f, rules[R_PENALTY])
    if passes(d6(st, script), target, rules[R_NAT1], rules[R_NAT6]):
        if broken:
            ws[W_BROKEN, f] = 0
            ws[W_SHOCK, f] = fi[f, F_UNITS]
            res[fi[f, F_STAT0] + FS_RALLIED] += 1
        s = ws[W_SHOCK, f]
        half = s // 2
        ws[W_SHOCK, f] = s - (half if half > 1 else 1)
    elif broken:
        res[fi[f, F_STAT0] + FS_WITHDRAWALS] += 1
        res[ai[fi[f, F_ARMY], A_STAT0] + AS_WITHDRAWALS] += 1
        if rules[R_WITHDRAW] != 0:
            ws[W_GONE, f] = 1


@jit
def end_phase(st, script, fi, ai, rules, cdf, ws, res, winner):
    """Outside Shock (default timing), the end-phase break check, then rallying."""
    if rules[R_OS_TIMING] == 0:
        outside_shock(st, fi, cdf, ws, rules[R_BREAK] == 0)
    nf = fi.shape[0]
    if rules[R_BREAK] != 0:
        for f in range(nf):
            if ws[W_BROKEN, f] == 0 and ws[W_GONE, f] == 0 and ws[W_SHOCK, f] >= fi[f, F_THRESH]:
                ws[W_BROKEN, f] = 1
                ws[W_EVER, f] = 1
    for f in range(nf):  # who has to rally, decided at the start of the end phase
        ws[W_RALLY, f] = ws[W_GONE, f] == 0 and (ws[W_SHOCK, f] > 0 or ws[W_BROKEN, f] != 0)
    if ai[0, A_STRAT] > ai[1, A_STRAT]:
        side = 0
    elif ai[1, A_STRAT] > ai[0, A_STRAT]:
        side = 1
    else:
        side = winner
    p0 = ai[0, A_START]
    p1 = ai[1, A_START]
    while True:
        while p0 < ai[0, A_STOP] and ws[W_RALLY, p0] == 0:
            p0 += 1
        while p1 < ai[1, A_STOP] and ws[W_RALLY, p1] == 0:
            p1 += 1
        left0 = p0 < ai[0, A_STOP]
        left1 = p1 < ai[1, A_STOP]
        if not left0 and not left1:
            break
        if (side == 0 and left0) or not left1:
            rally(st, script, fi, ai, rules, ws, res, p0)
            p0 += 1
        else:
            rally(st, script, fi, ai, rules, ws, res, p1)
            p1 += 1
        side = 1 - side


@jit
def play_game(st, script, fi, ai, rules, cdf, ws, res):
    """One game of ``rules[R_TURNS]`` turns; statistics into ``res`` (zeroed here)."""
    nt = rules[R_TURNS]
    nf = fi.shape[0]
    immediate = rules[R_BREAK] == 0
    for s in range(res.shape[0]):
        res[s] = 0
    for f in range(nf):
        ws[W_SHOCK, f] = fi[f, F_SHOCK0]
        ws[W_BROKEN, f] = fi[f, F_BROKEN0]
        ws[W_EVER, f] = fi[f, F_BROKEN0]
        ws[W_GONE, f] = 0
    last = -1
    for t in range(nt):
        if rules[R_OS_TIMING] == 1:
            outside_shock(st, fi, cdf, ws, immediate)
        w = strategy_roll(st, script, ai, rules, t, last)
        last = w
        res[ai[w, A_STAT0] + AS_WON] += 1
        first = w if ai[w, A_CHOOSE] == 0 else 1 - w
        action_phase(st, script, fi, ai, rules, ws, res, first, t, nt)
        end_phase(st, script, fi, ai, rules, cdf, ws, res, w)
        for f in range(nf):
            fs = fi[f, F_STAT0]
            res[fs + FS_SHOCK + t] = ws[W_SHOCK, f]
            res[fs + FS_SHOCK + nt + t] = ws[W_EVER, f]
        for a in range(2):
            n = 0
            for f in range(ai[a, A_START], ai[a, A_STOP]):
                n += ws[W_BROKEN, f] != 0 or ws[W_GONE, f] != 0
            res[ai[a, A_STAT0] + AS_TURNS + 2 * nt + t] = n


@jit
def run_chunk(seed_words, n, out_c, fi, ai, rules, cdf, slots, n_slots):
    st = new_state(seed_words)
    script = np.ones(1, dtype=np.int64)
    ws = np.zeros((W_NROWS, fi.shape[0]), dtype=np.int64)
    res = np.zeros(n_slots, dtype=np.int64)
    ns = slots.shape[0]
    for _ in range(n):
        play_game(st, script, fi, ai, rules, cdf, ws, res)
        for s in range(ns):
            out_c[s, res[slots[s]]] += 1


@jit_parallel
def run_formation_actions(seeds, ntrials, out, fi, ai, rules, cdf, slots, n_slots):
    """Kernel (engine contract): ``out[c, s, v] += 1`` for every trial of every chunk ``c``.

    ``slots`` int64[n_stats] maps each reported statistic to its slot of the per-trial row
    (``n_slots`` long; the retain slots of an army that cannot retain are not reported).
    """
    for c in prange(seeds.shape[0]):
        run_chunk(seeds[c], ntrials[c], out[c], fi, ai, rules, cdf, slots, n_slots)


@jit
def play_scripted(fi, ai, rules, cdf, script, seed_words, n_slots):
    """One game with scripted D6 results first (for tests and worked examples)."""
    st = new_state(seed_words)
    ws = np.zeros((W_NROWS, fi.shape[0]), dtype=np.int64)
    res = np.zeros(n_slots, dtype=np.int64)
    play_game(st, script, fi, ai, rules, cdf, ws, res)
    return res
