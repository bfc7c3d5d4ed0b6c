from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.report.markov import (
    BROKEN,
    FAILING,
    NO_EDIT,
    SOLVED,
    STATES,
    assumptions,
    fit_chain,
    loop_rates,
    max_abs_gap,
    observed_curve,
    predicted_curve,
)

SETTINGS = settings(max_examples=200, deadline=None)


def test_fit_counts_transitions_and_normalises_rows():
    fit = fit_chain([[FAILING, SOLVED], [FAILING, FAILING, BROKEN], [BROKEN, FAILING, SOLVED]])
    assert fit.trajectories == 3
    assert fit.initial == (0.0, 2 / 3, 1 / 3, 0.0)
    assert fit.counts[STATES.index(FAILING)] == (2, 1, 1, 0)
    assert fit.probability(FAILING, SOLVED) == 0.5
    assert fit.probability(FAILING, BROKEN) == 0.25
    assert fit.probability(BROKEN, FAILING) == 1.0
    assert fit.probability(SOLVED, SOLVED) == 1.0
    assert fit.unobserved_rows == (NO_EDIT,)
    assert fit.probability(NO_EDIT, NO_EDIT) == 1.0


def test_loop_rates_are_correction_and_regression():
    fit = fit_chain([[FAILING, SOLVED], [FAILING, FAILING, BROKEN], [BROKEN, FAILING, SOLVED]])
    rates = loop_rates(fit)
    assert rates.correction == 2 / 5  # 2 of the 5 transitions out of unsolved states reach solved
    assert rates.regression == 1 / 4  # 1 of the 4 transitions out of `failing` breaks compilation
    assert (rates.transitions_from_unsolved, rates.transitions_from_failing) == (5, 4)


def test_loop_rates_without_transitions_are_unknown():
    rates = loop_rates(fit_chain([[SOLVED], [SOLVED]]))
    assert rates.correction is None and rates.regression is None


def test_predicted_curve_of_geometric_chain_is_closed_form():
    # Every trajectory starts failing; from failing, half the turns solve. P(solved by t) = 1 - 0.5^(t-1).
    fit = fit_chain([[FAILING, SOLVED], [FAILING, FAILING]])
    curve = predicted_curve(fit, 5)
    assert curve == pytest.approx([1 - 0.5 ** (t - 1) for t in range(1, 6)], abs=1e-15)


def test_observed_curve_counts_first_solved_turns():
    assert observed_curve([1, 3, None, 2], 4) == (0.25, 0.5, 0.75, 0.75)
    assert observed_curve([], 2) == (0.0, 0.0)


def test_unknown_state_is_rejected():
    with pytest.raises(ValueError, match="unknown loop state"):
        fit_chain([["failng"]])


def test_assumptions_name_the_three_homogeneity_assumptions():
    text = assumptions()
    for word in ("First-order", "Time-homogeneous", "Task-homogeneous", "absorbing"):
        assert word in text


def test_max_abs_gap():
    assert max_abs_gap([0.1, 0.5], [0.2, 0.2]) == pytest.approx(0.3)
    assert max_abs_gap([], []) == 0.0


def test_fit_recovers_a_simulated_chain():
    # Simulate a known chain; the MLE converges to it and the predicted curve to the observed one.
    truth = {FAILING: [0.3, 0.5, 0.1, 0.1], BROKEN: [0.1, 0.6, 0.3, 0.0], NO_EDIT: [0.0, 0.5, 0.0, 0.5]}
    rng = random.Random(3)
    sequences, first_solved = [], []
    for _ in range(4000):
        state = rng.choices(STATES, weights=[0.1, 0.6, 0.2, 0.1])[0]
        sequence = [state]
        while state != SOLVED and len(sequence) < 6:
            state = rng.choices(STATES, weights=truth[state])[0]
            sequence.append(state)
        sequences.append(sequence)
        first_solved.append(len(sequence) if sequence[-1] == SOLVED else None)
    fit = fit_chain(sequences)
    for state, row in truth.items():
        for target, p in zip(STATES, row):
            assert fit.probability(state, target) == pytest.approx(p, abs=0.03)
    assert max_abs_gap(predicted_curve(fit, 6), observed_curve(first_solved, 6)) < 0.03


@st.composite
def state_sequences(draw):
    length = draw(st.integers(1, 6))
    body = draw(st.lists(st.sampled_from([FAILING, BROKEN, NO_EDIT]), min_size=length - 1, max_size=length - 1))
    return body + [draw(st.sampled_from(list(STATES)))]


@SETTINGS
@given(st.lists(state_sequences(), min_size=1, max_size=20))
def test_fitted_matrix_is_row_stochastic_and_curve_is_monotone(sequences):
    fit = fit_chain(sequences)
    for row in fit.matrix:
        assert sum(row) == pytest.approx(1.0)
        assert all(0.0 <= p <= 1.0 for p in row)
    curve = predicted_curve(fit, 8)
    assert all(later >= earlier - 1e-12 for earlier, later in zip(curve, curve[1:]))
    assert 0.0 <= curve[-1] <= 1.0 + 1e-12
