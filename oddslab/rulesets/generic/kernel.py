"""Kernel for the generic d6 attack pipeline (hit → wound → save → damage → FNP → allocation).

Compile time: the parallel driver :func:`run_generic` is a tiny ``prange`` loop calling the
serial per-chunk function :func:`_chunk`; the helpers are ordinary (not numba-inlined)
functions that LLVM inlines where it pays, so each is typed and compiled once.

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

import warnings

import numpy as np
from numba import prange
from numba.core.errors import NumbaPerformanceWarning

from oddslab._jit import jit, jit_parallel
from oddslab._kernels.rng import fill_block, new_block_state, new_state, roll_expr

# columns of the per-weapon integer table ``wint[w, :]`` (dice expressions take 3: n, sides, add)
W_MODELS = 0
W_ATT_N = 1
W_ATT_SIDES = 2
W_ATT_ADD = 3
W_SUS_N = 4
W_SUS_SIDES = 5
W_SUS_ADD = 6
W_LETHAL = 7
W_DEV = 8  # 0 none, DEV_LEGACY (spill, after the weapon), DEV_CURRENT (no spill, after all)
W_DMG_N = 9
W_DMG_SIDES = 10
W_DMG_ADD = 11
W_TORRENT = 12
W_XATT_N = 13  # extra hit rolls per critical hit (dice expression; 0 = none)
W_XATT_SIDES = 14
W_XATT_ADD = 15
W_MH_N = 16  # mortal wounds per critical hit (dice expression; 0 = none)
W_MH_SIDES = 17
W_MH_ADD = 18
W_MH_INSTEAD = 19  # 1: the critical hit inflicts only the mortal wounds (no wound roll)
W_MW_N = 20  # mortal wounds per critical wound
W_MW_SIDES = 21
W_MW_ADD = 22
W_MW_INSTEAD = 23  # 1: the critical wound inflicts only the mortal wounds (no save)
W_CRIT_SPLIT = 24  # 1: critical wounds are counted apart (high 32 bits) from ordinary wounds
W_CRIT_SAVE = 25  # 1: split critical wounds take their own save (critical AP) and damage map
W_DMG_REROLL = 26  # re-roll a damage roll whose value is below this (0 = never)
W_HAS_XATT = 27
W_HAS_MH = 28
W_HAS_MW = 29
W_NCOLS = 30

DEV_LEGACY = 1
DEV_CURRENT = 2

# rows of the per-weapon face tables ``faces[w, row, natural roll]``
F_HIT_CODE = 0  # 0 miss, 1 hit, 2 critical hit
F_HIT_REROLL = 1  # 1 if this natural hit roll is re-rolled
F_WOUND_CODE = 2  # 0 fail, 1 wound, 2 critical wound
F_WOUND_REROLL = 3
F_SAVE_FAIL = 4  # 1 if this natural save roll fails
F_SAVE_REROLL = 5  # 1 if this natural save roll is re-rolled
F_CSAVE_FAIL = 6  # the same against a critical wound (critical AP)
F_CSAVE_REROLL = 7
F_NROWS = 8

# damage maps ``dmgmap[w, kind, raw value]`` -> damage inflicted (modifiers applied)
D_NORMAL = 0
D_CRIT = 1
D_DEV = 2
D_IDENTITY = 3  # mortal wounds on criticals: no damage modifiers
D_NKINDS = 4

# the target and run switches ``tint[:]``
T_MODELS = 0
T_WOUNDS = 1
T_DAMAGED = 2
T_SPILL = 3
T_FNP = 4  # feel-no-pain against ordinary damage (0/1)
T_FNP_PAIR = 5  # its d36 table holds two rolls per value (see _sum_rolls)
T_FNPM = 6  # feel-no-pain against mortal wounds
T_FNPM_PAIR = 7
T_ROWS = 8  # T_ROWS + S_*: the row of ``out`` for that statistic, -1 if not reported
T_NCOLS = T_ROWS + 10

# statistics (index into the rows map)
S_ATTACKS = 0
S_HITS = 1
S_WOUNDS = 2
S_UNSAVED = 3
S_MORTAL = 4
S_DAMAGE = 5
S_SLAIN = 6
S_DESTROYED = 7
S_DEALT = 8
S_REMAINING = 9
N_STATS = 10

#: d36 tables per weapon in the chunk's flat table array (hit, wound, save, critical save)
_TABS = 8
_TSIZE = _TABS * 36

#: d36 values (two d6 each) per refill of a chunk's buffer (see :func:`fill_block`)
FACE_BLOCK = 512
#: lock-step xoshiro streams per chunk feeding the buffer (see :func:`fill_block`)
BLOCK_STREAMS = 16
_LOW32 = 0xFFFFFFFF
_HIGH = 1 << 32  # packed counters: low 32 bits count one outcome, high bits another


@jit
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


@jit
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


# columns of a damage packet group ``grp[g, :]`` (see :func:`_feed_groups`)
G_COUNT = 0
G_WEAPON = 1
G_MAP = 2  # D_* kind of damage map
G_N = 3
G_SIDES = 4
G_ADD = 5
G_REROLL = 6  # re-roll a roll below this
G_MORTAL = 7  # 1: mortal wounds (mortal feel-no-pain table, counted as mortal wounds)
G_SPILL = 8
G_NCOLS = 9


@jit
def _group(grp, ng, count, w, kind, n, sides, add, thr, mortal, spill):
    """Append a group of ``count`` damage packets to ``grp`` (if any); return the new size."""
    if count <= 0:
        return ng
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


@jit
def _feed_groups(
    st, bs, raw, buf, pos, end, grp, ng, dmgmap, fnp, fnp_use, fnp_pair, alive, cur, wounds, tot
):
    """Roll, modify, feel-no-pain and allocate the packets of groups ``grp[:ng]`` in order.

    Each packet rolls ``n D sides + add``, re-rolled once below ``G_REROLL`` (damage
    re-rolls); ``dmgmap[weapon, kind, value]`` applies the damage modifiers; each point then
    survives feel-no-pain on the group's d36 table. Adds to ``tot[S_DAMAGE]``,
    ``tot[S_MORTAL]`` and ``tot[S_SLAIN]``; returns ``(alive, cur, pos, end)``.
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
        total = 0
        slain = 0
        for _ in range(grp[g, G_COUNT]):
            dmg = roll_expr(st, dn, ds, da)
            if dmg < thr:
                dmg = roll_expr(st, dn, ds, da)
            dmg = dmap[dmg]
            if use:
                dmg, pos, end = _sum_rolls(bs, raw, buf, pos, end, dmg, pair, table, _ZERO, _D36)
            total += dmg
            alive, cur, s = _allocate(dmg, spill, alive, cur, wounds)
            slain += s
        tot[S_DAMAGE] += total
        tot[S_SLAIN] += slain
        if m != 0:
            tot[S_MORTAL] += total
    return alive, cur, pos, end


