"""Numba kernel of the hex platoon ruleset, part 2: assault, overrun and close air support.

Layouts and conventions are those of :mod:`.kernel`.
"""

from __future__ import annotations

from oddslab._jit import jit_inner
from oddslab._kernels.rng import D6, randint

from .kernel import (
    _attack_dice,
    _count,
    _lead,
    _stack_alive,
    barred,
    distribute,
    hex_attack,
)
from .layout import (  # noqa: F401
    BOOL,
    H_COUNT,
    H_FIRST,
    H_HQ,
    H_IP,
    HS_STOPPED,
    I1,
    I2,
    I3,
    INT,
    K_OVERRUN,
    M_AUG,
    M_DICE,
    M_DICE_DIS,
    M_HQ,
    M_SIDE,
    M_TH,
    M_UNIT,
    R_AIR_FAIL_ZERO,
    R_ASSAULT_LITERAL,
    R_DIS_AIR_STRIKES,
    R_HQ_ASSAULT_MODE,
    S_DICE,
    S_FLAG,
    S_HEX2,
    S_KIND,
    S_NMEM,
    S_TARGET,
    S_TH,
    S_UNIT,
    U1,
    U2,
    U_ARMOR,
    U_SAVE,
    W_DIS,
    W_GONE,
    W_HIT,
    W_KILL,
    W_MV,
    W_OOC,
    W_OPS,
    W_SIDE,
    sig,
)


@jit_inner(
    ints="able alive_a att back dfd na",
    signature_or_function=sig("void", U1, I2, I2, I1, I2, I1, I2, I3, INT, I2, I1, I1, I1),
)
def melee(st, ui, hx, hexu, ws, rules, sp, mb, k, rec, hs, pick, tmp):
    """Assault (``overrun = False``) or overrun combat of step ``k``."""
    kind = sp[k, S_KIND]
    a = sp[k, S_HEX2]
    d = sp[k, S_TARGET]
    if (hs[a] & HS_STOPPED) != 0 or _stack_alive(hx, hexu, ws, d) == 0:
        return
    lead_a = _lead(ui, ws, hx[a, H_HQ])
    lead_d = _lead(ui, ws, hx[d, H_HQ])
    mode = rules[R_HQ_ASSAULT_MODE]
    # attacking units that take part (and share the defender's hits): disrupted units may
    # not attack or move adjacent to the enemy (6.1.7), out-of-command ones "may only
    # opportunity fire" (4.2): they stay behind
    na = 0
    able = 0  # some unit taking part may attack: else there is no assault
    for m in range(sp[k, S_NMEM]):
        u = mb[k, m, M_UNIT]
        if mb[k, m, M_SIDE] == 0 and ws[W_SIDE, u] < 2:
            if ws[W_DIS, u] or ws[W_OOC, u] or (kind == K_OVERRUN and ws[W_GONE, u]):
                continue
            if barred(ws, rules, u):
                continue  # an Ops Complete marker from before this movement: it has acted
            tmp[na] = u
            na += 1
            if mb[k, m, M_DICE] > 0:
                able = 1
    if able == 0:
        return
    rec[k, 4] = 1
    att = 0
    dfd = 0
    for m in range(sp[k, S_NMEM]):
        u = mb[k, m, M_UNIT]
        if ws[W_SIDE, u] >= 2 or (mb[k, m, M_DICE] == 0 and mb[k, m, M_DICE_DIS] == 0):
            continue
        if mb[k, m, M_SIDE] == 0:
            if ws[W_DIS, u] or ws[W_OOC, u] or (kind == K_OVERRUN and ws[W_GONE, u]):
                continue  # disrupted units may not attack
            if barred(ws, rules, u):
                continue
            lead = lead_a if mb[k, m, M_HQ] else 0
            att += _attack_dice(st, mb[k, m, M_DICE], mb[k, m, M_AUG], mb[k, m, M_TH], lead, mode)
        else:
            dis = ws[W_DIS, u]
            th = 6 if dis else mb[k, m, M_TH]
            dice = mb[k, m, M_DICE_DIS] if dis else mb[k, m, M_DICE]
            lead = lead_d if mb[k, m, M_HQ] else 0
            dfd += _attack_dice(st, dice, mb[k, m, M_AUG], th, lead, mode)
    for i in range(hx[d, H_FIRST], hx[d, H_FIRST] + hx[d, H_COUNT]):
        ws[W_OPS, hexu[i]] = 1
    att_eff = att
    if hx[d, H_IP] != 0 and att_eff > 0:
        att_eff -= 1
    rec[k, 0] = att
    rec[k, 1] = att_eff
    rec[k, 2] = dfd
    distribute(st, ui, ws, rules, hexu, hx[d, H_FIRST], hx[d, H_COUNT], att_eff, False, False, pick)
    distribute(st, ui, ws, rules, tmp, 0, na, dfd, False, False, pick)
    if kind == K_OVERRUN:
        back = 0
        for i in range(na):
            u = tmp[i]
            ws[W_OPS, u] = 1  # moved and fought; it may overrun again (6.4)
            ws[W_MV, u] = 1
            # 6.4: AFVs "disrupted or reduced ... must retreat in the hex they came from";
            # an eliminated AFV retreats nowhere and is not counted
            if ws[W_HIT, u] and ws[W_SIDE, u] < 2:
                ws[W_GONE, u] = 1
                back += 1
        rec[k, 3] = back
        return
    for i in range(na):
        ws[W_OPS, tmp[i]] = 1
        ws[W_MV, tmp[i]] = 1
    alive_a = 0
    for i in range(na):
        alive_a += ws[W_SIDE, tmp[i]] < 2
    alive_d = _stack_alive(hx, hexu, ws, d)
    if alive_a == 0:
        return
    if alive_d == 0:
        rec[k, 6] = 1
        return
    if rules[R_ASSAULT_LITERAL]:
        retreat = dfd < att_eff
    else:
        retreat = att_eff < dfd
    if retreat:
        rec[k, 3] = 1
        return
    rec[k, 6] = 1
    if sp[k, S_FLAG]:
        rec[k, 7] = 1  # defender retreated
        return
    rec[k, 5] = 1  # could not retreat: eliminated
    for i in range(hx[d, H_FIRST], hx[d, H_FIRST] + hx[d, H_COUNT]):
        u = hexu[i]
        if ws[W_SIDE, u] < 2:
            ws[W_SIDE, u] = 2
            ws[W_HIT, u] = 1
            ws[W_KILL, u] = 1


