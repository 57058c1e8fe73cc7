"""Numba kernel of the hex platoon ruleset: one trial plays a whole sequence of steps.

The compiler (:mod:`.compile`) flattens a scenario into integer tables:

* ``ui[u, U_*]`` one row per unit (hex, hard/infantry/HQ flags, leadership, morale, armour,
  save, initial side/status/markers, base concealment);
* ``hx[h, H_*]`` one row per hex (infantry and hard-target defensive bonus, improved position,
  index range of its non-HQ units in ``hexu`` and its HQ);
* ``sp[k, S_*]`` one row per step (what happens, in order) and ``mb[k, m, M_*]`` the step's
  members (firers of an assault, AA units, hexes of an artillery mission, ...);
* ``rules[R_*]`` the rule switches; ``so[s, O_*]`` how each statistic is read at the end.

A trial copies the initial unit state into ``ws`` (rows ``W_*``), plays every step in
order, records per-step numbers in ``rec[k, :]`` and finally evaluates the statistics into
``res``, which :func:`.kernel_run.play_trials` histograms. Every rule and reading is described in
``docs/hex-platoon.md``.

Speed: every kernel function is compiled with ``jit_noalloc`` (numba's
reference counting off). They take arrays and never allocate, and with reference counting on
every call that passes arrays paid an atomic increment and decrement per array (and the two
threads fought over the shared input arrays' counters): 300 ns per trial for a single fire
attack, against 70 ns without. Allocation happens only in the Python per-chunk prologues.
"""

from __future__ import annotations

from oddslab._jit import jit_inner, jit_noalloc
from oddslab._kernels.rng import D6, count_d6, randint

from .layout import (
    BOOL,
    H_COUNT,
    H_DB,
    H_DBH,
    H_FIRST,
    H_HQ,
    H_IP,
    I1,
    I2,
    INT,
    R_AIR_CONC_ANY,
    R_ART_EXTRA_DIE,
    R_ART_HARD_IGNORE,
    R_ART_HARD_PER_ATTACK,
    R_ART_SOFT_EXTRA,
    R_CONC_ALL,
    R_CONC_INF,
    R_CONC_LOST,
    R_CONC_OUTSIDE_CAP,
    R_COVER5,
    R_EXCESS_PASS,
    R_HIT_PER_ATTACK,
    R_HQ_AGAIN_STAYS,
    R_HQ_MODE,
    R_IP_AFTER_SAVES,
    R_OPS_FIRE_ONLY,
    S_AUG,
    S_DICE,
    S_HQ,
    S_OPP,
    S_TARGET,
    S_TH,
    S_UNIT,
    U1,
    U_ARMOR,
    U_CONC,
    U_HARD,
    U_HEX,
    U_INF,
    U_LEAD0,
    U_LEAD1,
    U_SAVE,
    W_CLOST,
    W_DIS,
    W_HIT,
    W_KILL,
    W_MV,
    W_OOC,
    W_OPS,
    W_SIDE,
    W_STEP,
    sig,
)


@jit_inner(signature_or_function=sig("int64", U1, INT, INT))
def _count(st, n, need):
    if n <= 0:
        return 0
    ge, _ = count_d6(st, n, need)
    return ge


@jit_inner(signature_or_function=sig("int64", U1, INT, INT, INT, INT, INT))
def _attack_dice(st, dice, aug, th, lead, hq_mode):
    """Hits of ``dice`` (+ ``aug`` augmentation dice, lowest ignored) at ``th``+, with HQ."""
    n = dice
    e = aug
    if lead > 0:
        if hq_mode == 0:
            n += lead
        elif hq_mode == 1:
            e += lead
        elif hq_mode == 2:
            e += 1
        else:  # augment = "once": the leadership is the one augmentation die
            e = 1
    succ = _count(st, n + e, th)
    return succ if succ < n else n


@jit_noalloc(signature_or_function=sig("int64", I2, I2, INT))
def _lead(ui, ws, hq):
    if hq < 0 or ws[W_SIDE, hq] >= 2:
        return 0
    return ui[hq, U_LEAD1] if ws[W_SIDE, hq] == 1 else ui[hq, U_LEAD0]


@jit_inner(signature_or_function=sig("boolean", I2, I2, INT))
def _concealed(ui, ws, u):
    return ui[u, U_CONC] != 0 and ws[W_OPS, u] == 0 and ws[W_CLOST, u] == 0


@jit_inner(signature_or_function=sig("int64", I2, INT))
def state_of(ws, u):
    """0 good order (full side), 1 disrupted (full side), 2 reduced, 3 eliminated."""
    s = ws[W_SIDE, u]
    if s >= 2:
        return 3
    if s == 1:
        return 2
    return 1 if ws[W_DIS, u] else 0


