"""Comparisons with an exact answer that a 0.5 percentage-point error fails (issue 27).

The generic ruleset's exact engine (and the hand-worked PMFs of its tests) give most of its
scenarios' statistics exactly, so the kernel is compared with an exact PMF rather than with a
second simulation. :func:`assert_exact` makes each such comparison one that can fail on a
small error and checks that on every run: the kernel's histogram must agree with the PMF
(``stats.chisquare_pmf``, p > ``P_MIN``) **and** the same histogram with 0.5 pp of its trials
moved from the most likely outcome to its more likely neighbour (the error
``tests/test_naive_power.py`` plants with ``switches.planted_shift``) must be rejected
(p < ``P_MIN``). Neighbour means the nearest possible outcome (PMF > 0) either side: a
statistic with only even values (damage 2 a wound) gets its error moved between two possible
values, not onto an impossible one that any test would see. A run with too few trials for the
PMF's spread fails with the statistic named, rather than passing a comparison that could not
see the error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
from stats import P_MIN, chisquare_pmf
from switches import assert_exact_power


def assert_exact(
    counts: Mapping[str, np.ndarray],
    pmfs: Mapping[str, np.ndarray],
    what: str,
    names: Iterable[str] | None = None,
) -> None:
    """Each statistic in ``names`` (default: every one in ``pmfs``) of a kernel run agrees
    with its exact PMF, and a 0.5 pp error in it would fail that comparison.

    Parameters
    ----------
    counts
        ``{statistic: int counts by value}`` of a kernel run (``Outcome.counts``).
    pmfs
        ``{statistic: float PMF by value}`` summing to 1 (the exact engine's, or hand-worked).
    what
        The case's name, for the failure message.
    names
        The statistics to compare (all of ``pmfs`` when None).
    """
    for name in pmfs if names is None else names:
        c = np.asarray(counts[name], dtype=np.int64)
        p = chisquare_pmf(c, pmfs[name])
        assert p > P_MIN, f"{what}: {name} against the exact PMF, chi-square p = {p:.2e}"
        assert_exact_power(c, pmfs[name], f"{what}: {name}")


def assert_table(counts: np.ndarray, table: np.ndarray, what: str) -> None:
    """:func:`assert_exact` for a joint table (counts and exact probabilities of one shape),
    flattened in C order: the planted error moves 0.5 pp between neighbouring cells."""
    assert counts.shape == table.shape, (what, counts.shape, table.shape)
    assert_exact({what: counts.ravel()}, {what: table.ravel()}, what)
