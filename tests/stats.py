"""Statistical helpers for tests: chi-square against an exact PMF, z-scores.

Tolerances are stated here once: a chi-square test fails when p < 1e-4 (about 1 false alarm
in 10,000 runs for a correct kernel, and seeds are fixed so a pass is reproducible); z-score
checks use |z| < 5.

``chisquare_pmf`` is a test that can fail: the PMF must sum to 1 (no rescaling to the observed
total), a test without power (fewer than two bins with expected count >= 5 and no rare outcome
to check) is an error rather than a pass, and every outcome rarer than ``RARE`` is checked on
its own with an exact binomial test, because merging it into a neighbouring bin hides a rare
outcome produced 1,000 times too often.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps

P_MIN = 1e-4
Z_MAX = 5.0
RARE = 1e-3
PMF_SUM_TOL = 1e-9


class NoPowerError(AssertionError):
    """The comparison cannot fail: too few trials for the PMF's spread."""


def binomial_tail(k: int, n: int, p: float) -> float:
    """Exact two-sided binomial p-value of ``k`` successes in ``n`` trials at probability ``p``."""
    if p <= 0.0:
        return 1.0 if k == 0 else 0.0
    if p >= 1.0:
        return 1.0 if k == n else 0.0
    return float(sps.binomtest(int(k), int(n), float(p)).pvalue)


def chisquare_pmf(counts: np.ndarray, pmf: np.ndarray, min_expected: float = 5.0) -> float:
    """p-value of observed ``counts`` against an exact ``pmf``.

    Bins are merged to expected count >= ``min_expected`` for a chi-square test; each outcome
    with probability below ``RARE`` is also tested alone (exact binomial, Bonferroni-corrected
    over the rare outcomes). The smaller of the two p-values is returned.

    Raises
    ------
    AssertionError
        When ``pmf`` does not sum to 1 (within 1e-9), and (``NoPowerError``) when the
        comparison has no power: two or more outcomes possible but fewer than two merged bins
        and no rare outcome to test.

    Observed mass outside the PMF's support fails immediately (p = 0). A one-point PMF is an
    exact check: every count must fall on that point.
    """
    counts = np.asarray(counts, dtype=float)
    pmf = np.asarray(pmf, dtype=float)
    total = float(pmf.sum())
    assert abs(total - 1.0) <= PMF_SUM_TOL, f"PMF sums to {total!r}, not 1"
    assert np.all(pmf >= 0.0), "PMF has a negative entry"
    n = counts.sum()
    assert n > 0, "no counts"
    size = max(len(counts), len(pmf))
    c = np.zeros(size)
    c[: len(counts)] = counts
    p = np.zeros(size)
    p[: len(pmf)] = pmf
    if np.any((p < 1e-300) & (c > 0)):
        return 0.0
    support = p >= 1e-300
    if support.sum() == 1:
        return 1.0  # every count is on the single possible outcome (checked above)
    rare = support & (p < RARE)
    p_rare = 1.0
    if rare.any():
        tails = [binomial_tail(int(c[i]), int(n), p[i]) for i in np.flatnonzero(rare)]
        p_rare = min(1.0, min(tails) * len(tails))
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
        if not rare.any():
            raise NoPowerError(
                f"chi-square without power: {int(n)} trials leave {len(exp_bins)} bin(s) with "
                f"expected count >= {min_expected}"
            )
        return p_rare
    obs_arr, exp_arr = np.array(obs_bins), np.array(exp_bins)
    # exp sums to n up to rounding (the PMF sums to 1 within 1e-9): scipy wants equal sums.
    exp_arr *= obs_arr.sum() / exp_arr.sum()
    return min(float(sps.chisquare(obs_arr, exp_arr).pvalue), p_rare)


def z_prob(p_hat: float, p_true: float, n: int) -> float:
    """z-score of an estimated probability against the true one."""
    se = math.sqrt(max(p_true * (1 - p_true), 1e-300) / n)
    return (p_hat - p_true) / se


def z_two(p1: float, n1: int, p2: float, n2: int) -> float:
    """z-score of the difference of two independent estimated probabilities."""
    p = (p1 * n1 + p2 * n2) / (n1 + n2)
    se = math.sqrt(max(p * (1 - p), 1e-300) * (1 / n1 + 1 / n2))
    return (p1 - p2) / se