@jit_inner(
    ints="acc fate uns",
    signature_or_function=sig("void", U1, I2, I2, I1, I2, I1, I2, I3, INT, I2, I1),
)
def air_strike(st, ui, hx, hexu, ws, rules, sp, mb, k, rec, pick):
    """Close air support: AA opportunity fire, accuracy, strike, return roll (step ``k``)."""
    air = sp[k, S_UNIT]
    acc = 0
    for m in range(sp[k, S_NMEM]):
        u = mb[k, m, M_UNIT]
        if ws[W_SIDE, u] >= 2 or ws[W_DIS, u] or ws[W_OPS, u]:
            continue
        hits = _attack_dice(st, mb[k, m, M_DICE], mb[k, m, M_AUG], mb[k, m, M_TH], 0, 0)
        saved = _count(st, ui[air, U_ARMOR], ui[air, U_SAVE])
        if hits > saved:
            acc += hits - saved
        ws[W_OPS, u] = 1
    rec[k, 0] = acc
    fate = 0
    if acc >= 2:
        fate = 4
    elif acc == 1:
        fate = 3 if randint(st, D6) < 3 else 2
    if acc == 0 or (acc == 1 and rules[R_DIS_AIR_STRIKES]):
        a = randint(st, D6) + 1
        rec[k, 2] = 1 if a == 1 else (2 if a == 2 else 3)
        tgt = sp[k, S_TARGET] if a >= 2 else sp[k, S_HEX2]
        dice = sp[k, S_DICE] - (1 if a == 2 else 0)
        if tgt >= 0:
            hits, uns = hex_attack(
                st, ui, hx, hexu, ws, rules, tgt, dice, 0, sp[k, S_TH], 0, 0, True, pick
            )
        else:
            hits = _count(st, dice, sp[k, S_TH])
            uns = 0
        rec[k, 3] = hits
        rec[k, 4] = uns
        rec[k, 6 if a >= 2 else 7] = uns  # on the target hex / astray on the adjacent one
        if acc == 0:
            ret = 0 if (a == 1 and rules[R_AIR_FAIL_ZERO]) else hits
            fate = 0 if randint(st, D6) + 1 >= ret else 1
    rec[k, 1] = fate
    rec[k, 5] = 1 if (fate == 0 or fate == 2) else 0