@jit_inner(signature_or_function=sig("int64", I2, INT))
def state_detail_of(ws, u):
    """0 good order, 1 disrupted, 2 reduced, 3 reduced and disrupted, 4 eliminated."""
    s = ws[W_SIDE, u]
    if s >= 2:
        return 4
    return 2 * s + (1 if ws[W_DIS, u] else 0)


@jit_noalloc(signature_or_function=sig("int64", I2, INT, INT, BOOL, BOOL))
def apply_hits(ws, u, h, protect, per_attack):
    """Apply ``h`` hits of one attack to unit ``u``; return the hits it could not absorb.

    The first hit disrupts; every further hit, and a first hit on a unit already disrupted,
    steps the unit down full → reduced → eliminated. ``per_attack``
    (``hit_ladder = "one-step-per-attack"``): a disrupted unit, or one taking more than 1
    hit, steps down once whatever the number of hits (``W_STEP`` remembers the step when
    hits passed on reach the unit again in the same attack). ``protect`` (concealed
    infantry under the Additional Rules) stops at disrupted: the remaining hits are spent,
    not passed on.
    """
    if h <= 0:
        return 0
    side = ws[W_SIDE, u]
    if side >= 2:
        return h
    dis = ws[W_DIS, u]
    if protect:
        if dis == 0:
            ws[W_DIS, u] = 1
            ws[W_HIT, u] = 1
        return 0
    if per_attack:
        ws[W_HIT, u] = 1
        if ws[W_STEP, u]:
            return 0
        ws[W_DIS, u] = 1
        if dis == 0 and h == 1:
            return 0
        ws[W_STEP, u] = 1
        if side == 1:
            ws[W_SIDE, u] = 2
            ws[W_KILL, u] = 1
            return h - (1 if dis else 2)
        ws[W_SIDE, u] = 1
        return 0
    cap = (2 - side) + (1 - dis)
    used = h if h < cap else cap
    side += used - 1 + dis
    ws[W_DIS, u] = 1
    ws[W_HIT, u] = 1
    if side >= 2:
        side = 2
        ws[W_KILL, u] = 1
    ws[W_SIDE, u] = side
    return h - used


@jit_inner(
    ints="excess ign n nh",
    flags="first_round",
    signature_or_function=sig("void", U1, I2, I2, I1, I1, INT, INT, INT, BOOL, BOOL, I1),
)
def distribute(st, ui, ws, rules, idx, first, count, h, protect_any, ign_hard, pick):
    """Fairly distribute ``h`` hits between the living units ``idx[first:first+count]``.

    Each living unit gets ``h // n``; the ``h % n`` odd hits go to distinct units drawn at
    random. With ``rules[R_EXCESS_PASS]`` hits a unit cannot absorb are distributed again
    between the units still alive. ``protect_any``: concealed infantry cannot be reduced.
    ``ign_hard``: a hard target ignores the first hit it is given; with
    ``rules[R_ART_HARD_PER_ATTACK]`` only one hit of the attack is ignored, that of one of
    the hard targets given hits, drawn at random. ``pick`` is scratch.
    """
    first_round = True
    while h > 0:
        n = 0
        for i in range(first, first + count):
            u = idx[i]
            if ws[W_SIDE, u] < 2:
                pick[n] = u
                n += 1
        if n == 0:
            return
        q = h // n
        r = h - q * n
        for j in range(r):  # partial Fisher-Yates: the first r entries get one more hit
            k = j + randint(st, n - j)
            t = pick[j]
            pick[j] = pick[k]
            pick[k] = t
        excess = 0
        ign = n  # position in pick of the one hard target ignoring a hit (per attack)
        if ign_hard and first_round and rules[R_ART_HARD_PER_ATTACK]:
            nh = 0
            for j in range(n):
                nh += ui[pick[j], U_HARD] != 0 and q + (1 if j < r else 0) > 0
            if nh > 0:
                nh = randint(st, nh)
                for j in range(n):
                    if ui[pick[j], U_HARD] != 0 and q + (1 if j < r else 0) > 0:
                        if nh == 0:
                            ign = j
                            break
                        nh -= 1
        for j in range(n):
            u = pick[j]
            g = q + (1 if j < r else 0)
            if ign_hard and first_round and ui[u, U_HARD] and g > 0:
                if rules[R_ART_HARD_PER_ATTACK] == 0 or j == ign:
                    g -= 1
            prot = protect_any and ui[u, U_INF] != 0 and _concealed(ui, ws, u)
            excess += apply_hits(ws, u, g, prot, rules[R_HIT_PER_ATTACK] != 0)
        first_round = False
        if rules[R_EXCESS_PASS] == 0:
            return
        h = excess


