"""The test helpers in tests/stats.py can fail: rare outcomes, PMFs off 1, tests without power,
single probabilities that could not see 0.5 pp."""

from __future__ import annotations

import os

import numpy as np
import pytest
from stats import (
    P_MIN,
    POWER_FLAG,
    NoPowerError,
    assert_prob,
    assert_z,
    binomial_tail,
    chisquare_pmf,
)


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


def test_assert_prob_passes_with_power_and_marks_it(monkeypatch):
    monkeypatch.delenv(POWER_FLAG, raising=False)
    assert_prob(0.4702, 0.47, 600_000)  # 0.5 pp is 7.8 standard errors here
    assert os.environ[POWER_FLAG] == "1"


def test_assert_prob_without_power_says_how_many_trials():
    # 200,000 trials at p = 0.47: 0.5 pp is 4.5 standard errors, a shifted worked value passes
    with pytest.raises(NoPowerError, match=r"200,000 trials are too few: this run needs about"):
        assert_prob(0.47, 0.47, 200_000)


def test_assert_prob_fails_a_wrong_value_first():
    with pytest.raises(AssertionError, match=r"z = \+8\.96") as e:
        assert_prob(0.48, 0.47, 200_000)
    assert not isinstance(e.value, NoPowerError)


def test_assert_prob_at_a_bound_moves_the_possible_way():
    assert_prob(1.0, 1.0, 10_000)  # only 0.995 is tested, and fails: 7 standard errors
    with pytest.raises(NoPowerError):
        assert_prob(1.0, 1.0, 1_000)  # 0.995 is 2.2 standard errors away: passes
    assert_prob(0.0, 0.0, 10_000)


def test_assert_z_for_a_mean_moves_it_by_its_shift():
    assert_z(2.0003, 2.0, 1_000_000, 0.5)  # SE 0.0005: 0.005 is 10 SE
    with pytest.raises(NoPowerError):
        assert_z(2.0003, 2.0, 100_000, 0.5)  # SE 0.0016: 0.005 is 3.2 SE
    assert_z(2.001, 2.0, 100_000, 0.5, shift=0.05)  # a shift the test states
