"""Packing a scenario's arrays into the kernel's one static table ``T`` and the per-trial
state ``W`` (layouts in :mod:`.layout`; see :mod:`.kernel`)."""

from __future__ import annotations

import numpy as np

from oddslab.rulesets.vom_kriege import layout as L

__all__ = ["pack", "fresh_state"]


def pack(a: dict[str, np.ndarray]) -> np.ndarray:
    """The kernel's one static table ``T`` from :meth:`VomKriegeScenario.arrays` (see
    :mod:`.kernel`): row 0 rules and offsets, then units, leaders, actions, HIT, FLAG, SYM,
    fire points and the focus row."""
    U, LD, A, R = a["U"], a["LD"], a["A"], a["R"].copy()
    HIT = a["HIT"].reshape(9, -1)
    blocks = [
        R[None, :],
        U,
        LD,
        A,
        HIT,
        a["FLAG"][None, :],
        a["SYM"][None, :],
        a["FP"],
        a["F"][None, :],
    ]
    width = max(b.shape[1] for b in blocks)
    offsets = np.cumsum([0] + [b.shape[0] for b in blocks])
    R[L.R_OLD], R[L.R_OA], R[L.R_OHIT] = offsets[2], offsets[3], offsets[4]
    R[L.R_OFLAG], R[L.R_OSYM], R[L.R_OFP], R[L.R_OF] = offsets[5:9]
    R[L.R_NU], R[L.R_NL], R[L.R_NA] = U.shape[0], LD.shape[0], A.shape[0]
    R[L.R_WLS], R[L.R_WDC] = U.shape[0], U.shape[0] + LD.shape[0]
    blocks[0] = R[None, :]
    T = np.zeros((int(offsets[-1]), width), dtype=np.int64)
    for b, o in zip(blocks, offsets[:-1], strict=True):
        T[o : o + b.shape[0], : b.shape[1]] = b
    return T


def fresh_state(T: np.ndarray) -> np.ndarray:
    """The per-trial state ``W`` at the scenario's start (for tests of kernel helpers)."""
    nu, nl = int(T[0, L.R_NU]), int(T[0, L.R_NL])
    W = np.zeros((nu + nl + 1, max(L.S_NCOLS, L.LS_NCOLS, 4)), dtype=np.int64)
    W[:nu, L.S_HITS] = T[1 : 1 + nu, L.U_HITS]
    W[:nu, L.S_DISO] = T[1 : 1 + nu, L.U_DISO]
    W[:nu, L.S_FORM] = T[1 : 1 + nu, L.U_FORM]
    W[:nu, L.S_MARK] = T[1 : 1 + nu, L.U_MARK]
    old = int(T[0, L.R_OLD])
    W[nu : nu + nl, L.LS_HITS] = T[old : old + nl, L.LD_HITS]
    W[nu : nu + nl, L.LS_REMOVED] = T[old : old + nl, L.LD_HITS] >= L.LEADER_STRENGTH
    return W