@jit_inner(ints="alive hit kill", signature_or_function=sig("void", U1, I2, I2, I1, I2, I1, INT))
def hq_check(st, ui, hx, hexu, ws, rules, h):
    """(s)HQ of hex ``h`` after an attack on it: eliminated with its units, else 1D6 test."""
    hq = hx[h, H_HQ]
    if hq < 0 or ws[W_SIDE, hq] >= 2:
        return
    first = hx[h, H_FIRST]
    count = hx[h, H_COUNT]
    alive = 0
    hit = 0
    kill = 0
    for i in range(first, first + count):
        u = hexu[i]
        alive += ws[W_SIDE, u] < 2
        hit |= ws[W_HIT, u]
        kill |= ws[W_KILL, u]
    if count > 0 and alive == 0:
        if kill or hit:
            ws[W_SIDE, hq] = 2
            ws[W_KILL, hq] = 1
        return
    if hit:
        d = randint(st, D6) + 1 - (2 if kill else 0)
        if d <= 1:
            if ws[W_SIDE, hq] == 1 and rules[R_HQ_AGAIN_STAYS] != 0:
                return
            ws[W_SIDE, hq] += 1
            if ws[W_SIDE, hq] >= 2:
                ws[W_KILL, hq] = 1


@jit_inner(ints="n", signature_or_function=sig("int64", I2, I1, I2, INT))
def _stack_alive(hx, hexu, ws, h):
    n = 0
    for i in range(hx[h, H_FIRST], hx[h, H_FIRST] + hx[h, H_COUNT]):
        n += ws[W_SIDE, hexu[i]] < 2
    return n


@jit_noalloc(inline="always")
def barred(ws, rules, u):
    """Unit ``u`` may not move, assault, overrun or clear mines for its Ops Complete marker
    (6.1, 11.2: the marker ends a unit's actions), unless the marker came from the movement
    it is in the middle of (``W_MV``: marked on entering a hex, or by its own overrun)."""
    return rules[R_OPS_FIRE_ONLY] == 0 and ws[W_OPS, u] != 0 and ws[W_MV, u] == 0


@jit_noalloc(inline="always")
def stack_barred(hx, hexu, ws, rules, h):
    """Living units of hex ``h``'s stack that an Ops Complete marker keeps in place."""
    n = 0
    for i in range(hx[h, H_FIRST], hx[h, H_FIRST] + hx[h, H_COUNT]):
        u = hexu[i]
        if ws[W_SIDE, u] < 2 and barred(ws, rules, u):
            n += 1
    return n


@jit_inner(ints="n", signature_or_function=sig("int64", I2, I1, I2, INT))
def stack_out_of_command(hx, hexu, ws, h):
    """Living units of hex ``h``'s stack that are out of command."""
    n = 0
    for i in range(hx[h, H_FIRST], hx[h, H_FIRST] + hx[h, H_COUNT]):
        u = hexu[i]
        if ws[W_SIDE, u] < 2 and ws[W_OOC, u] != 0:
            n += 1
    return n


@jit_inner(signature_or_function=sig("void", I2, I1, I2, INT))
def mark_moved(hx, hexu, ws, h):
    """Ops Complete markers on the stack of hex ``h`` (and its (s)HQ) from its movement
    (``W_MV``: they do not stop the movement they come from)."""
    for i in range(hx[h, H_FIRST], hx[h, H_FIRST] + hx[h, H_COUNT]):
        ws[W_OPS, hexu[i]] = 1
        ws[W_MV, hexu[i]] = 1
    if hx[h, H_HQ] >= 0:
        ws[W_OPS, hx[h, H_HQ]] = 1
        ws[W_MV, hx[h, H_HQ]] = 1


@jit_inner(ints="any_hit", signature_or_function=sig("int64", I2, I1, I2, INT))
def _stack_hit(hx, hexu, ws, h):
    any_hit = 0
    for i in range(hx[h, H_FIRST], hx[h, H_FIRST] + hx[h, H_COUNT]):
        any_hit |= ws[W_HIT, hexu[i]]
    return any_hit


