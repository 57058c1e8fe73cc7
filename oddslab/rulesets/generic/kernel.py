"""Kernel for the generic d6 attack pipeline (hit → wound → save → damage → FNP → allocation).

Compile time: the engine kernel :func:`run_generic` runs each chunk on a Python thread: the
Python prologue :func:`_prologue` makes the chunk's RNG state, lookup tables and scratch
arrays and hands them to the trial loop :func:`_trials`, compiled with ``jit_noalloc`` (no
reference counting: with it, the loop ran 2.3x slower). Neither a numba ``prange`` driver
nor a numba per-chunk wrapper is compiled: each cost seconds of the first run. The
helpers in :mod:`~oddslab.rulesets.generic.rolls` are inlined only where they sit in the trial
loop (``sum_rolls``, ``allocate*``, ``add_group``, ``feed_groups`` at a single call site); the
others are compiled once. Every helper has one signature (constants passed as ``np.int64``).

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
  ordinary wounds and critical wounds that take their own path), so one table load and one
  add handle a roll.
- Damage packets other than fixed ordinary damage are queued as groups (kind, count, dice,
  map) and fed in the documented order by one inlined loop (``feed_groups``).
- Fixed damage without feel-no-pain is allocated in closed form (``_allocate_fixed``).

The statistics are unchanged: every value read is an exactly uniform d36, and which values
are discarded depends on buffer positions only.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import new_block_state, roll_expr, seed_state
from oddslab.rulesets.generic.layout import (
    _HIGH,
    _LOW32,
    _TABS,
    _TSIZE,
    BLOCK_STREAMS,
    D_CRIT,
    D_DEV,
    D_IDENTITY,
    D_NORMAL,
    DEV_CURRENT,
    DEV_LEGACY,
    F_CSAVE_FAIL,
    F_CSAVE_REROLL,
    F_HIT_CODE,
    F_HIT_REROLL,
    F_SAVE_FAIL,
    F_SAVE_REROLL,
    F_WOUND_CODE,
    F_WOUND_REROLL,
    FACE_BLOCK,
    G_NCOLS,
    N_STATS,
    ONE_DAMAGE,
    ONE_HIT,
    ONE_WOUND,
    S_ATTACKS,
    S_DAMAGE,
    S_DEALT,
    S_DESTROYED,
    S_HAZ_LOST,
    S_HAZ_WOUNDS,
    S_HITS,
    S_MORTAL,
    S_REMAINING,
    S_SLAIN,
    S_UNSAVED,
    S_WOUNDS,
    T_DAMAGED,
    T_FNP,
    T_FNP_PAIR,
    T_FNPM,
    T_FNPM_PAIR,
    T_HAZ_DICE,
    T_HAZ_MODELS,
    T_HAZ_MORTAL,
    T_HAZ_WOUNDS,
    T_MODELS,
    T_ONE,
    T_ONE_SAVE,
    T_ROWS,
    T_SPILL,
    T_WOUNDS,
    W_ATT_ADD,
    W_ATT_N,
    W_ATT_SIDES,
    W_BLAST,
    W_CAN_SAVE,
    W_CRIT_SAVE,
    W_CRIT_SPLIT,
    W_DEV,
    W_DMG_ADD,
    W_DMG_AVG,
    W_DMG_N,
    W_DMG_REROLL,
    W_DMG_SIDES,
    W_HAS_MH,
    W_HAS_MW,
    W_HAS_XATT,
    W_LETHAL,
    W_MH_ADD,
    W_MH_INSTEAD,
    W_MH_N,
    W_MH_SIDES,
    W_MODELS,
    W_MW_ADD,
    W_MW_N,
    W_MW_SIDES,
    W_SUS_ADD,
    W_SUS_N,
    W_SUS_SIDES,
    W_TORRENT,
    W_XATT_ADD,
    W_XATT_N,
    W_XATT_SIDES,
)
from oddslab.rulesets.generic.rolls import (
    add_group,
    allocate_fixed,
    expr_total,
    feed_groups,
    feed_groups_full,
    hazard_losses,
    roll_tables,
    sum_rolls,
    variant,
)

__all__ = ["run_generic", "run_generic_lean"]


def _prologue(seed, ntrials, hist, rec, wint, faces, fnp, dmgmap, tint):
    """Per-chunk setup (Python, about 30 µs): the arguments of :func:`_trials` for one
    chunk of ``ntrials`` trials from the seed words ``seed`` (uint64[4]) into ``hist[stat
    row, value]`` (int64[n_stats, n_bins]) and, when it has rows, ``rec[trial, stat row]``
    (int32[r, n_stats], the per-trial records of :mod:`oddslab._kernels.chunks`).

    Every weapon profile fires in order at one target per trial. The arrays are built by
    :func:`oddslab.rulesets.generic.compile.arrays`: ``wint`` int64[W, W_NCOLS], ``faces``
    int64[W, F_NROWS, 7], ``fnp`` int64[2, 72] (d36 feel-no-pain tables against ordinary
    damage and mortal wounds), ``dmgmap`` int64[W, D_NKINDS, V] and ``tint`` int64[T_NCOLS].
    The RNG state and scratch arrays are made here, once per chunk, so the compiled trial
    loop allocates nothing and is the only level numba compiles (see
    :mod:`oddslab._kernels.chunks`).
    """
    n_w = wint.shape[0]
    st = seed_state(seed)
    bs = new_block_state(st, np.int64(BLOCK_STREAMS))
    raw = np.empty(FACE_BLOCK // 4, dtype=np.uint64)
    buf = np.empty(FACE_BLOCK, dtype=np.int64)
    # per weapon and kind of roll, d36 lookup tables (see sum_rolls): hits count
    # normal + crits << 32, wounds count wounds + split critical wounds << 32, saves count
    # failures
    tabs = np.zeros((n_w, _TABS, 36), dtype=np.int64)
    pairs = np.zeros((n_w, 4), dtype=np.bool_)
    vals = np.zeros(3, dtype=np.int64)
    for w in range(n_w):
        vals[0] = 0
        vals[1] = 1
        vals[2] = _HIGH
        pairs[w, 0] = roll_tables(
            faces[w, F_HIT_CODE], faces[w, F_HIT_REROLL], vals, tabs[w, 0], tabs[w, 1]
        )
        vals[2] = _HIGH if wint[w, W_CRIT_SPLIT] != 0 else 1
        pairs[w, 1] = roll_tables(
            faces[w, F_WOUND_CODE], faces[w, F_WOUND_REROLL], vals, tabs[w, 2], tabs[w, 3]
        )
        vals[2] = 1
        pairs[w, 2] = roll_tables(
            faces[w, F_SAVE_FAIL], faces[w, F_SAVE_REROLL], vals, tabs[w, 4], tabs[w, 5]
        )
        pairs[w, 3] = roll_tables(
            faces[w, F_CSAVE_FAIL], faces[w, F_CSAVE_REROLL], vals, tabs[w, 6], tabs[w, 7]
        )
    # per feel-no-pain table (ordinary, mortal): used, and a pair table
    fnp_use = np.array([tint[T_FNP] != 0, tint[T_FNPM] != 0], dtype=np.bool_)
    fnp_pair = np.array([tint[T_FNP_PAIR] != 0, tint[T_FNPM_PAIR] != 0], dtype=np.bool_)
    grp = np.zeros((max(n_w, 5), G_NCOLS), dtype=np.int64)  # damage packet groups to feed
    devq = np.zeros(n_w, dtype=np.int64)  # devastating wounds queued for the end (current rule)
    tot = np.zeros(N_STATS, dtype=np.int64)
    return (
        st, bs, raw, buf, ntrials, hist, rec, wint, fnp, dmgmap, tint, tabs.ravel(), pairs,
        fnp_use, fnp_pair, grp, devq, tot,
    )  # fmt: skip


#: compile-time switch of the trial loop (a global: numba prunes the branches it guards). The
#: lean variant (``EXTRAS = False``, :data:`run_generic_lean`) has only the code every scenario
#: needs; Blast, one-off re-rolls, the 2D6 "ones" damage re-roll and Hazardous are compiled only
#: into the full one, so scenarios without them compile no more than before those were added.
EXTRAS = True


def _trials(
    st, bs, raw, buf, ntrials, hist, rec, wint, fnp, dmgmap, tint, flat, pairs, fnp_use,
    fnp_pair, grp, devq, tot,
):  # fmt: skip
    """The trial loop of one chunk on the scratch arrays of :func:`_prologue` (allocates
    nothing).

    ``flat`` is the d36 tables ``tabs`` flattened (``_TSIZE`` entries per weapon), ``pairs``
    bool[W, 4] says which are pair tables, ``grp`` int64[max(W, 5), G_NCOLS] holds the damage
    groups, ``devq`` int64[W] the devastating wounds held back, ``tot`` int64[N_STATS] the
    running totals of :func:`feed_groups`.
    """
    n_w = wint.shape[0]
    # np.int64(...) keeps numba from compiling Literal[int] specialisations of the helpers
    pos = np.int64(0)
    end = np.int64(0)
    use_fnp = tint[T_FNP] != 0
    spill_i = tint[T_SPILL]
    _ZERO = np.int64(0)
    _ONE = np.int64(1)
    _SIX = np.int64(6)
    K_NORMAL = np.int64(D_NORMAL)
    K_CRIT = np.int64(D_CRIT)
    K_DEV = np.int64(D_DEV)
    K_IDENTITY = np.int64(D_IDENTITY)
    models = tint[T_MODELS]
    wounds = tint[T_WOUNDS]
    spill = tint[T_SPILL] != 0
    start_total = models * wounds - tint[T_DAMAGED]
    rows = tint[T_ROWS : T_ROWS + N_STATS]
    r_att = rows[S_ATTACKS]
    r_hits = rows[S_HITS]
    r_wounds = rows[S_WOUNDS]
    r_unsaved = rows[S_UNSAVED]
    r_mortal = rows[S_MORTAL]
    r_damage = rows[S_DAMAGE]
    r_slain = rows[S_SLAIN]
    r_destroyed = rows[S_DESTROYED]
    r_dealt = rows[S_DEALT]
    r_remaining = rows[S_REMAINING]
    one_kind = tint[T_ONE]
    haz_dice = tint[T_HAZ_DICE]
    haz_models = tint[T_HAZ_MODELS]
    haz_wounds = tint[T_HAZ_WOUNDS]
    haz_mortal = tint[T_HAZ_MORTAL] != 0
    any_current = False
    for w in range(n_w):
        if wint[w, W_DEV] == DEV_CURRENT:
            any_current = True
    keep = rec.shape[0] > 0  # per-trial records wanted (the same rolls either way)
    for trial in range(ntrials):
        t_att = 0
        t_hits = 0
        t_wounds = 0
        t_unsaved = 0
        t_mortal = 0
        t_damage = 0
        t_slain = 0
        alive = models
        cur = wounds - tint[T_DAMAGED]  # wounds left on the model currently taking damage
        tot[S_DAMAGE] = 0
        tot[S_MORTAL] = 0
        tot[S_SLAIN] = 0
        # one-off re-rolls left this trial (the attacker's of one kind, the defender's save)
        one_hit = one_kind == ONE_HIT
        one_wound = one_kind == ONE_WOUND
        one_dmg = one_kind == ONE_DAMAGE
        one_save = tint[T_ONE_SAVE] != 0
        # one pass per weapon, then one for devastating wounds held back (current rule)
        for step in range(n_w + 1):
            ng = _ZERO
            if step < n_w:
                w = step
                o = w * _TSIZE  # offset of this weapon's d36 tables in ``flat``
                dmg_n = wint[w, W_DMG_N]
                dmg_sides = wint[w, W_DMG_SIDES]
                dmg_add = wint[w, W_DMG_ADD]
                thr = wint[w, W_DMG_REROLL]
                dmg_avg = wint[w, W_DMG_AVG]
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
                if EXTRAS:
                    if wint[w, W_BLAST] != 0:  # Blast: per model, 1 per 5 target models alive
                        n_att += wint[w, W_MODELS] * (alive // 5)
                if wint[w, W_TORRENT] != 0:
                    normal = n_att
                    crits = 0
                else:
                    acc, pos, end = sum_rolls(
                        bs, raw, buf, pos, end, n_att, pairs[w, 0], flat, o, o + 36
                    )
                    normal = acc & _LOW32
                    crits = acc >> 32
                    if EXTRAS:
                        if one_hit and pairs[w, 0] and n_att > normal + crits:
                            # the one-off re-roll of a failed hit roll no re-roll has touched (one d6
                            # from the RNG state, read on the single-roll table: no buffer refill code)
                            acc = flat[o + 30 + 6 * roll_expr(st, _ONE, _SIX, _ZERO)]
                            normal += acc & _LOW32
                            crits += acc >> 32
                            one_hit = False
                    if wint[w, W_HAS_XATT] != 0 and crits > 0:
                        # extra hit rolls granted by critical hits (they grant no further rolls)
                        more = expr_total(
                            st, crits, wint[w, W_XATT_N], wint[w, W_XATT_SIDES], wint[w, W_XATT_ADD]
                        )
                        n_att += more
                        acc, pos, end = sum_rolls(
                            bs, raw, buf, pos, end, more, pairs[w, 0], flat, o, o + 36
                        )
                        normal += acc & _LOW32
                        crits += acc >> 32
                        if EXTRAS:
                            if one_hit and pairs[w, 0] and more > (acc & _LOW32) + (acc >> 32):
                                # no initial roll failed: the first failed extra roll (no more rolls)
                                acc = flat[o + 30 + 6 * roll_expr(st, _ONE, _SIX, _ZERO)]
                                normal += acc & _LOW32
                                crits += acc >> 32
                                one_hit = False
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
                acc, pos, end = sum_rolls(
                    bs, raw, buf, pos, end, to_wound, pairs[w, 1], flat, o + 72, o + 108
                )
                wounded = auto + (acc & _LOW32)
                cw = acc >> 32  # critical wounds counted apart (devastating, critical AP/damage...)
                if EXTRAS:
                    if one_wound and pairs[w, 1] and to_wound > (acc & _LOW32) + cw:
                        acc = flat[o + 102 + 6 * roll_expr(st, _ONE, _SIX, _ZERO)]
                        wounded += acc & _LOW32
                        cw += acc >> 32
                        one_wound = False
                t_wounds += wounded + cw
                # -- saves --------------------------------------------------------------------------
                unsaved, pos, end = sum_rolls(
                    bs, raw, buf, pos, end, wounded, pairs[w, 2], flat, o + 144, o + 180
                )
                if EXTRAS:
                    if one_save and unsaved > 0 and pairs[w, 2] and wint[w, W_CAN_SAVE] != 0:
                        # the defender's one-off re-roll of a failed save (ordinary wounds)
                        again = flat[o + 174 + 6 * roll_expr(st, _ONE, _SIX, _ZERO)]
                        unsaved += again - 1
                        one_save = False
                c_unsaved = 0
                if wint[w, W_CRIT_SAVE] != 0:
                    c_unsaved, pos, end = sum_rolls(
                        bs, raw, buf, pos, end, cw, pairs[w, 3], flat, o + 216, o + 252
                    )
                dev = cw if wint[w, W_DEV] != 0 else 0
                t_unsaved += unsaved + c_unsaved + dev
                # -- damage, feel-no-pain, allocation -----------------------------------------------
                if dmg_n == 0 and not use_fnp:  # fixed damage: closed form
                    dmg = dmgmap[w, D_NORMAL, dmg_add if dmg_add > 0 else 0]
                    t_damage += unsaved * dmg
                    alive, cur, slain = allocate_fixed(unsaved, dmg, spill, alive, cur, wounds)
                    t_slain += slain
                    ng = _ZERO
                else:
                    ng = add_group(
                        grp,
                        _ZERO,
                        unsaved,
                        w,
                        K_NORMAL,
                        dmg_n,
                        dmg_sides,
                        dmg_add,
                        thr,
                        _ZERO,
                        spill_i,
                        dmg_avg,
                    )
                ng = add_group(
                    grp, ng, c_unsaved, w, K_CRIT, dmg_n, dmg_sides, dmg_add, thr, _ZERO, spill_i,
                    dmg_avg,
                )  # fmt: skip
                # mortal wounds always spill over to the next model
                if wint[w, W_HAS_MH] != 0:
                    ng = add_group(
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
                        _ZERO,
                    )
                if wint[w, W_HAS_MW] != 0:
                    ng = add_group(
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
                        _ZERO,
                    )
                if wint[w, W_DEV] == DEV_LEGACY:
                    # devastating wounds (legacy rule): mortal wounds equal to the damage, after the
                    # weapon's other damage, spilling over
                    ng = add_group(
                        grp, ng, dev, w, K_DEV, dmg_n, dmg_sides, dmg_add, thr, _ONE, _ONE, dmg_avg
                    )
                elif wint[w, W_DEV] == DEV_CURRENT:
                    devq[w] = dev
            elif any_current:
                # devastating wounds (current rule): after all the unit's other attacks, one packet
                # per critical wound, allocated like normal damage (no spill); the damage is an
                # attack's damage with no save, not mortal wounds
                for w in range(n_w):
                    if wint[w, W_DEV] == DEV_CURRENT:
                        ng = add_group(
                            grp,
                            ng,
                            devq[w],
                            w,
                            K_DEV,
                            wint[w, W_DMG_N],
                            wint[w, W_DMG_SIDES],
                            wint[w, W_DMG_ADD],
                            wint[w, W_DMG_REROLL],
                            _ZERO,  # not mortal wounds: the ordinary feel-no-pain, not counted
                            _ZERO,
                            wint[w, W_DMG_AVG],
                        )
            if ng > 0:  # (the lean variant's feed_groups_full is the lean feed_groups)
                alive, cur, pos, end, one_dmg = feed_groups_full(
                    st, bs, raw, buf, pos, end, grp, ng, dmgmap, fnp, fnp_use, fnp_pair,
                    alive, cur, wounds, tot, one_dmg,
                )  # fmt: skip
        t_damage += tot[S_DAMAGE]
        t_mortal += tot[S_MORTAL]
        t_slain += tot[S_SLAIN]
        hist[r_att, t_att] += 1
        hist[r_hits, t_hits] += 1
        hist[r_wounds, t_wounds] += 1
        hist[r_unsaved, t_unsaved] += 1
        if r_mortal >= 0:  # reported only when something can inflict mortal wounds
            hist[r_mortal, t_mortal] += 1
        hist[r_damage, t_damage] += 1
        if r_slain >= 0:  # row -1 would write into the last row (wounds_remaining)
            hist[r_slain, t_slain] += 1
        if r_destroyed >= 0:
            hist[r_destroyed, 1 if alive == 0 else 0] += 1
        left = (alive - 1) * wounds + cur if alive > 0 else 0
        hist[r_dealt, start_total - left] += 1
        hist[r_remaining, left] += 1
        if keep:  # the same values, trial by trial (rows as the histogram's)
            rec[trial, r_att] = t_att
            rec[trial, r_hits] = t_hits
            rec[trial, r_wounds] = t_wounds
            rec[trial, r_unsaved] = t_unsaved
            if r_mortal >= 0:
                rec[trial, r_mortal] = t_mortal
            rec[trial, r_damage] = t_damage
            if r_slain >= 0:
                rec[trial, r_slain] = t_slain
            if r_destroyed >= 0:
                rec[trial, r_destroyed] = 1 if alive == 0 else 0
            rec[trial, r_dealt] = start_total - left
            rec[trial, r_remaining] = left
        if EXTRAS:
            if haz_dice > 0:  # Hazardous: after the unit's attacks, the attacker's own losses
                h_lost, h_wounds = hazard_losses(st, haz_dice, haz_models, haz_wounds, haz_mortal)
                hist[rows[S_HAZ_LOST], h_lost] += 1
                hist[rows[S_HAZ_WOUNDS], h_wounds] += 1
                if keep:
                    rec[trial, rows[S_HAZ_LOST]] = h_lost
                    rec[trial, rows[S_HAZ_WOUNDS]] = h_wounds


_LOCALS = dict(
    ints="auto c_unsaved crits extra n_att t_att t_damage t_hits t_mortal t_slain t_unsaved t_wounds",
    flags="any_current keep",
)
_trials_full = jit_noalloc(**_LOCALS)(_trials)
_trials_lean = jit_noalloc(**_LOCALS)(
    variant(_trials, "_trials_lean", EXTRAS=False, feed_groups_full=feed_groups)
)

#: Engine kernels (contract in :mod:`oddslab.engine`): the trial loop on the arguments of
#: :func:`_prologue`, for each chunk of a batch, on threads
#: (:class:`~oddslab._kernels.chunks.ChunkKernel`); the lean one for scenarios without Blast,
#: one-off re-rolls, 2D6 "ones" damage re-rolls and Hazardous (:func:`needs_extras`).
run_generic = ChunkKernel(_trials_full, "run_generic", prologue=_prologue, records=True)
run_generic_lean = ChunkKernel(_trials_lean, "run_generic_lean", prologue=_prologue, records=True)
