"""Vom Kriege numba dice counts (adjust.py) equal the Python tables (tables.py) on every
combination of shooter/fighter, target, range band, situation and rule switches."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_vom_kriege_tables import R0, art, cav, fight, inf, tgt

from oddslab.rulesets.vom_kriege import adjust
from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.model import Dice, Rules
from oddslab.rulesets.vom_kriege.packing import fresh_state, pack
from oddslab.rulesets.vom_kriege.tables import artillery_row, face_tables, shooting_dice

# -- kernel == tables ------------------------------------------------------------------------
SHOOTERS = [
    inf(),
    inf(formation="two_rank_line", hits=3),
    inf(formation="column", disordered=True, shooting_marker=True),
    inf(kind="light", formation="open_order", skirmish=True, terrain="woods"),
    inf(skirmish=True, hits=3, disordered=True),
    inf(formation="square"),
    inf(terrain="bua", quality="elite", hits=4),
    art(guns=8, kind="heavy"),
    art(guns=6, kind="light", shooting_marker=True, disordered=True),
    art(kind="horse", hits=2),
    art(formation="limbered"),
    cav(),
]
TARGETS = [
    tgt(),
    tgt(formation="column", terrain="woods"),
    tgt(formation="square"),
    tgt(kind="light", formation="open_order"),
    tgt(kind="light", formation="open_order", skirmish=True),
    tgt(skirmish=True, formation="column"),
    tgt(terrain="bua"),
    art(name="t", side="defender", terrain="fieldworks"),
    cav(name="t", side="defender", disordered=True),
]
RULESETS = [
    R0,
    Rules(or_rows="stack", artillery_rows="target", halving="before", min_dice=1),
    Rules(skirmish_dice="one", horse_artillery="heavy", halving_floor="positive"),
    Rules(order_support_row="largest", skirmish_target="open_order", or_rows="each"),
    Rules(skirmish_target="either", artillery_rows="target", skirmish_range="over_3"),
]


def _arrays(units, rules):
    U = np.zeros((len(units), L.U_NCOLS), dtype=np.int64)
    S = np.zeros((len(units), L.S_NCOLS), dtype=np.int64)
    for i, u in enumerate(units):
        U[i, L.U_SIDE] = L.SIDES.index(u.side)
        U[i, L.U_TROOP] = L.TROOPS.index(u.troop)
        U[i, L.U_KIND] = L.KINDS[u.troop].index(u.unit_kind)
        U[i, L.U_QUAL] = L.QUALITIES.index(u.quality)
        U[i, L.U_SK] = int(u.skirmish)
        U[i, L.U_STR] = u.max_hits
        U[i, L.U_TERR] = L.TERRAINS.index(u.terrain)
        U[i, L.U_ARTROW] = artillery_row(u, rules) if u.troop == "artillery" else -1
        S[i, L.S_HITS] = u.hits
        S[i, L.S_DISO] = int(u.disordered)
        S[i, L.S_FORM] = L.FORMATIONS.index(u.form)
        S[i, L.S_MARK] = int(u.shooting_marker)
    R = np.zeros(L.R_NCOLS, dtype=np.int64)
    R[L.R_OR_ROWS] = L.OR_ROWS_READINGS.index(rules.or_rows)
    R[L.R_ART_TARGET] = int(rules.artillery_rows == "target")
    R[L.R_HALVE_BEFORE] = int(rules.halving == "before")
    R[L.R_HALF_FLOOR] = int(rules.halving_floor == "always")
    R[L.R_MIN_DICE] = rules.min_dice
    R[L.R_SK_ONE] = int(rules.skirmish_dice == "one")
    R[L.R_ORDER_STACK] = int(rules.order_support_row == "stack")
    R[L.R_SK_TARGET] = L.SK_TARGET_READINGS.index(rules.skirmish_target)
    R[L.R_SK_CLOSE] = int(rules.skirmish_range == "up_to_6")
    hit, flag, sym = face_tables(Dice(), rules)
    T = pack(
        dict(
            U=U,
            LD=np.full((1, L.LD_NCOLS), 3, dtype=np.int64),
            A=np.zeros((1, L.A_NCOLS), dtype=np.int64),
            R=R,
            HIT=hit,
            FLAG=flag,
            SYM=sym,
            FP=np.array(L.ARTILLERY_FIRE_POINTS, dtype=np.int64),
            F=np.full(L.F_NCOLS, -1, dtype=np.int64),
        )
    )
    W = fresh_state(T)
    W[: len(units)] = S
    return T, W


@pytest.mark.parametrize(
    "rules", RULESETS, ids=["default", "switched", "other", "largest", "either"]
)
def test_kernel_shooting_dice_equal_tables(rules):
    for s, t in itertools.product(SHOOTERS, TARGETS):
        T, W = _arrays((s, t), rules)
        for band, order, supp, enf, obs in itertools.product(
            range(5), (0, 1), (0, 2), (0, 1), (0, 1)
        ):
            want = shooting_dice(
                s,
                t,
                band,
                rules,
                order_bonus=bool(order),
                supports=supp,
                enfilade=bool(enf),
                obscured=bool(obs),
            )[0]
            got = adjust.shoot_dice(T, W, 0, 1, band, order, supp, enf, obs)[0]
            assert got == want, (s, t, band, order, supp, enf, obs)


FIGHTERS = [
    inf(),
    inf(quality="elite", hits=4, disordered=True),
    inf(quality="conscript", formation="march_column"),
    inf(kind="light", formation="open_order", hits=3),
    cav(kind="heavy"),
    cav(kind="lancers", hits=3),
    cav(kind="light", quality="irregular", disordered=True),
]
OPPONENTS = TARGETS + [tgt(terrain="fieldworks", disordered=True), tgt(quality="irregular")]


@pytest.mark.parametrize(
    "rules", RULESETS, ids=["default", "switched", "other", "largest", "either"]
)
def test_kernel_melee_dice_equal_tables(rules):
    for u, o in itertools.product(FIGHTERS, OPPONENTS):
        T, W = _arrays((u, o), rules)
        for attacking, order, supp, up in itertools.product((0, 1), (0, 1), (0, 3), (0, 1)):
            want = fight(
                u,
                o,
                bool(attacking),
                rules,
                order_bonus=bool(order),
                supports=supp,
                uphill=bool(up),
            )
            got = adjust.melee_dice(
                T,
                W,
                0,
                1,
                attacking,
                order,
                supp,
                up,
                u.hits,
                int(u.disordered),
                int(o.disordered),
            )
            assert got == want, (u, o, attacking, order, supp, up)
