"""The allocation rules of a mixed target unit as numba helpers of
:mod:`~oddslab.rulesets.generic.kernel_mixed`: which model the next attack goes to, the unit's
toughness, one damage roll (with the one-off re-roll) and one packet of damage allocated
through feel-no-pain. Written out again, in plain Python, by
:mod:`~oddslab.rulesets.generic.chain_mixed` (the exact chain) and ``tests/naive_generic_mixed.py``.
"""

from __future__ import annotations

from oddslab._jit import jit
from oddslab._kernels.rng import roll_expr
from oddslab.rulesets.generic.layout import (
    GI_CHAR,
    GI_TOUGH,
    GI_WOUNDS,
    S_DAMAGE,
    S_MORTAL,
)
from oddslab.rulesets.generic.rolls import roll_any_one, roll_one, sum_rolls

__all__ = ["choose_model", "toughness_group", "roll_damage", "apply_packet"]


@jit
def choose_model(alive, cur, gint, order, precision):
    """The group whose model the next attack is allocated to, or -1 (unit destroyed).

    Precision: a living character (a damaged one first). Otherwise characters are not
    eligible while a bodyguard (non-character) model lives; among the eligible, a model that
    has lost wounds first, else the first group in the defender's ``order``.
    """
    n_g = alive.shape[0]
    if precision:
        for g in range(n_g):
            if gint[g, GI_CHAR] != 0 and alive[g] > 0 and cur[g] < gint[g, GI_WOUNDS]:
                return g
        for i in range(n_g):
            g = order[i]
            if gint[g, GI_CHAR] != 0 and alive[g] > 0:
                return g
    guard = False
    for g in range(n_g):
        if gint[g, GI_CHAR] == 0 and alive[g] > 0:
            guard = True
    for g in range(n_g):
        if alive[g] > 0 and cur[g] < gint[g, GI_WOUNDS] and not (guard and gint[g, GI_CHAR]):
            return g
    for i in range(n_g):
        g = order[i]
        if alive[g] > 0 and not (guard and gint[g, GI_CHAR] != 0):
            return g
    return n_g - n_g - 1


# inlined (one call per weapon and trial): +4% trials per second on the mixed benchmark row at
# no measurable compile cost; inlining choose_model too gave +14% more for +14% compile CPU
@jit(inline="always")
def toughness_group(alive, gint):
    """The group whose toughness is the unit's: the toughest living bodyguard group, else the
    toughest living character group (0 when the unit is destroyed)."""
    best = alive.shape[0] - alive.shape[0]
    top = -1
    for pas in range(2):
        for g in range(alive.shape[0]):
            if alive[g] > 0 and (gint[g, GI_CHAR] != 0) == (pas == 1) and gint[g, GI_TOUGH] > top:
                top = gint[g, GI_TOUGH]
                best = g
        if top >= 0:
            return best
    return best


@jit(inline="always")
def roll_damage(st, n, sides, add, thr, avg, one):
    """One damage roll, re-rolled once below ``thr`` (-1: when any die shows 1), or else, while
    ``one`` (the attacker's one-off re-roll is unspent), below ``avg``; ``(roll, one)``."""
    if thr < 0:
        return roll_any_one(st, n, sides, add), one
    d = roll_expr(st, n, sides, add)
    if d < thr:
        d = roll_expr(st, n, sides, add)
    elif one and d < avg:
        d = roll_expr(st, n, sides, add)
        one = False
    return d, one


@jit
def apply_packet(
    bs, raw, buf, pos, end, dmg, spill, m, precision, alive, cur, gint, order, fnp, fnp_use,
    fnp_pair, tot,
):  # fmt: skip
    """Feel-no-pain and allocate one packet of ``dmg`` (``m``: the mortal-wound feel-no-pain
    and count). Without spill the packet goes to one model (its group's feel-no-pain; excess
    lost); with spill point by point, each to the model the rules choose then."""
    one = pos - pos + 1
    if spill:
        for _ in range(dmg):
            g = choose_model(alive, cur, gint, order, precision)
            if g < 0:
                break
            p = one
            if fnp_use[g, m]:
                off = (g * 2 + m) * 72
                p, pos, end = roll_one(
                    bs, raw, buf, pos, end, fnp, off + (36 if fnp_pair[g, m] else 0)
                )
            if p > 0:
                tot[S_DAMAGE] += 1
                if m != 0:
                    tot[S_MORTAL] += 1
                cur[g] -= 1
                if cur[g] == 0:
                    alive[g] -= 1
                    cur[g] = gint[g, GI_WOUNDS]
        return pos, end
    g = choose_model(alive, cur, gint, order, precision)
    if g < 0:
        return pos, end
    d = dmg
    if fnp_use[g, m]:
        off = (g * 2 + m) * 72
        d, pos, end = sum_rolls(bs, raw, buf, pos, end, dmg, fnp_pair[g, m], fnp, off, off + 36)
    tot[S_DAMAGE] += d
    if m != 0:
        tot[S_MORTAL] += d
    if d >= cur[g]:
        alive[g] -= 1
        cur[g] = gint[g, GI_WOUNDS]
    elif d > 0:
        cur[g] -= d
    return pos, end
