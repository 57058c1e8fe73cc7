"""Assault-phase kernel runs against exact PMFs, with the power to see a 0.5 pp error.

Every comparison of the kernel with an exact answer in the assault-phase tests goes through
:func:`check_exact`: the run must agree with the exact PMF (``stats.chisquare_pmf``, p >
``P_MIN``) and the same run with 0.5 percentage points of its histogram moved from the most
likely outcome to its more likely neighbour (``switches.planted_shift``, the hardest such error
to see) must disagree (p < ``P_MIN``). The second half is the power check, made on every run:
a comparison that passes it would fail a kernel 0.5 pp wrong.

:func:`trials_for` picks the kernel trials from the exact PMF itself (expected counts), with a
margin so that the run's own noise does not eat the power: the planted error must give
p < ``P_MIN / MARGIN`` on the expected counts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

import numpy as np
from stats import P_MIN, chisquare_pmf
from switches import SHIFT_PP, assert_exact_power, shifted_on_support

from oddslab import engine

#: the planted error must be this much clearer than P_MIN on expected counts: more than two
#: standard errors of margin against the run's own noise for a two-bin statistic (z 6.1
#: instead of 3.9)
MARGIN = 100_000
#: kernel trials are a multiple of this
STEP = 50_000
CAP = 4_000_000

PMF = Sequence[float] | Sequence[Fraction] | np.ndarray


def _floats(pmf: PMF) -> np.ndarray:
    exact = np.array([float(p) for p in pmf])
    assert abs(exact.sum() - 1) < 1e-12, f"the exact answer sums to {exact.sum()!r}"
    return exact


def trials_for(pmf: PMF, pp: float = SHIFT_PP) -> int:
    """Kernel trials (a multiple of ``STEP``) at which a ``pp`` error in a statistic with this
    exact PMF fails the chi-square with margin ``MARGIN`` on the expected counts."""
    exact = _floats(pmf)
    if np.count_nonzero(exact) == 1:
        return STEP  # one possible outcome: every trial is checked exactly
    for n in range(STEP, CAP + 1, STEP):
        expected = np.round(exact * n).astype(np.int64)
        if chisquare_pmf(*shifted_on_support(expected, exact, pp)) < P_MIN / MARGIN:
            return n
    raise AssertionError(f"no trial count up to {CAP:,} sees a {pp:g} error in {exact}")


def assert_exact(
    counts: np.ndarray, pmf: PMF, what: str, pp: float = SHIFT_PP, power: bool = True
) -> None:
    """``counts`` agree with the exact ``pmf``, and (``power``) would not with ``pp`` of them
    moved."""
    exact = _floats(pmf)
    counts = np.asarray(counts, dtype=np.int64)
    p = chisquare_pmf(counts, exact)
    assert p > P_MIN, f"{what}: p = {p:.2e}\nkernel {counts}\nexact  {exact.round(5)}"
    if not power:
        return
    assert_exact_power(counts, exact, what, pp=pp)


def kernel_counts(sc, trials: int, seed: int) -> Mapping[str, np.ndarray]:
    """The kernel's histograms of ``sc``."""
    return engine.simulate(sc, trials=trials, seed=seed).counts


def check_exact(
    sc,
    pmfs: Mapping[str, PMF],
    seed: int,
    trials: int | None = None,
    run: Callable[..., Mapping[str, np.ndarray]] = kernel_counts,
    power: bool = True,
) -> None:
    """Run ``sc`` once (``trials``, default: enough for every statistic in ``pmfs``) with
    ``run(sc, trials, seed)`` (default: the kernel) and :func:`assert_exact` each statistic
    against its exact PMF (``power``: and the 0.5 pp power of the comparison)."""
    n = trials or max(trials_for(pmf) for pmf in pmfs.values())
    counts = run(sc, n, seed)
    for stat, pmf in pmfs.items():
        assert_exact(counts[stat], pmf, f"{stat} ({n:,} trials, seed {seed})", power=power)


def bernoulli(p: float | Fraction) -> list:
    """The PMF of a flag that is 1 with probability ``p``."""
    return [1 - p, p]
