"""Statistical helpers for tests: chi-square against an exact PMF, z-scores.

Tolerances are stated here once: a chi-square test fails when p < 1e-4 (about 1 false alarm
in 10,000 runs for a correct kernel, and seeds are fixed so a pass is reproducible); z-score
checks use |z| < 5.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps

P_MIN = 1e-4
Z_MAX = 5.0


def chisquare_pmf(counts: np.ndarray, pmf: np.ndarray, min_expected: float = 5.0) -> float:
    """p-value of observed ``counts`` against an exact ``pmf`` (bins merged to expected >= 5).

    Observed mass outside the PMF's support fails immediately (p = 0).
    """
    counts = np.asarray(counts, dtype=float)
    pmf = np.asarray(pmf, dtype=float)
    n = counts.sum()
    size = max(len(counts), len(pmf))
    c = np.zeros(size)
    c[: len(counts)] = counts
    p = np.zeros(size)
    p[: len(pmf)] = pmf
    if np.any((p < 1e-300) & (c > 0)):
        return 0.0
    exp = p * n
    obs_bins, exp_bins = [], []
    acc_o = acc_e = 0.0
    for o, e in zip(c, exp, strict=True):
        acc_o += o
        acc_e += e
        if acc_e >= min_expected:
            obs_bins.append(acc_o)
            exp_bins.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 or acc_o > 0:
        if exp_bins:
            obs_bins[-1] += acc_o
            exp_bins[-1] += acc_e
        else:
            obs_bins.append(acc_o)
            exp_bins.append(acc_e)
    if len(exp_bins) < 2:
        return 1.0
    obs_arr, exp_arr = np.array(obs_bins), np.array(exp_bins)
    exp_arr *= obs_arr.sum() / exp_arr.sum()
    return float(sps.chisquare(obs_arr, exp_arr).pvalue)


def z_prob(p_hat: float, p_true: float, n: int) -> float:
    """z-score of an estimated probability against the true one."""
    se = math.sqrt(max(p_true * (1 - p_true), 1e-300) / n)
    return (p_hat - p_true) / se


def z_two(p1: float, n1: int, p2: float, n2: int) -> float:
    """z-score of the difference of two independent estimated probabilities."""
    p = (p1 * n1 + p2 * n2) / (n1 + n2)
    se = math.sqrt(max(p * (1 - p), 1e-300) * (1 / n1 + 1 / n2))
    return (p1 - p2) / se
