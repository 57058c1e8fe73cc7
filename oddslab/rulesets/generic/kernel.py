"""Kernel for the generic d6 attack pipeline (hit → wound → save → damage → FNP → allocation).

All game logic that can be decided per die face is precomputed by the ruleset into lookup
tables indexed by the natural roll 1..6 (index 0 unused); the kernel turns them into tables
over a d36 (two d6 in one value) so the trial loop only reads buffered values and adds table
entries. Column layout of ``wint`` is given by the ``W_*`` constants.

Why it is fast (each step measured on the 2-core benchmark machine, see benchmarks/README.md):

- d6 rolls come from a per-chunk buffer of d36 values filled in blocks of 512 by 16
  lock-step xoshiro256** streams (:func:`~oddslab._kernels.rng.fill_block`); the buffer
  position lives in a local variable of the kernel, never in the state array.
- One d36 value is either two independent d6 rolls (tables hold the summed contribution of
  the pair) or one d6 roll plus its re-roll die (the table picks the face that stands), so
  re-rolls cost neither a branch nor an extra draw.
- Two counters are packed in one int64 (low and high 32 bits: hits and critical hits,
  wounds and devastating wounds), so one table load and one add handle a roll.
- Fixed damage without feel-no-pain is allocated in closed form (``_allocate_fixed``).

The statistics are unchanged: every value read is an exactly uniform d36, and which values
are discarded depends on buffer positions only.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from oddslab._jit import jit, jit_parallel
from oddslab._kernels.rng import fill_block, new_block_state, new_state, roll_expr

# columns of the per-weapon integer table ``wint[w, :]``
W_MODELS = 0
W_ATT_N = 1
W_ATT_SIDES = 2
W_ATT_ADD = 3
W_SUS_N = 4
W_SUS_SIDES = 5
W_SUS_ADD = 6
W_LETHAL = 7
W_DEV = 8
W_DMG_N = 9
W_DMG_SIDES = 10
W_DMG_ADD = 11
W_TORRENT = 12
W_NCOLS = 13

# rows of the per-weapon face tables ``faces[w, row, natural roll]``
F_HIT_CODE = 0  # 0 miss, 1 hit, 2 critical hit
F_HIT_REROLL = 1  # 1 if this natural hit roll is re-rolled
F_WOUND_CODE = 2  # 0 fail, 1 wound, 2 critical wound
F_WOUND_REROLL = 3
F_SAVE_FAIL = 4  # 1 if this natural save roll fails
F_NROWS = 5

# statistics, in ``out[chunk, stat, value]`` order
S_ATTACKS = 0
S_HITS = 1
S_WOUNDS = 2
S_UNSAVED = 3
S_MORTAL = 4
S_DAMAGE = 5
S_SLAIN = 6
S_DESTROYED = 7


#: d36 values (two d6 each) per refill of a chunk's buffer (see :func:`fill_block`)
FACE_BLOCK = 512
#: lock-step xoshiro streams per chunk feeding the buffer (see :func:`fill_block`)
BLOCK_STREAMS = 16
_LOW32 = 0xFFFFFFFF
_HIGH = 1 << 32  # packed counters: low 32 bits count one outcome, high bits another


@jit(inline="always")
def _allocate(dmg, spill, alive, cur, wounds):
    """Apply one packet of ``dmg`` to the unit; returns (alive, cur, models slain)."""
    slain = 0
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
def _allocate_fixed(n, dmg, spill, alive, cur, wounds):
    """``n`` packets of the same ``dmg``: the result of ``n`` calls of :func:`_allocate`.

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
def _sum_rolls(bs, raw, buf, pos, end, n, pair, tab, off, off1):
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
    acc = 0
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


