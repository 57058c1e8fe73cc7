"""Statistical helpers for tests: chi-square against an exact PMF, z-scores.

Tolerances are stated here once: a chi-square test fails when p < 1e-4 (about 1 false alarm
in 10,000 runs for a correct kernel, and seeds are fixed so a pass is reproducible); z-score
checks use |z| < 5.

``chisquare_pmf`` is a test that can fail: the PMF must sum to 1 (no rescaling to the observed
total), a test without power (fewer than two bins with expected count >= 5 and no rare outcome
to check) is an error rather than a pass, and every outcome rarer than ``RARE`` is checked on
its own with an exact binomial test, because merging it into a neighbouring bin hides a rare
outcome produced 1,000 times too often.

``assert_prob`` (and ``assert_z`` for other estimates) is the single-probability test of a
hand-worked case: ``|z| < Z_MAX``, and the same test with the expected value moved by 0.5
percentage points (``SHIFT``) must fail at the observed estimate, so a test that has too few
trials to see a 0.5 pp error fails (saying how many it needs) instead of passing quietly.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable

import numpy as np
from scipy import stats as sps

P_MIN = 1e-4
Z_MAX = 5.0
RARE = 1e-3
PMF_SUM_TOL = 1e-9
#: the error every comparison must see: 0.5 percentage points (``switches.SHIFT_PP``)
SHIFT = 0.005

#: set (to "1") in this process's environment when the running test made a comparison that a
#: 0.5 pp error fails: by ``assert_prob``/``assert_z`` here and ``switches.assert_power``/
#: ``assert_exact_power``; reset and read around every ``rule_switch`` test by
#: tests/conftest.py. An environment variable, not a module global, so ``stats`` and
#: ``tests.stats`` (both import paths occur) agree.
POWER_FLAG = "ODDSLAB_TEST_POWER_CHECKED"


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


def note_power() -> None:
    """Record that the running test checked its comparison's power (0.5 pp would fail)."""
    os.environ[POWER_FLAG] = "1"


def assert_z(
    estimate: float,
    expected: float,
    n: int,
    sd: float | Callable[[float], float],
    *,
    shift: float = SHIFT,
    z_max: float = Z_MAX,
    lo: float = -math.inf,
    hi: float = math.inf,
    what: str = "",
) -> None:
    """A ``k * SE`` test of an estimate from ``n`` trials against a worked value, with its power.

    Asserts ``|estimate - expected| < z_max * SE`` (``SE = sd / sqrt(n)``), and that the same
    test against ``expected - shift`` and against ``expected + shift`` would fail at this very
    ``estimate``: the test can see an error of ``shift``. A moved value is clipped to
    ``[lo, hi]`` (the values the estimate can take); a direction the clipping leaves at
    ``expected`` (a worked value at a bound) is not checked, the other one is.

    ``sd`` is the per-trial standard deviation, or a function of the expected value giving it
    (a probability's SE depends on the value tested, see :func:`assert_prob`).

    The shift, the rule: a probability is moved by 0.5 percentage points (``SHIFT``). A mean
    of an integer statistic is moved by 0.005 of its unit by default, the change in the mean
    when 0.5 pp of the probability moves to a neighbouring value (the error
    ``switches.planted_shift`` plants in distributions); pass the sample's standard deviation
    as ``sd``. A test that means another size (a mean in other units, a wide statistic for
    which a whole-distribution comparison is not at hand) states its ``shift`` and says why.

    Raises
    ------
    AssertionError
        The estimate disagrees with ``expected``; ``NoPowerError`` when a moved value would
        pass too, with the number of trials the test needs. On success the running test is
        marked as having checked its power (:func:`note_power`, read for ``rule_switch``
        tests by tests/conftest.py).
    """
    sd_at = sd if callable(sd) else (lambda _m: sd)
    where = f"{what}: " if what else ""

    def z_at(m: float) -> float:
        return (estimate - m) / math.sqrt(max(sd_at(m) ** 2, 1e-300) / n)

    z = z_at(expected)
    assert abs(z) < z_max, (
        f"{where}{estimate:.6g} in {n:,} trials against the worked {expected:.6g}: "
        f"z = {z:+.2f}, |z| must be < {z_max:g}"
    )
    moved = [m for m in (max(expected - shift, lo), min(expected + shift, hi)) if m != expected]
    assert moved, f"{where}nothing to move {expected!r} to within [{lo}, {hi}]"
    weak = [m for m in moved if abs(z_at(m)) < z_max]
    if weak:
        # the moved test fails once shift >= (z_max * sd(m) + |z| sd(expected)) / sqrt(n)
        sigma = max(sd_at(m) for m in (expected, *moved))
        need = math.ceil(((z_max + abs(z)) * sigma / shift) ** 2)
        room = math.ceil(((z_max + 2) * sigma / shift) ** 2)
        raise NoPowerError(
            f"{where}no power to see an error of {shift:g}: against {weak[0]:.6g} (the worked "
            f"{expected:.6g} moved) the test passes too (z = {z_at(weak[0]):+.2f}); "
            f"{n:,} trials are too few: this run needs about {need:,}, and {room:,} leave "
            f"room for |z| up to 2"
        )
    note_power()


def assert_prob(
    p_hat: float,
    p: float,
    n: int,
    *,
    shift: float = SHIFT,
    z_max: float = Z_MAX,
    what: str = "",
) -> None:
    """``|z_prob(p_hat, p, n)| < z_max``, and a worked ``p`` 0.5 pp off (``shift``, clipped to
    [0, 1]) would fail the same test: :func:`assert_z` with the binomial standard deviation
    ``sqrt(q (1 - q))`` at each value ``q`` tested."""
    assert 0.0 <= p <= 1.0, f"{what}: {p!r} is not a probability"
    assert_z(
        p_hat,
        p,
        n,
        lambda q: math.sqrt(q * (1.0 - q)),
        shift=shift,
        z_max=z_max,
        lo=0.0,
        hi=1.0,
        what=what,
    )