@jit
def _expr_total(st, count, n, sides, add):
    """Sum of ``count`` rolls of ``n D sides + add`` (a constant needs no dice)."""
    if n == 0:
        return count * (add if add > 0 else 0)
    total = 0
    for _ in range(count):
        total += roll_expr(st, n, sides, add)
    return total


#: the per-chunk function goes through numba's parallel pipeline with every parallel
#: transformation off: measured 2.3x faster trial loops than the plain pipeline (same
#: machine code otherwise; cold compile 12 s CPU against 18 s for one inlined parfor body)
_SERIAL_PARALLEL_PIPELINE = {
    "comprehension": False,
    "prange": False,
    "inplace_binop": False,
    "reduction": False,
    "setitem": False,
    "numpy": False,
    "stencil": False,
    "fusion": False,
}
# numba warns that nothing was parallelised, which is the intent here
warnings.filterwarnings(
    "ignore",
    message=r"(?s).*The keyword argument 'parallel=True' was specified but no transformation",
    category=NumbaPerformanceWarning,
)


@jit_parallel(parallel=_SERIAL_PARALLEL_PIPELINE)
def _chunk(seed, ntrials, hist, wint, faces, fnp, dmgmap, tint):
    """One chunk of trials (serial): fills ``hist[stat row, value]``."""
    n_w = wint.shape[0]
    st = new_state(seed)
    bs = new_block_state(st, BLOCK_STREAMS)
    raw = np.empty(FACE_BLOCK // 4, dtype=np.uint64)
    buf = np.empty(FACE_BLOCK, dtype=np.int64)
    # np.int64(...) keeps numba from compiling Literal[int] specialisations of the helpers
    pos = np.int64(0)
    end = np.int64(0)
    # per weapon and kind of roll, d36 lookup tables (see _sum_rolls): hits count
    # normal + crits << 32, wounds count wounds + split critical wounds << 32, saves count
    # failures
    tabs = np.zeros((n_w, _TABS, 36), dtype=np.int64)
    pairs = np.zeros((n_w, 4), dtype=np.bool_)
    vals = np.zeros(3, dtype=np.int64)
    for w in range(n_w):
        vals[0] = 0
        vals[1] = 1
        vals[2] = _HIGH
        pairs[w, 0] = _roll_tables(
            faces[w, F_HIT_CODE], faces[w, F_HIT_REROLL], vals, tabs[w, 0], tabs[w, 1]
        )
        vals[2] = _HIGH if wint[w, W_CRIT_SPLIT] != 0 else 1
        pairs[w, 1] = _roll_tables(
            faces[w, F_WOUND_CODE], faces[w, F_WOUND_REROLL], vals, tabs[w, 2], tabs[w, 3]
        )
        vals[2] = 1
        pairs[w, 2] = _roll_tables(
            faces[w, F_SAVE_FAIL], faces[w, F_SAVE_REROLL], vals, tabs[w, 4], tabs[w, 5]
        )
        pairs[w, 3] = _roll_tables(
            faces[w, F_CSAVE_FAIL], faces[w, F_CSAVE_REROLL], vals, tabs[w, 6], tabs[w, 7]
        )
    flat = tabs.ravel()
    use_fnp = tint[T_FNP] != 0
    fnp_use = np.zeros(2, dtype=np.bool_)  # per feel-no-pain table (ordinary, mortal)
    fnp_pair = np.zeros(2, dtype=np.bool_)
    fnp_use[0] = use_fnp
    fnp_pair[0] = tint[T_FNP_PAIR] != 0
    fnp_use[1] = tint[T_FNPM] != 0
    fnp_pair[1] = tint[T_FNPM_PAIR] != 0
    grp = np.zeros((max(n_w, 5), G_NCOLS), dtype=np.int64)  # damage packet groups to feed
    spill_i = tint[T_SPILL]
    _ZERO = np.int64(0)
    _ONE = np.int64(1)
    K_NORMAL = np.int64(D_NORMAL)
    K_CRIT = np.int64(D_CRIT)
    K_DEV = np.int64(D_DEV)
    K_IDENTITY = np.int64(D_IDENTITY)
    models = tint[T_MODELS]
    wounds = tint[T_WOUNDS]
    spill = tint[T_SPILL] != 0
    start_total = models * wounds - tint[T_DAMAGED]
    rows = tint[T_ROWS : T_ROWS + N_STATS]
    devq = np.zeros(n_w, dtype=np.int64)  # devastating wounds queued for the end (current rule)
    any_current = False
    for w in range(n_w):
        if wint[w, W_DEV] == DEV_CURRENT:
            any_current = True
    tot = np.zeros(N_STATS, dtype=np.int64)
    for _ in range(ntrials):
        t_att = 0
        t_hits = 0
        t_wounds = 0
        t_unsaved = 0
        t_mortal = 0
        t_damage = 0
        t_slain = 0
        alive = models
        cur = wounds - tint[T_DAMAGED]
        tot[S_DAMAGE] = 0
        tot[S_MORTAL] = 0
        tot[S_SLAIN] = 0  # wounds left on the model currently taking damage
        for w in range(n_w):
            o = w * _TSIZE  # offset of this weapon's d36 tables in ``flat``
            dmg_n = wint[w, W_DMG_N]
            dmg_sides = wint[w, W_DMG_SIDES]
            dmg_add = wint[w, W_DMG_ADD]
            thr = wint[w, W_DMG_REROLL]
            # -- attacks and hit rolls ----------------------------------------------------------
            if wint[w, W_ATT_N] == 0:
                add = wint[w, W_ATT_ADD]
                n_att = wint[w, W_MODELS] * (add if add > 0 else 0)
            else:
                n_att = 0
                for _m in range(wint[w, W_MODELS]):
                    n_att += roll_expr(
                        st, wint[w, W_ATT_N], wint[w, W_ATT_SIDES], wint[w, W_ATT_ADD]
                    )
            if wint[w, W_TORRENT] != 0:
                normal = n_att
                crits = 0
            else:
                acc, pos, end = _sum_rolls(
                    bs, raw, buf, pos, end, n_att, pairs[w, 0], flat, o, o + 36
                )
                normal = acc & _LOW32
                crits = acc >> 32
                if wint[w, W_HAS_XATT] != 0 and crits > 0:
                    # extra hit rolls granted by critical hits (they grant no further rolls)
                    more = _expr_total(
                        st, crits, wint[w, W_XATT_N], wint[w, W_XATT_SIDES], wint[w, W_XATT_ADD]
                    )
                    n_att += more
                    acc, pos, end = _sum_rolls(
                        bs, raw, buf, pos, end, more, pairs[w, 0], flat, o, o + 36
                    )
                    normal += acc & _LOW32
                    crits += acc >> 32
            t_att += n_att
            if wint[w, W_SUS_N] == 0:  # sustained hits: extra (non-critical) hits
                extra = crits * wint[w, W_SUS_ADD]
            else:
                extra = 0
                for _k in range(crits):
                    extra += roll_expr(
                        st, wint[w, W_SUS_N], wint[w, W_SUS_SIDES], wint[w, W_SUS_ADD]
                    )
            t_hits += normal + crits + extra
            if wint[w, W_MH_INSTEAD] != 0:
                auto = 0  # the critical hits' mortal wounds replace their wound rolls
                to_wound = normal + extra
            elif wint[w, W_LETHAL] != 0:
                auto = crits  # lethal hits wound automatically (not critical wounds)
                to_wound = normal + extra
            else:
                auto = 0
                to_wound = normal + crits + extra
            # -- wound rolls --------------------------------------------------------------------
            acc, pos, end = _sum_rolls(
                bs, raw, buf, pos, end, to_wound, pairs[w, 1], flat, o + 72, o + 108
            )
            wounded = auto + (acc & _LOW32)
            cw = acc >> 32  # critical wounds counted apart (devastating, critical AP/damage...)
            t_wounds += wounded + cw
            # -- saves --------------------------------------------------------------------------
            unsaved, pos, end = _sum_rolls(
                bs, raw, buf, pos, end, wounded, pairs[w, 2], flat, o + 144, o + 180
            )
            c_unsaved = 0
            if wint[w, W_CRIT_SAVE] != 0:
                c_unsaved, pos, end = _sum_rolls(
                    bs, raw, buf, pos, end, cw, pairs[w, 3], flat, o + 216, o + 252
                )
            dev = cw if wint[w, W_DEV] != 0 else 0
            t_unsaved += unsaved + c_unsaved + dev
            # -- damage, feel-no-pain, allocation -----------------------------------------------
            if dmg_n == 0 and not use_fnp:  # fixed damage: closed form
                dmg = dmgmap[w, D_NORMAL, dmg_add if dmg_add > 0 else 0]
                t_damage += unsaved * dmg
                alive, cur, slain = _allocate_fixed(unsaved, dmg, spill, alive, cur, wounds)
                t_slain += slain
                ng = _ZERO
            else:
                ng = _group(
                    grp, _ZERO, unsaved, w, K_NORMAL, dmg_n, dmg_sides, dmg_add, thr, _ZERO, spill_i
                )
            ng = _group(
                grp, ng, c_unsaved, w, K_CRIT, dmg_n, dmg_sides, dmg_add, thr, _ZERO, spill_i
            )
            # mortal wounds always spill over to the next model
            if wint[w, W_HAS_MH] != 0:
                ng = _group(
                    grp,
                    ng,
                    crits,
                    w,
                    K_IDENTITY,
                    wint[w, W_MH_N],
                    wint[w, W_MH_SIDES],
                    wint[w, W_MH_ADD],
                    _ZERO,
                    _ONE,
                    _ONE,
                )
            if wint[w, W_HAS_MW] != 0:
                ng = _group(
                    grp,
                    ng,
                    cw,
                    w,
                    K_IDENTITY,
                    wint[w, W_MW_N],
                    wint[w, W_MW_SIDES],
                    wint[w, W_MW_ADD],
                    _ZERO,
                    _ONE,
                    _ONE,
                )
            if wint[w, W_DEV] == DEV_LEGACY:
                # devastating wounds (legacy rule): mortal wounds equal to the damage, after the
                # weapon's other damage, spilling over
                ng = _group(grp, ng, dev, w, K_DEV, dmg_n, dmg_sides, dmg_add, thr, _ONE, _ONE)
            elif wint[w, W_DEV] == DEV_CURRENT:
                devq[w] = dev
            if ng > 0:
                alive, cur, pos, end = _feed_groups(
                    st,
                    bs,
                    raw,
                    buf,
                    pos,
                    end,
                    grp,
                    ng,
                    dmgmap,
                    fnp,
                    fnp_use,
                    fnp_pair,
                    alive,
                    cur,
                    wounds,
                    tot,
                )
        if any_current:
            # devastating wounds (current rule): after all the unit's other attacks, one packet
            # per critical wound, allocated like normal damage (no spill)
            ng = _ZERO
            for w in range(n_w):
                if wint[w, W_DEV] == DEV_CURRENT:
                    ng = _group(
                        grp,
                        ng,
                        devq[w],
                        w,
                        K_DEV,
                        wint[w, W_DMG_N],
                        wint[w, W_DMG_SIDES],
                        wint[w, W_DMG_ADD],
                        wint[w, W_DMG_REROLL],
                        _ONE,
                        _ZERO,
                    )
            alive, cur, pos, end = _feed_groups(
                st,
                bs,
                raw,
                buf,
                pos,
                end,
                grp,
                ng,
                dmgmap,
                fnp,
                fnp_use,
                fnp_pair,
                alive,
                cur,
                wounds,
                tot,
            )
        t_damage += tot[S_DAMAGE]
        t_mortal += tot[S_MORTAL]
        t_slain += tot[S_SLAIN]
        tot[S_ATTACKS] = t_att
        tot[S_HITS] = t_hits
        tot[S_WOUNDS] = t_wounds
        tot[S_UNSAVED] = t_unsaved
        tot[S_MORTAL] = t_mortal
        tot[S_DAMAGE] = t_damage
        tot[S_SLAIN] = t_slain
        tot[S_DESTROYED] = 1 if alive == 0 else 0
        left = (alive - 1) * wounds + cur if alive > 0 else 0
        tot[S_DEALT] = start_total - left
        tot[S_REMAINING] = left
        for s in range(N_STATS):
            r = rows[s]
            if r >= 0:
                hist[r, tot[s]] += 1


@jit_parallel
def run_generic(seeds, ntrials, out, wint, faces, fnp, dmgmap, tint):
    """Chunk driver: ``out[c, row, value]`` histograms of the pipeline statistics.

    Every weapon profile fires in order at one target per trial (see :func:`_chunk`). The
    arrays are built by :func:`oddslab.rulesets.generic.compile.arrays`: ``wint`` int64[W,
    W_NCOLS], ``faces`` int64[W, F_NROWS, 7], ``fnp`` int64[2, 72] (d36 feel-no-pain tables
    against ordinary damage and mortal wounds), ``dmgmap`` int64[W, D_NKINDS, V] and ``tint``
    int64[T_NCOLS].
    """
    for c in prange(seeds.shape[0]):
        _chunk(seeds[c], ntrials[c], out[c], wint, faces, fnp, dmgmap, tint)
