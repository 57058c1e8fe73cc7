"""The test helpers in tests/stats.py can fail: rare outcomes, PMFs off 1, tests without power."""

from __future__ import annotations

import numpy as np
import pytest
from stats import P_MIN, NoPowerError, binomial_tail, chisquare_pmf


def test_rare_outcome_produced_1000_times_too_often_fails():
    # The case: merging left one bin and the old helper returned 1.0.
    assert chisquare_pmf([999_000, 1_000], [1 - 1e-6, 1e-6]) < P_MIN


def test_rare_outcome_at_its_rate_passes():
    assert chisquare_pmf([999_999, 1], [1 - 1e-6, 1e-6]) > P_MIN
    assert chisquare_pmf([1_000_000, 0], [1 - 1e-6, 1e-6]) > P_MIN


def test_rare_tail_bin_checked_on_its_own():
    # 2e-4 of the mass where 1e-5 belongs: a chi-square merges the tail into its neighbour
    # and barely moves; the binomial tail test fails it.
    pmf = np.array([0.5, 0.5 - 1e-5, 1e-5])
    counts = np.array([500_000, 499_800, 200])
    assert chisquare_pmf(counts, pmf) < P_MIN


def test_pmf_not_summing_to_one_fails():
    with pytest.raises(AssertionError, match="sums to"):
        chisquare_pmf([500, 500], [0.5, 0.49])


def test_no_power_is_an_error_not_a_pass():
    with pytest.raises(NoPowerError):
        chisquare_pmf([3, 2], [0.6, 0.4])


def test_single_point_pmf_is_exact():
    assert chisquare_pmf([10, 0], [1.0]) == 1.0
    assert chisquare_pmf([10, 1], [1.0]) == 0.0


def test_mass_outside_support_fails():
    assert chisquare_pmf([10, 10, 1], [0.5, 0.5, 0.0]) == 0.0


def test_fair_die_passes_and_loaded_die_fails():
    rng = np.random.default_rng(1)
    fair = np.bincount(rng.integers(0, 6, 100_000), minlength=6)
    assert chisquare_pmf(fair, np.full(6, 1 / 6)) > P_MIN
    loaded = fair.copy()
    loaded[5] += 2_000
    loaded[0] -= 2_000
    assert chisquare_pmf(loaded, np.full(6, 1 / 6)) < P_MIN


def test_binomial_tail_edges():
    assert binomial_tail(0, 10, 0.0) == 1.0
    assert binomial_tail(1, 10, 0.0) == 0.0
    assert binomial_tail(10, 10, 1.0) == 1.0
    assert binomial_tail(5, 10, 0.5) == pytest.approx(1.0)