@jit(inline="always")
def _roll_tables(codes, rerolls, values, tab, tab1):
    """Fill the d36 lookup tables of one kind of d6 roll; return ``pair`` (see ``_sum_rolls``).

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


@jit_parallel
def run_generic(
    seeds, ntrials, out, wint, faces, fnp_fail, use_fnp, models, wounds, damaged, spill
):
    """Chunk driver: ``out[c, stat, value]`` histograms of the 8 pipeline statistics.

    Every weapon profile fires in order at one target per trial. d6 rolls are read from a
    per-chunk d36 buffer refilled in blocks by :func:`fill_block` (tight loop, position kept in a
    local); per-face game logic comes from lookup tables built here from ``faces``, with
    two counters packed in one int64 so a roll costs one load and one add.
    """
    n_w = wint.shape[0]
    for c in prange(seeds.shape[0]):
        st = new_state(seeds[c])
        bs = new_block_state(st, BLOCK_STREAMS)
        raw = np.empty(FACE_BLOCK // 4, dtype=np.uint64)
        buf = np.empty(FACE_BLOCK, dtype=np.int64)
        pos = 0
        end = 0
        hist = out[c]
        # per weapon and kind of roll, d36 lookup tables (see _sum_rolls): hits count
        # normal + crits << 32, wounds count wounds + devastating << 32, saves and FNP count
        # failures
        tabs = np.zeros((n_w, 6, 36), dtype=np.int64)
        pairs = np.zeros((n_w, 3), dtype=np.bool_)
        vals = np.zeros(3, dtype=np.int64)
        no_rr = np.zeros(7, dtype=np.int64)
        for w in range(n_w):
            vals[0] = 0
            vals[1] = 1
            vals[2] = _HIGH
            pairs[w, 0] = _roll_tables(
                faces[w, F_HIT_CODE], faces[w, F_HIT_REROLL], vals, tabs[w, 0], tabs[w, 1]
            )
            vals[2] = _HIGH if wint[w, W_DEV] != 0 else 1
            pairs[w, 1] = _roll_tables(
                faces[w, F_WOUND_CODE], faces[w, F_WOUND_REROLL], vals, tabs[w, 2], tabs[w, 3]
            )
            vals[2] = 1
            pairs[w, 2] = _roll_tables(faces[w, F_SAVE_FAIL], no_rr, vals, tabs[w, 4], tabs[w, 5])
        fnp = np.zeros((2, 36), dtype=np.int64)
        vals[0] = 0
        vals[1] = 1
        _roll_tables(fnp_fail, no_rr, vals, fnp[0], fnp[1])
        fnp_flat = fnp.ravel()
        flat = tabs.ravel()
        for _ in range(ntrials[c]):
            t_att = 0
            t_hits = 0
            t_wounds = 0
            t_unsaved = 0
            t_mortal = 0
            t_damage = 0
            t_slain = 0
            alive = models
            cur = wounds - damaged  # wounds left on the model currently taking damage
            for w in range(n_w):
                # 1-D views hoisted out of the dice loops (no array-struct calls per die)
                o = w * 216  # offset of this weapon's six d36 tables in ``flat``
                dmg_n = wint[w, W_DMG_N]
                dmg_sides = wint[w, W_DMG_SIDES]
                dmg_add = wint[w, W_DMG_ADD]
                # -- attacks and hit rolls ------------------------------------------------------
                if wint[w, W_ATT_N] == 0:
                    add = wint[w, W_ATT_ADD]
                    n_att = wint[w, W_MODELS] * (add if add > 0 else 0)
                else:
                    n_att = 0
                    for _m in range(wint[w, W_MODELS]):
                        n_att += roll_expr(
                            st, wint[w, W_ATT_N], wint[w, W_ATT_SIDES], wint[w, W_ATT_ADD]
                        )
                t_att += n_att
                if wint[w, W_TORRENT] != 0:
                    normal = n_att
                    crits = 0
                else:
                    acc, pos, end = _sum_rolls(
                        bs, raw, buf, pos, end, n_att, pairs[w, 0], flat, o, o + 36
                    )
                    normal = acc & _LOW32
                    crits = acc >> 32
                if wint[w, W_SUS_N] == 0:  # sustained hits: extra (non-critical) hits
                    extra = crits * wint[w, W_SUS_ADD]
                else:
                    extra = 0
                    for _k in range(crits):
                        extra += roll_expr(
                            st, wint[w, W_SUS_N], wint[w, W_SUS_SIDES], wint[w, W_SUS_ADD]
                        )
                t_hits += normal + crits + extra
                if wint[w, W_LETHAL] != 0:
                    auto = crits  # lethal hits wound automatically (not critical wounds)
                    to_wound = normal + extra
                else:
                    auto = 0
                    to_wound = normal + crits + extra
                # -- wound rolls ----------------------------------------------------------------
                acc, pos, end = _sum_rolls(
                    bs, raw, buf, pos, end, to_wound, pairs[w, 1], flat, o + 72, o + 108
                )
                wounded = auto + (acc & _LOW32)
                dev = acc >> 32
                t_wounds += wounded + dev
                # -- saves ----------------------------------------------------------------------
                unsaved, pos, end = _sum_rolls(
                    bs, raw, buf, pos, end, wounded, pairs[w, 2], flat, o + 144, o + 180
                )
                t_unsaved += unsaved + dev
                # -- damage, feel-no-pain, allocation -------------------------------------------
                if dmg_n == 0 and not use_fnp:
                    dmg = dmg_add if dmg_add > 0 else 0
                    t_damage += unsaved * dmg
                    alive, cur, slain = _allocate_fixed(unsaved, dmg, spill, alive, cur, wounds)
                    t_slain += slain
                else:
                    for _u in range(unsaved):
                        dmg = roll_expr(st, dmg_n, dmg_sides, dmg_add)
                        if use_fnp:
                            dmg, pos, end = _sum_rolls(
                                bs, raw, buf, pos, end, dmg, True, fnp_flat, 0, 36
                            )
                        t_damage += dmg
                        alive, cur, slain = _allocate(dmg, spill, alive, cur, wounds)
                        t_slain += slain
                # devastating wounds: mortal wounds equal to the damage, after the weapon's
                # normal damage; mortal wounds always spill over to the next model
                for _d in range(dev):
                    dmg = roll_expr(st, dmg_n, dmg_sides, dmg_add)
                    if use_fnp:
                        dmg, pos, end = _sum_rolls(
                            bs, raw, buf, pos, end, dmg, True, fnp_flat, 0, 36
                        )
                    t_mortal += dmg
                    t_damage += dmg
                    alive, cur, slain = _allocate(dmg, True, alive, cur, wounds)
                    t_slain += slain
            hist[S_ATTACKS, t_att] += 1
            hist[S_HITS, t_hits] += 1
            hist[S_WOUNDS, t_wounds] += 1
            hist[S_UNSAVED, t_unsaved] += 1
            hist[S_MORTAL, t_mortal] += 1
            hist[S_DAMAGE, t_damage] += 1
            hist[S_SLAIN, t_slain] += 1
            hist[S_DESTROYED, 1 if alive == 0 else 0] += 1
