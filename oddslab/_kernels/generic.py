"""Kernel for the generic d6 attack pipeline (hit → wound → save → damage → FNP → allocation).

All game logic that can be decided per die face is precomputed by the ruleset into lookup
tables indexed by the natural roll 1..6 (index 0 unused), so the trial loop only rolls dice
and reads tables. Column layout of ``wint`` is given by the ``W_*`` constants.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from oddslab._jit import jit, jit_parallel
from oddslab._kernels.rng import new_state, randint, roll_expr

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


@jit
def _d6(st):
    return randint(st, 6) + 1


@jit(inline="always")
def _allocate(dmg, spill, alive, cur, wounds, res):
    """Apply ``dmg`` to the unit; returns the new (alive, cur). Slain models go to ``res``."""
    if spill:
        while dmg > 0 and alive > 0:
            take = dmg if dmg < cur else cur
            dmg -= take
            cur -= take
            if cur == 0:
                alive -= 1
                res[S_SLAIN] += 1
                cur = wounds
    elif alive > 0 and dmg > 0:
        if dmg >= cur:  # excess damage on a slain model is lost
            alive -= 1
            res[S_SLAIN] += 1
            cur = wounds
        else:
            cur -= dmg
    return alive, cur


@jit(inline="always")
def simulate_trial(st, wint, faces, fnp_fail, use_fnp, models, wounds, damaged, spill, res):
    """One trial of every weapon profile in order against one target; writes ``res[0:8]``."""
    for i in range(8):
        res[i] = 0
    alive = models
    cur = wounds - damaged  # wounds left on the model currently taking damage
    for w in range(wint.shape[0]):
        # 1-D views keep the per-die lookups to one index (no array-struct calls in loops)
        hit_code = faces[w, F_HIT_CODE]
        hit_rr = faces[w, F_HIT_REROLL]
        wound_code = faces[w, F_WOUND_CODE]
        wound_rr = faces[w, F_WOUND_REROLL]
        save_fail = faces[w, F_SAVE_FAIL]
        dmg_n = wint[w, W_DMG_N]
        dmg_sides = wint[w, W_DMG_SIDES]
        dmg_add = wint[w, W_DMG_ADD]
        # -- hit rolls ----------------------------------------------------------------------
        n_att = 0
        for _ in range(wint[w, W_MODELS]):
            n_att += roll_expr(st, wint[w, W_ATT_N], wint[w, W_ATT_SIDES], wint[w, W_ATT_ADD])
        res[S_ATTACKS] += n_att
        normal = 0
        crits = 0
        if wint[w, W_TORRENT] != 0:
            normal = n_att
        else:
            for _ in range(n_att):
                d = randint(st, 6) + 1
                if hit_rr[d] != 0:
                    d = randint(st, 6) + 1
                code = hit_code[d]
                normal += code == 1
                crits += code == 2
        extra = 0
        if wint[w, W_SUS_N] == 0:  # sustained hits: extra (non-critical) hits per critical
            extra = crits * wint[w, W_SUS_ADD]
        else:
            for _ in range(crits):
                extra += roll_expr(st, wint[w, W_SUS_N], wint[w, W_SUS_SIDES], wint[w, W_SUS_ADD])
        res[S_HITS] += normal + crits + extra
        if wint[w, W_LETHAL] != 0:
            auto = crits  # lethal hits wound automatically (not critical wounds)
            to_wound = normal + extra
        else:
            auto = 0
            to_wound = normal + crits + extra
        # -- wound rolls --------------------------------------------------------------------
        dev_on = wint[w, W_DEV] != 0
        wounded = auto
        dev = 0
        for _ in range(to_wound):
            d = randint(st, 6) + 1
            if wound_rr[d] != 0:
                d = randint(st, 6) + 1
            code = wound_code[d]
            is_dev = dev_on and code == 2
            dev += is_dev
            wounded += (code != 0) and not is_dev
        res[S_WOUNDS] += wounded + dev
        # -- saves, damage, allocation -------------------------------------------------------
        unsaved = 0
        for _ in range(wounded):
            unsaved += save_fail[randint(st, 6) + 1]
        res[S_UNSAVED] += unsaved + dev
        for _ in range(unsaved):
            dmg = roll_expr(st, dmg_n, dmg_sides, dmg_add)
            if use_fnp:
                left = 0
                for _ in range(dmg):
                    left += fnp_fail[randint(st, 6) + 1]
                dmg = left
            res[S_DAMAGE] += dmg
            alive, cur = _allocate(dmg, spill, alive, cur, wounds, res)
        # devastating wounds: mortal wounds equal to damage, after the weapon's normal damage;
        # mortal wounds always spill over to the next model
        for _ in range(dev):
            dmg = roll_expr(st, dmg_n, dmg_sides, dmg_add)
            if use_fnp:
                left = 0
                for _ in range(dmg):
                    left += fnp_fail[randint(st, 6) + 1]
                dmg = left
            res[S_MORTAL] += dmg
            res[S_DAMAGE] += dmg
            alive, cur = _allocate(dmg, True, alive, cur, wounds, res)
    res[S_DESTROYED] = 1 if alive == 0 else 0


@jit_parallel
def run_generic(seeds, ntrials, out, wint, faces, fnp_fail, use_fnp, models, wounds, damaged, spill):
    """Chunk driver: ``out[c, stat, value]`` histograms of the 8 pipeline statistics."""
    for c in prange(seeds.shape[0]):
        st = new_state(seeds[c])
        res = np.zeros(8, dtype=np.int64)
        hist = out[c]
        for _ in range(ntrials[c]):
            simulate_trial(st, wint, faces, fnp_fail, use_fnp, models, wounds, damaged, spill, res)
            for s in range(8):
                hist[s, res[s]] += 1
