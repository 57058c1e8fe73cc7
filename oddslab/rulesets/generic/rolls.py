"""Serial numba helpers of the generic kernel: d36 table sums, allocation, damage packets.

See :mod:`oddslab.rulesets.generic.kernel` for the buffer protocol and why it is fast.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit
from oddslab._kernels.rng import fill_block, roll_expr
from oddslab.rulesets.generic.layout import (
    G_ADD,
    G_AVG,
    G_COUNT,
    G_MAP,
    G_MORTAL,
    G_N,
    G_REROLL,
    G_SIDES,
    G_SPILL,
    G_WEAPON,
    S_DAMAGE,
    S_MORTAL,
    S_SLAIN,
)

__all__ = [
    "allocate_fixed",
    "allocate",
    "sum_rolls",
    "roll_tables",
    "add_group",
    "feed_groups",
    "expr_total",
    "roll_any_one",
    "roll_one",
    "hazard_losses",
]


@jit(inline="always")
def allocate(dmg, spill, alive, cur, wounds):
    """Apply one packet of ``dmg`` to the unit; returns (alive, cur, models slain)."""
    slain = alive - alive  # (a typed zero, as in sum_rolls)
    if spill:
        while dmg > 0 and alive > 0:
            take = dmg if dmg < cur else cur
            dmg -= take
            cur -= take
            if cur == 0:
                alive -= 1
                slain += 1
                cur = wounds
    elif alive > 0 and dmg > 0:
        if dmg >= cur:  # excess damage on a slain model is lost
            alive -= 1
            slain += 1
            cur = wounds
        else:
            cur -= dmg
    return alive, cur, slain


@jit(inline="always")
def allocate_fixed(n, dmg, spill, alive, cur, wounds):
    """``n`` packets of the same ``dmg``: the result of ``n`` calls of :func:`allocate`.

    Closed form, so a fixed-damage weapon costs the same however many wounds get through.
    Returns (alive, cur, models slain).
    """
    if n <= 0 or dmg <= 0 or alive <= 0:
        return alive, cur, 0
    if spill:  # packets merge into one stream of n * dmg points
        total = n * dmg
        if total < cur:
            return alive, cur - total, 0
        total -= cur
        slain = 1 + total // wounds
        if slain >= alive:
            return 0, wounds, alive
        return alive - slain, wounds - total % wounds, slain
    first = (cur + dmg - 1) // dmg  # packets that slay the model now taking damage
    if n < first:
        return alive, cur - n * dmg, 0
    n -= first
    per = (wounds + dmg - 1) // dmg  # packets per fresh model
    slain = 1 + n // per
    if slain >= alive:
        return 0, wounds, alive
    return alive - slain, wounds - (n % per) * dmg, slain


@jit(inline="always")
def sum_rolls(bs, raw, buf, pos, end, n, pair, tab, off, off1):
    """Sum a lookup table over ``n`` d6 rolls read from the chunk's d36 buffer.

    Each buffered value ``v`` in ``[0, 36)`` is two independent d6 faces ``(v // 6, v % 6)``.
    With ``pair`` true a value serves two rolls (``tab[v]`` is their summed contribution and
    ``tab1[v]`` that of the first alone, for an odd roll out); with ``pair`` false a value is
    one roll that may be re-rolled, ``tab[v]`` being the contribution of the face that
    stands (the second face is the re-roll, used only if the first is re-rolled), so a
    re-roll costs no branch and no extra draw. Values left over when the buffer runs short
    are discarded, which depends on positions only, never on values. Returns
    ``(sum, pos, end)``.
    """
    acc = n - n  # typed int64 zero: a literal 0 costs numba extra typing passes
    if pair:
        entries = n >> 1
        odd = n & 1
    else:
        entries = n
        odd = 0
    while entries > 0:
        avail = end - pos
        if avail == 0:
            end = fill_block(bs, raw, buf, 36)
            pos = 0
            continue
        m = entries if entries < avail else avail
        # unsigned indices: numba then skips the negative-index wraparound on every load
        # (measured: ~15% of the whole trial)
        uoff = np.uint64(off)
        for i in range(np.uint64(pos), np.uint64(pos + m)):
            acc += tab[uoff + np.uint64(buf[i])]
        pos += m
        entries -= m
    if odd != 0:
        if pos == end:
            end = fill_block(bs, raw, buf, 36)
            pos = 0
        acc += tab[off1 + buf[pos]]
        pos += 1
    return acc, pos, end


@jit
def roll_one(bs, raw, buf, pos, end, tab, off):
    """One roll read from the d36 buffer on the single-roll table at ``tab[off:off + 36]``
    (what :func:`sum_rolls` does for one odd roll; called, not inlined: a rare roll such as a
    one-off re-roll should cost the trial loop's compile nothing). Returns
    ``(value, pos, end)``."""
    if pos == end:
        end = fill_block(bs, raw, buf, 36)
        pos = 0
    return tab[off + buf[pos]], pos + 1, end


@jit
def hazard_losses(st, dice, models, wounds, mortal):
    """Hazardous: roll ``dice`` D6; each 1 destroys an attacking model (``mortal``: inflicts 3
    mortal wounds instead, spilling from model to model). Returns (models lost, wounds lost)."""
    ones = dice - dice
    for _ in range(dice):
        if roll_expr(st, 1, 6, 0) == 1:
            ones += 1
    if not mortal:
        lost = ones if ones < models else models
        return lost, lost * wounds
    points = 3 * ones
    total = models * wounds
    points = points if points < total else total
    return points // wounds, points


@jit(flags="pair")
def roll_tables(codes, rerolls, values, tab, tab1):
    """Fill the d36 lookup tables of one kind of d6 roll; return ``pair`` (see ``sum_rolls``).

    ``codes`` and ``rerolls`` are indexed by natural roll 1..6, ``values[code]`` is what a
    final code contributes. Without re-rolls a d36 value ``6a + b`` is two rolls ``a + 1``
    and ``b + 1``; with re-rolls it is one roll ``a + 1``, re-rolled to ``b + 1`` when
    ``rerolls[a + 1]``.
    """
    pair = True
    for d in range(1, 7):
        if rerolls[d] != 0:
            pair = False
    for a in range(6):
        for b in range(6):
            v = a * 6 + b
            if pair:
                tab[v] = values[codes[a + 1]] + values[codes[b + 1]]
                tab1[v] = values[codes[a + 1]]
            else:
                d = b + 1 if rerolls[a + 1] != 0 else a + 1
                tab[v] = values[codes[d]]
                tab1[v] = tab[v]
    return pair


@jit(inline="always")
def add_group(grp, ng, count, w, kind, n, sides, add, thr, mortal, spill, avg):
    """Append a group of ``count`` damage packets to ``grp`` (if any); return the new size."""
    if count <= 0:
        return ng
    grp[ng, G_AVG] = avg
    grp[ng, G_COUNT] = count
    grp[ng, G_WEAPON] = w
    grp[ng, G_MAP] = kind
    grp[ng, G_N] = n
    grp[ng, G_SIDES] = sides
    grp[ng, G_ADD] = add
    grp[ng, G_REROLL] = thr
    grp[ng, G_MORTAL] = mortal
    grp[ng, G_SPILL] = spill
    return ng + 1


@jit(ints="total")
def roll_any_one(st, n, sides, add):
    """``n D sides + add``, the whole roll re-rolled once when any of its dice shows 1."""
    total = add
    one = False
    for _ in range(n):
        d = roll_expr(st, 1, sides, 0)
        total += d
        if d == 1:
            one = True
    if one:
        return roll_expr(st, n, sides, add)
    return total if total > 0 else 0


@jit(inline="always")
def feed_groups(
    st, bs, raw, buf, pos, end, grp, ng, dmgmap, fnp, fnp_use, fnp_pair, alive, cur, wounds, tot,
    one_dmg,
):  # fmt: skip
    """Roll, modify, feel-no-pain and allocate the packets of groups ``grp[:ng]`` in order.

    Each packet rolls ``n D sides + add``, re-rolled once below ``G_REROLL`` (damage
    re-rolls; ``-1``: when any die shows 1), or, while ``one_dmg`` (the attacker's one-off
    re-roll) is unspent, below ``G_AVG``; ``dmgmap[weapon, kind, value]`` applies the damage
    modifiers; each point then survives feel-no-pain on the group's d36 table. Adds to
    ``tot[S_DAMAGE]``, ``tot[S_MORTAL]`` and ``tot[S_SLAIN]``; returns
    ``(alive, cur, pos, end, one_dmg)``.
    """
    _ZERO = np.int64(0)
    _D36 = np.int64(36)
    for g in range(ng):
        dn = grp[g, G_N]
        ds = grp[g, G_SIDES]
        da = grp[g, G_ADD]
        thr = grp[g, G_REROLL]
        m = grp[g, G_MORTAL]
        dmap = dmgmap[grp[g, G_WEAPON], grp[g, G_MAP]]
        table = fnp[m]
        use = fnp_use[m]
        pair = fnp_pair[m]
        spill = grp[g, G_SPILL] != 0
        total = _ZERO  # (typed zeros, as in sum_rolls)
        slain = _ZERO
        avg = grp[g, G_AVG]
        for _ in range(grp[g, G_COUNT]):
            if thr < 0:
                dmg = roll_any_one(st, dn, ds, da)
            else:
                dmg = roll_expr(st, dn, ds, da)
                if dmg < thr:
                    dmg = roll_expr(st, dn, ds, da)
                elif one_dmg and dmg < avg:  # the one-off re-roll: first roll below average
                    dmg = roll_expr(st, dn, ds, da)
                    one_dmg = False
            dmg = dmap[dmg]
            if use:
                dmg, pos, end = sum_rolls(bs, raw, buf, pos, end, dmg, pair, table, _ZERO, _D36)
            total += dmg
            alive, cur, s = allocate(dmg, spill, alive, cur, wounds)
            slain += s
        tot[S_DAMAGE] += total
        tot[S_SLAIN] += slain
        if m != 0:
            tot[S_MORTAL] += total
    return alive, cur, pos, end, one_dmg


@jit(ints="total")
def expr_total(st, count, n, sides, add):
    """Sum of ``count`` rolls of ``n D sides + add`` (a constant needs no dice)."""
    if n == 0:
        return count * (add if add > 0 else 0)
    total = 0
    for _ in range(count):
        total += roll_expr(st, n, sides, add)
    return total
