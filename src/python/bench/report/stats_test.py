from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.report.stats import (
    Interval,
    chi2_sf_1df,
    mcnemar,
    mcnemar_chi2,
    mcnemar_exact,
    paired_bootstrap_diff,
    pass_at_k,
    quantile,
    wilson_interval,
    z_for,
)

SETTINGS = settings(max_examples=200, deadline=None)


# --- Wilson ---------------------------------------------------------------------------------------------------


def test_z_for_95_percent_is_the_textbook_quantile():
    assert z_for(0.95) == pytest.approx(1.959963984540054, abs=1e-12)


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3.
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_matches_published_values(successes, n, low, high):
    interval = wilson_interval(successes, n)
    assert round(interval.low, 4) == low
    assert round(interval.high, 4) == high


def test_wilson_at_zero_successes_has_closed_form_upper_bound():
    z2 = z_for(0.95) ** 2
    assert wilson_interval(0, 10) == Interval(0.0, pytest.approx(z2 / (10 + z2), abs=1e-15))


def test_wilson_of_no_trials_is_the_whole_unit_interval():
    assert wilson_interval(0, 0) == Interval(0.0, 1.0)


def test_wilson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


@SETTINGS
@given(st.integers(min_value=1, max_value=500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_bounds_solve_the_score_equation(case):
    successes, n = case
    z = z_for(0.95)
    p = successes / n
    interval = wilson_interval(successes, n)
    for bound in (interval.low, interval.high):
        if 0.0 < bound < 1.0:
            # The Wilson bounds are where the score statistic equals z: |p̂ - π| = z·sqrt(π(1-π)/n).
            assert abs(p - bound) == pytest.approx(z * math.sqrt(bound * (1 - bound) / n), rel=1e-9, abs=1e-12)
    assert interval.low <= p <= interval.high


@SETTINGS
@given(st.integers(min_value=1, max_value=500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_is_symmetric_under_swapping_success_and_failure(case):
    successes, n = case
    straight, mirrored = wilson_interval(successes, n), wilson_interval(n - successes, n)
    assert straight.low == pytest.approx(1.0 - mirrored.high, abs=1e-12)
    assert straight.high == pytest.approx(1.0 - mirrored.low, abs=1e-12)


# --- McNemar --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (1, 5, Fraction(2 * (1 + 6), 2**6)),
        (0, 10, Fraction(2, 2**10)),
        (2, 8, Fraction(2 * (1 + 10 + 45), 2**10)),
        (4, 4, Fraction(1)),
        (0, 0, Fraction(1)),
        (0, 1, Fraction(1)),
    ],
)
def test_mcnemar_exact_by_hand(b, c, p):
    assert mcnemar_exact(b, c) == float(p)


@SETTINGS
@given(st.integers(0, 60), st.integers(0, 60))
def test_mcnemar_exact_is_symmetric_and_a_probability(b, c):
    assert mcnemar_exact(b, c) == mcnemar_exact(c, b)
    assert 0.0 < mcnemar_exact(b, c) <= 1.0


@pytest.mark.parametrize(
    ("statistic", "p"),
    # Tabulated chi-square(1) critical values.
    [(3.841458820694124, 0.05), (6.634896601021214, 0.01), (10.827566170662733, 0.001), (0.0, 1.0)],
)
def test_chi2_survival_matches_tables(statistic, p):
    assert chi2_sf_1df(statistic) == pytest.approx(p, rel=1e-9)


def test_mcnemar_chi2_is_continuity_corrected():
    assert mcnemar_chi2(1, 5) == 1.5  # (|1 - 5| - 1)² / 6
    assert mcnemar_chi2(3, 3) == 0.0
    assert mcnemar_chi2(0, 0) == 0.0


def test_mcnemar_bundles_both_variants():
    result = mcnemar(1, 5)
    assert (result.b, result.c, result.p_exact, result.chi2) == (1, 5, 0.21875, 1.5)
    assert result.p_chi2 == pytest.approx(math.erfc(math.sqrt(0.75)))


# --- pass@k ---------------------------------------------------------------------------------------------------


@SETTINGS
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_at_k_equals_the_combinatorial_formula(case):
    n, c, k = case
    exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert pass_at_k(n, c, k) == pytest.approx(float(exact), abs=1e-12)


def test_pass_at_1_is_the_success_fraction_and_edges_are_exact():
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3, abs=1e-15)
    assert pass_at_k(10, 0, 5) == 0.0
    assert pass_at_k(10, 10, 1) == 1.0
    assert pass_at_k(10, 7, 4) == 1.0  # fewer than k failures: every k-subset holds a success


def test_pass_at_k_is_stable_where_binomials_overflow_floats():
    # C(2000, 1000) overflows a float; the product form does not. One success in 2000, k = 1000: exactly 1/2.
    assert pass_at_k(2000, 1, 1000) == pytest.approx(0.5, abs=1e-12)


def test_pass_at_k_rejects_k_above_n():
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


# --- bootstrap ------------------------------------------------------------------------------------------------


def test_bootstrap_of_identical_arms_is_exactly_zero():
    result = paired_bootstrap_diff([True, False, True], [True, False, True], resamples=200)
    assert (result.diff, result.low, result.high) == (0.0, 0.0, 0.0)


def test_bootstrap_of_dominating_arm_is_exactly_one():
    result = paired_bootstrap_diff([True] * 5, [False] * 5, resamples=200)
    assert (result.diff, result.low, result.high) == (1.0, 1.0, 1.0)


def test_bootstrap_is_reproducible_with_its_seed():
    first = [i % 3 == 0 for i in range(40)]
    second = [i % 4 == 0 for i in range(40)]
    assert paired_bootstrap_diff(first, second, seed=7) == paired_bootstrap_diff(first, second, seed=7)


def test_bootstrap_interval_contains_the_estimate_and_narrows_with_more_pairs():
    small = paired_bootstrap_diff([True, True, False, True], [False, True, False, False], resamples=2000)
    large = paired_bootstrap_diff([True, True, False, True] * 25, [False, True, False, False] * 25, resamples=2000)
    assert small.diff == large.diff == 0.5
    assert small.low <= small.diff <= small.high
    assert large.low <= large.diff <= large.high
    assert large.high - large.low < small.high - small.low


def test_bootstrap_of_no_pairs_is_empty_not_an_error():
    assert paired_bootstrap_diff([], []).n == 0


def test_bootstrap_rejects_unpaired_input():
    with pytest.raises(ValueError, match="paired"):
        paired_bootstrap_diff([True], [True, False])


def test_quantile_interpolates_like_numpy_default():
    assert quantile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert quantile([1.0, 2.0, 3.0, 4.0], 0.0) == 1.0
    assert quantile([1.0, 2.0, 3.0, 4.0], 1.0) == 4.0
    assert quantile([10.0], 0.3) == 10.0
