"""Vom Kriege packing: every section of the static table lands at its recorded offset."""

from __future__ import annotations

import numpy as np

from oddslab.rulesets.vom_kriege import WARMUP
from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.packing import fresh_state, pack
from oddslab.scenario import from_dict


def test_pack_round_trip():
    a = from_dict(WARMUP).arrays()
    T = pack(a)
    nu, nl, na = len(a["U"]), len(a["LD"]), len(a["A"])
    assert (T[0, L.R_NU], T[0, L.R_NL], T[0, L.R_NA]) == (nu, nl, na)
    assert np.array_equal(T[1 : 1 + nu, : L.U_NCOLS], a["U"])
    o = T[0, L.R_OLD]
    assert np.array_equal(T[o : o + nl, : L.LD_NCOLS], a["LD"])
    o = T[0, L.R_OA]
    assert np.array_equal(T[o : o + na, : L.A_NCOLS], a["A"])
    nf = a["HIT"].shape[2]
    o = T[0, L.R_OHIT]
    for mode in range(3):
        for troop in range(3):
            assert np.array_equal(T[o + 3 * mode + troop, :nf], a["HIT"][mode, troop])
    assert np.array_equal(T[T[0, L.R_OFLAG], :nf], a["FLAG"])
    assert np.array_equal(T[T[0, L.R_OSYM], :nf], a["SYM"])
    assert np.array_equal(T[T[0, L.R_OFP] : T[0, L.R_OFP] + 4, :5], a["FP"])
    assert np.array_equal(T[T[0, L.R_OF], : L.F_NCOLS], a["F"])
    assert np.array_equal(T[0, : L.R_OLD], a["R"][: L.R_OLD])


def test_fresh_state():
    T = pack(from_dict(WARMUP).arrays())
    W = fresh_state(T)
    nu = T[0, L.R_NU]
    assert W.shape[0] == T[0, L.R_WDC] + 1
    assert np.array_equal(W[:nu, L.S_FORM], T[1 : 1 + nu, L.U_FORM])
    assert W[:nu, L.S_REMOVED].sum() == 0
