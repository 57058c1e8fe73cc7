"""Kernel for a mixed target unit: groups of models (a sergeant, an attached leader) that each
have their own wounds, saves and feel-no-pain.

A variant of :mod:`~oddslab.rulesets.generic.kernel` (the simple path keeps its own kernel and
compile time): hits and wound rolls are summed over d36 lookup tables as there (the wound
tables of the group whose toughness is the unit's when the weapon fires), but each wound is
then allocated to a model by the core rules (:mod:`.kernel_mixed_rules`) before its save,
because the save, damage and feel-no-pain are those of the model it is allocated to. Order within a
weapon, as the simple kernel: ordinary wounds, critical wounds with their own save, mortal
wounds on critical hits, on critical wounds, devastating wounds (legacy rule); current-rule
devastating wounds after every weapon. Arrays: :func:`oddslab.rulesets.generic.compile_mixed.
mixed_arrays`. Once the unit is destroyed nothing more is rolled for it.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import fill_block, new_block_state, roll_expr, seed_state
from oddslab.rulesets.generic.kernel_mixed_rules import (
    apply_packet,
    choose_model,
    roll_damage,
    toughness_group,
)
from oddslab.rulesets.generic.layout import (
    _HIGH,
    _LOW32,
    _TABS,
    _TSIZE,
    BLOCK_STREAMS,
    D_CRIT,
    D_DEV,
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
    GI_CHAR,
    GI_DAMAGED,
    GI_MODELS,
    GI_ROW,
    GI_WOUNDS,
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
    T_HAZ_DICE,
    T_HAZ_MODELS,
    T_HAZ_MORTAL,
    T_HAZ_WOUNDS,
    T_LEADER_ROW,
    T_ONE,
    T_ONE_SAVE,
    T_ROWS,
    T_SPILL,
    W_ATT_ADD,
    W_ATT_N,
    W_ATT_SIDES,
    W_BLAST,
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
    W_PRECISION,
    W_SUS_ADD,
    W_SUS_N,
    W_SUS_SIDES,
    W_TORRENT,
    W_XATT_ADD,
    W_XATT_N,
    W_XATT_SIDES,
)
from oddslab.rulesets.generic.rolls import (
    expr_total,
    hazard_losses,
    roll_tables,
    sum_rolls,
)

__all__ = ["run_generic_mixed"]


def _prologue(seed, ntrials, hist, rec, wint, faces, fnp, fnpflags, dmgmap, tint, gint, order):
    """Per-chunk setup (Python): ``faces`` int64[G, W, F_NROWS, 7] (each group's face tables:
    its toughness, its save), ``fnp`` int64[G, 2, 72] and ``fnpflags`` int64[G, 4] (each
    group's feel-no-pain tables), ``gint`` int64[G, GI_NCOLS], ``order`` int64[G] (the
    defender's order of choice); the rest (``rec``: the per-trial records) as
    :func:`oddslab.rulesets.generic.kernel._prologue`."""
    n_g, n_w = faces.shape[0], faces.shape[1]
    st = seed_state(seed)
    bs = new_block_state(st, np.int64(BLOCK_STREAMS))
    raw = np.empty(FACE_BLOCK // 4, dtype=np.uint64)
    buf = np.empty(FACE_BLOCK, dtype=np.int64)
    tabs = np.zeros((n_g, n_w, _TABS, 36), dtype=np.int64)
    pairs = np.zeros((n_g, n_w, 4), dtype=np.bool_)
    vals = np.zeros(3, dtype=np.int64)
    for g in range(n_g):
        for w in range(n_w):
            f, t = faces[g, w], tabs[g, w]
            vals[:] = (0, 1, _HIGH)
            pairs[g, w, 0] = roll_tables(f[F_HIT_CODE], f[F_HIT_REROLL], vals, t[0], t[1])
            vals[2] = _HIGH if wint[w, W_CRIT_SPLIT] != 0 else 1
            pairs[g, w, 1] = roll_tables(f[F_WOUND_CODE], f[F_WOUND_REROLL], vals, t[2], t[3])
            vals[2] = 1
            pairs[g, w, 2] = roll_tables(f[F_SAVE_FAIL], f[F_SAVE_REROLL], vals, t[4], t[5])
            pairs[g, w, 3] = roll_tables(f[F_CSAVE_FAIL], f[F_CSAVE_REROLL], vals, t[6], t[7])
    # per group and weapon: some natural roll saves an ordinary wound (the one-off save re-roll
    # is spent only where a re-roll could pass)
    cansave = (faces[:, :, F_SAVE_FAIL, 1:] == 0).any(axis=2)
    fnp_use = np.stack([fnpflags[:, 0] != 0, fnpflags[:, 2] != 0], axis=1)
    fnp_pair = np.stack([fnpflags[:, 1] != 0, fnpflags[:, 3] != 0], axis=1)
    alive = np.zeros(n_g, dtype=np.int64)
    cur = np.zeros(n_g, dtype=np.int64)
    devq = np.zeros(n_w, dtype=np.int64)
    tot = np.zeros(N_STATS, dtype=np.int64)
    return (
        st, bs, raw, buf, ntrials, hist, rec, wint, fnp.ravel(), dmgmap, tint, gint, order,
        tabs.ravel(), pairs, cansave, fnp_use, fnp_pair, alive, cur, devq, tot,
    )  # fmt: skip


@jit_noalloc(ints="crits extra n_att t_att t_hits t_unsaved t_wounds normal")
def _trials(
    st, bs, raw, buf, ntrials, hist, rec, wint, fnp, dmgmap, tint, gint, order, flat, pairs,
    cansave, fnp_use, fnp_pair, alive, cur, devq, tot,
):  # fmt: skip
    """The trial loop of one chunk (allocates nothing): see the module docstring."""
    n_w = wint.shape[0]
    n_g = gint.shape[0]
    pos = np.int64(0)
    end = np.int64(0)
    _ZERO = np.int64(0)
    _ONE = np.int64(1)
    _SIX = np.int64(6)
    yes = n_w >= 0  # typed booleans: literals would compile specialisations of the helpers
    no = n_w < 0
    spill = tint[T_SPILL] != 0
    rows = tint[T_ROWS : T_ROWS + N_STATS]
    start_total = 0
    for g in range(n_g):
        start_total += gint[g, GI_MODELS] * gint[g, GI_WOUNDS] - gint[g, GI_DAMAGED]
    one_kind = tint[T_ONE]
    keep = rec.shape[0] > 0  # per-trial records wanted (the same rolls either way)
    for trial in range(ntrials):
        t_att = 0
        t_hits = 0
        t_wounds = 0
        t_unsaved = 0
        tot[S_DAMAGE] = 0
        tot[S_MORTAL] = 0
        for g in range(n_g):
            alive[g] = gint[g, GI_MODELS]
            cur[g] = gint[g, GI_WOUNDS] - gint[g, GI_DAMAGED]
        # one-off re-rolls left this trial (the attacker's of one kind, the defender's save)
        one_hit = one_kind == ONE_HIT
        one_wound = one_kind == ONE_WOUND
        one_dmg = one_kind == ONE_DAMAGE
        one_save = tint[T_ONE_SAVE] != 0
        for w in range(n_w):
            devq[w] = 0
            prec = wint[w, W_PRECISION] != 0
            o = w * _TSIZE  # hit tables: the same for every group (group 0's)
            n_att = 0
            if wint[w, W_ATT_N] == 0:
                add = wint[w, W_ATT_ADD]
                n_att = wint[w, W_MODELS] * (add if add > 0 else 0)
            else:
                for _m in range(wint[w, W_MODELS]):
                    n_att += roll_expr(
                        st, wint[w, W_ATT_N], wint[w, W_ATT_SIDES], wint[w, W_ATT_ADD]
                    )
            if wint[w, W_BLAST] != 0:
                left = 0
                for g in range(n_g):
                    left += alive[g]
                n_att += wint[w, W_MODELS] * (left // 5)
            if wint[w, W_TORRENT] != 0:
                normal = n_att
                crits = 0
            else:
                acc, pos, end = sum_rolls(
                    bs, raw, buf, pos, end, n_att, pairs[0, w, 0], flat, o, o + 36
                )
                normal = acc & _LOW32
                crits = acc >> 32
                if one_hit and pairs[0, w, 0] and n_att > normal + crits:
                    # the one-off re-roll of a failed hit roll no re-roll has touched (one d6
                    # from the RNG state, read on the single-roll table), as the simple kernel
                    acc = flat[o + 30 + 6 * roll_expr(st, _ONE, _SIX, _ZERO)]
                    normal += acc & _LOW32
                    crits += acc >> 32
                    one_hit = False
                if wint[w, W_HAS_XATT] != 0 and crits > 0:
                    more = expr_total(
                        st, crits, wint[w, W_XATT_N], wint[w, W_XATT_SIDES], wint[w, W_XATT_ADD]
                    )
                    n_att += more
                    acc, pos, end = sum_rolls(
                        bs, raw, buf, pos, end, more, pairs[0, w, 0], flat, o, o + 36
                    )
                    normal += acc & _LOW32
                    crits += acc >> 32
                    if one_hit and pairs[0, w, 0] and more > (acc & _LOW32) + (acc >> 32):
                        # no initial roll failed: the first failed extra roll (no more rolls)
                        acc = flat[o + 30 + 6 * roll_expr(st, _ONE, _SIX, _ZERO)]
                        normal += acc & _LOW32
                        crits += acc >> 32
                        one_hit = False
            t_att += n_att
            if wint[w, W_SUS_N] == 0:
                extra = crits * wint[w, W_SUS_ADD]
            else:
                extra = 0
                for _k in range(crits):
                    extra += roll_expr(
                        st, wint[w, W_SUS_N], wint[w, W_SUS_SIDES], wint[w, W_SUS_ADD]
                    )
            t_hits += normal + crits + extra
            if wint[w, W_MH_INSTEAD] != 0:
                auto = 0
                to_wound = normal + extra
            elif wint[w, W_LETHAL] != 0:
                auto = crits
                to_wound = normal + extra
            else:
                auto = 0
                to_wound = normal + crits + extra
            gt = toughness_group(alive, gint)  # the unit's toughness when the weapon fires
            ot = (gt * n_w + w) * _TSIZE
            acc, pos, end = sum_rolls(
                bs, raw, buf, pos, end, to_wound, pairs[gt, w, 1], flat, ot + 72, ot + 108
            )
            wounded = auto + (acc & _LOW32)
            cw = acc >> 32
            if one_wound and pairs[gt, w, 1] and to_wound > (acc & _LOW32) + cw:
                acc = flat[ot + 102 + 6 * roll_expr(st, _ONE, _SIX, _ZERO)]
                wounded += acc & _LOW32
                cw += acc >> 32
                one_wound = False
            t_wounds += wounded + cw
            dn = wint[w, W_DMG_N]
            ds = wint[w, W_DMG_SIDES]
            da = wint[w, W_DMG_ADD]
            thr = wint[w, W_DMG_REROLL]
            avg = wint[w, W_DMG_AVG]
            # ordinary wounds, then critical wounds with their own save (critical AP): one at a
            # time, each allocated to a model and saved by it (g changes only when one dies)
            for kind in range(2):
                n_k = wounded if kind == 0 else (cw if wint[w, W_CRIT_SAVE] != 0 else 0)
                if n_k == 0:
                    continue
                dkind = D_NORMAL if kind == 0 else D_CRIT
                # fixed damage: its value once (rolling it would draw nothing)
                fixed = dmgmap[w, dkind, da if da > 0 else 0]
                g = choose_model(alive, cur, gint, order, prec)
                og = (g * n_w + w) * _TSIZE + 144 + 72 * kind  # (critical) save tables
                ot1 = og + 36 if pairs[g, w, 2 + kind] else og  # the single-roll table
                for _i in range(n_k):
                    if g < 0:
                        break
                    # one save, one buffered d36 value (what sum_rolls reads for one roll)
                    if pos == end:
                        end = fill_block(bs, raw, buf, 36)
                        pos = _ZERO
                    fail = flat[ot1 + buf[pos]]
                    pos += 1
                    if fail != 0 and one_save and kind == 0 and pairs[g, w, 2] and cansave[g, w]:
                        # the defender's one-off re-roll: a failed save of an ordinary wound
                        # that no re-roll touched and a re-roll could pass
                        fail = flat[og + 30 + 6 * roll_expr(st, _ONE, _SIX, _ZERO)]
                        one_save = False
                    if fail == 0:
                        continue
                    t_unsaved += 1
                    if dn == 0:
                        dmg = fixed
                    else:
                        raw_d, one_dmg = roll_damage(st, dn, ds, da, thr, avg, one_dmg)
                        dmg = dmgmap[w, dkind, raw_d]
                    if spill or fnp_use[g, 0]:
                        pos, end = apply_packet(
                            bs, raw, buf, pos, end, dmg, spill, _ZERO, prec, alive, cur, gint,
                            order, fnp, fnp_use, fnp_pair, tot,
                        )  # fmt: skip
                        g = choose_model(alive, cur, gint, order, prec)
                    else:  # the common case, here: one model takes it, the excess is lost
                        tot[S_DAMAGE] += dmg
                        if dmg >= cur[g]:
                            alive[g] -= 1
                            cur[g] = gint[g, GI_WOUNDS]
                            g = choose_model(alive, cur, gint, order, prec)
                        elif dmg > 0:
                            cur[g] -= dmg
                            continue
                    if g >= 0:  # another model: its tables
                        og = (g * n_w + w) * _TSIZE + 144 + 72 * kind
                        ot1 = og + 36 if pairs[g, w, 2 + kind] else og
            if wint[w, W_DEV] != 0:
                t_unsaved += cw
            # mortal wounds, spilling point by point: on critical hits, on critical wounds, then
            # legacy-rule devastating wounds (the attack's damage: Precision applies to them)
            for src in range(3):
                if src == 0:
                    count = crits if wint[w, W_HAS_MH] != 0 else 0
                elif src == 1:
                    count = cw if wint[w, W_HAS_MW] != 0 else 0
                else:
                    count = cw if wint[w, W_DEV] == DEV_LEGACY else 0
                for _i in range(count):
                    if src == 0:
                        dmg = roll_expr(st, wint[w, W_MH_N], wint[w, W_MH_SIDES], wint[w, W_MH_ADD])
                    elif src == 1:
                        dmg = roll_expr(st, wint[w, W_MW_N], wint[w, W_MW_SIDES], wint[w, W_MW_ADD])
                    else:
                        raw_d, one_dmg = roll_damage(st, dn, ds, da, thr, avg, one_dmg)
                        dmg = dmgmap[w, D_DEV, raw_d]
                    pos, end = apply_packet(
                        bs, raw, buf, pos, end, dmg, yes, _ONE, prec and src == 2, alive, cur,
                        gint, order, fnp, fnp_use, fnp_pair, tot,
                    )  # fmt: skip
            if wint[w, W_DEV] == DEV_CURRENT:
                devq[w] = cw
        # current-rule devastating wounds: after every weapon, an attack's damage, no spill
        for w in range(n_w):
            prec = wint[w, W_PRECISION] != 0
            for _i in range(devq[w]):
                raw_d, one_dmg = roll_damage(
                    st,
                    wint[w, W_DMG_N],
                    wint[w, W_DMG_SIDES],
                    wint[w, W_DMG_ADD],
                    wint[w, W_DMG_REROLL],
                    wint[w, W_DMG_AVG],
                    one_dmg,
                )
                dmg = dmgmap[w, D_DEV, raw_d]
                pos, end = apply_packet(
                    bs,
                    raw,
                    buf,
                    pos,
                    end,
                    dmg,
                    no,
                    _ZERO,
                    prec,
                    alive,
                    cur,
                    gint,
                    order,
                    fnp,
                    fnp_use,
                    fnp_pair,
                    tot,
                )
        slain = 0
        left = 0
        chars = 0
        chars_alive = 0
        for g in range(n_g):
            lost = gint[g, GI_MODELS] - alive[g]
            slain += lost
            if alive[g] > 0:
                left += (alive[g] - 1) * gint[g, GI_WOUNDS] + cur[g]
            if gint[g, GI_ROW] >= 0:
                hist[gint[g, GI_ROW], lost] += 1
                if keep:
                    rec[trial, gint[g, GI_ROW]] = lost
            if gint[g, GI_CHAR] != 0:
                chars += 1
                chars_alive += alive[g]
        hist[rows[S_ATTACKS], t_att] += 1
        hist[rows[S_HITS], t_hits] += 1
        hist[rows[S_WOUNDS], t_wounds] += 1
        hist[rows[S_UNSAVED], t_unsaved] += 1
        if rows[S_MORTAL] >= 0:
            hist[rows[S_MORTAL], tot[S_MORTAL]] += 1
        hist[rows[S_DAMAGE], tot[S_DAMAGE]] += 1
        hist[rows[S_SLAIN], slain] += 1
        hist[rows[S_DESTROYED], 1 if left == 0 else 0] += 1
        hist[rows[S_DEALT], start_total - left] += 1
        hist[rows[S_REMAINING], left] += 1
        if keep:  # the same values, trial by trial (rows as the histogram's)
            rec[trial, rows[S_ATTACKS]] = t_att
            rec[trial, rows[S_HITS]] = t_hits
            rec[trial, rows[S_WOUNDS]] = t_wounds
            rec[trial, rows[S_UNSAVED]] = t_unsaved
            if rows[S_MORTAL] >= 0:
                rec[trial, rows[S_MORTAL]] = tot[S_MORTAL]
            rec[trial, rows[S_DAMAGE]] = tot[S_DAMAGE]
            rec[trial, rows[S_SLAIN]] = slain
            rec[trial, rows[S_DESTROYED]] = 1 if left == 0 else 0
            rec[trial, rows[S_DEALT]] = start_total - left
            rec[trial, rows[S_REMAINING]] = left
        if tint[T_HAZ_DICE] > 0:  # Hazardous: after the unit's attacks
            h_lost, h_wounds = hazard_losses(
                st,
                tint[T_HAZ_DICE],
                tint[T_HAZ_MODELS],
                tint[T_HAZ_WOUNDS],
                tint[T_HAZ_MORTAL] != 0,
            )
            hist[rows[S_HAZ_LOST], h_lost] += 1
            hist[rows[S_HAZ_WOUNDS], h_wounds] += 1
            if keep:
                rec[trial, rows[S_HAZ_LOST]] = h_lost
                rec[trial, rows[S_HAZ_WOUNDS]] = h_wounds
        if tint[T_LEADER_ROW] >= 0:
            lead = 1 if chars > 0 and chars_alive == 0 else 0
            hist[tint[T_LEADER_ROW], lead] += 1
            if keep:
                rec[trial, tint[T_LEADER_ROW]] = lead


#: Engine kernel for mixed units (contract in :mod:`oddslab.engine`).
run_generic_mixed = ChunkKernel(_trials, "run_generic_mixed", prologue=_prologue, records=True)