@jit_inner(
    ints="conc_all conc_any hard n soft unsaved",
    flags="ign",
    signature_or_function=sig(
        "UniTuple(int64, 2)", U1, I2, I2, I1, I2, I1, INT, INT, INT, INT, INT, INT, BOOL, I1
    ),
)
def hex_attack(st, ui, hx, hexu, ws, rules, h, dice, aug, th, lead, hq_mode, air, pick):
    """A hex attack (mortar, artillery hex, air strike) on hex ``h``: (hits, unsaved hits).

    Saves: the terrain's infantry defensive bonus in d6 at 5+, plus one die if a hard target
    is present (mortars, artillery) or if the hex is concealed (air strikes; ``air``).
    """
    first = hx[h, H_FIRST]
    count = hx[h, H_COUNT]
    n = 0
    hard = 0
    soft = 0
    conc_all = 1
    conc_any = 0
    for i in range(first, first + count):
        u = hexu[i]
        if ws[W_SIDE, u] < 2:
            n += 1
            hard |= ui[u, U_HARD] != 0
            soft += ui[u, U_HARD] == 0
            if air:
                c = ui[u, U_CONC] != 0 and ws[W_OPS, u] == 0 and ws[W_CLOST, u] == 0
                conc_all &= c
                conc_any |= c
    if n == 0:
        return _attack_dice(st, dice, aug, th, lead, hq_mode), 0
    sdice = hx[h, H_DB]
    if air:
        sdice += conc_any if rules[R_AIR_CONC_ANY] else conc_all
        ign = False
    else:
        if rules[R_ART_EXTRA_DIE] and n > 1:
            dice += 1
        sdice += hard
        if rules[R_ART_SOFT_EXTRA] != 0 and hard and soft > 0:
            # Additional Rule: one extra defence die for the hex, or one per soft target
            sdice += 1 if rules[R_ART_SOFT_EXTRA] == 1 else soft
        ign = rules[R_ART_HARD_IGNORE] != 0
    hits = _attack_dice(st, dice, aug, th, lead, hq_mode)
    hh = hits
    ip = hx[h, H_IP] != 0
    if ip and rules[R_IP_AFTER_SAVES] == 0 and hh > 0:
        hh -= 1
    unsaved = hh - _count(st, sdice, 5)
    if unsaved < 0:
        unsaved = 0
    if ip and rules[R_IP_AFTER_SAVES] != 0 and unsaved > 0:
        unsaved -= 1
    protect = rules[R_CONC_INF] != 0 and rules[R_CONC_ALL] != 0
    distribute(st, ui, ws, rules, hexu, first, count, unsaved, protect, ign, pick)
    return hits, unsaved


@jit_inner(signature_or_function=sig("void", U1, I2, I2, I2, I1, I2, INT, I2))
def fire(st, ui, hx, ws, rules, sp, k, rec):
    """A ranged or opportunity fire attack of one unit at one unit (step ``k``)."""
    f = sp[k, S_UNIT]
    t = sp[k, S_TARGET]
    if ws[W_SIDE, f] >= 2 or ws[W_DIS, f] or ws[W_OPS, f] or ws[W_SIDE, t] >= 2:
        return
    opp = sp[k, S_OPP]
    if opp >= 0:
        if rec[opp, 1] == 0:
            return
    elif ws[W_OOC, f]:
        return
    rec[k, 2] = 1
    lead = _lead(ui, ws, sp[k, S_HQ])
    hits = _attack_dice(st, sp[k, S_DICE], sp[k, S_AUG], sp[k, S_TH], lead, rules[R_HQ_MODE])
    ws[W_OPS, f] = 1
    conc = 1 if _concealed(ui, ws, t) else 0
    h = ui[t, U_HEX]
    ip = hx[h, H_IP] != 0
    hh = hits
    if ip and rules[R_IP_AFTER_SAVES] == 0 and hh > 0:
        hh -= 1
    if ui[t, U_HARD]:
        db = hx[h, H_DBH]
        if rules[R_CONC_OUTSIDE_CAP]:
            bonus = (db if db < 2 else 2) + conc
        else:
            bonus = db + conc
            bonus = bonus if bonus < 2 else 2
        if rules[R_COVER5]:
            saves = _count(st, ui[t, U_ARMOR], ui[t, U_SAVE]) + _count(st, bonus, 5)
        else:
            saves = _count(st, ui[t, U_ARMOR] + bonus, ui[t, U_SAVE])
    else:
        saves = _count(st, hx[h, H_DB] + conc, 5)
    unsaved = hh - saves
    if unsaved < 0:
        unsaved = 0
    if ip and rules[R_IP_AFTER_SAVES] != 0 and unsaved > 0:
        unsaved -= 1
    rec[k, 0] = hits
    rec[k, 1] = unsaved
    if rules[R_CONC_LOST]:
        ws[W_CLOST, t] = 1
    protect = rules[R_CONC_INF] != 0 and ui[t, U_INF] != 0 and conc != 0
    apply_hits(ws, t, unsaved, protect, rules[R_HIT_PER_ATTACK] != 0)
