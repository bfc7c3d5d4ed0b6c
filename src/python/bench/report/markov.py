"""An absorbing Markov chain of the repair loop, fitted by maximum likelihood from observed trajectories.

Each turn of a trajectory is reduced to one of four states (:data:`STATES`):

* ``solved`` — every target test passed (absorbing: the loop stops there);
* ``failing`` — the candidate compiles (collects) but a target test fails;
* ``broken`` — the candidate does not compile or collect;
* ``no-edit`` — the turn produced no applicable candidate (invalid edit, model timeout).

The chain's transition matrix is the row-normalised count of consecutive-turn transitions; its initial
distribution is the distribution of turn-1 states. The predicted convergence curve ``P(solved by turn t)`` is
``(π₁ Pᵗ⁻¹)[solved]``; it is compared with the observed fraction of trajectories solved by turn ``t``.
:func:`assumptions` states what such a fit takes for granted; the report prints it next to the fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

SOLVED, FAILING, BROKEN, NO_EDIT = "solved", "failing", "broken", "no-edit"
STATES: tuple[str, ...] = (SOLVED, FAILING, BROKEN, NO_EDIT)
TRANSIENT: tuple[str, ...] = (FAILING, BROKEN, NO_EDIT)


@dataclass(frozen=True)
class ChainFit:
    states: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]  # counts[i][j]: transitions states[i] -> states[j]
    matrix: tuple[tuple[float, ...], ...]  # row-stochastic maximum-likelihood estimate
    initial: tuple[float, ...]  # distribution of the first turn's state
    trajectories: int
    unobserved_rows: tuple[str, ...]  # transient states never left in the data (given a self-loop)

    def probability(self, source: str, target: str) -> float:
        return self.matrix[self.states.index(source)][self.states.index(target)]


@dataclass(frozen=True)
class LoopRates:
    correction: float | None  # P(next turn solved | current turn not solved)
    regression: float | None  # P(next turn broken | current turn failing but compiling)
    transitions_from_unsolved: int
    transitions_from_failing: int


def assumptions() -> str:
    """The modelling assumptions of :func:`fit_chain`, in plain words, for the report."""
    return "\n".join(
        (
            "- First-order: the next turn's state depends only on the current state, not on earlier turns "
            "(so the chain cannot represent a model that remembers or repeats its own history).",
            "- Time-homogeneous: the same transition probabilities apply at every turn.",
            "- Task-homogeneous: all tasks of a condition share one chain. A mix of easy and hard tasks has a "
            "per-turn solve probability that falls over turns (the easy ones leave early); one pooled chain "
            "has a constant one, so it tends to under-predict early and over-predict late convergence.",
            "- `solved` is absorbing (the loop stops when the tests pass); unsolved trajectories that ended "
            "before the budget are taken as unsolved at every later turn.",
            "- Maximum likelihood without smoothing: a transient state never left in the data keeps a "
            "self-loop; turns ended by an infrastructure error are excluded upstream.",
        )
    )


def fit_chain(sequences: Iterable[Sequence[str]]) -> ChainFit:
    """Fit the chain from per-trajectory state sequences (each a list of :data:`STATES`, one per turn)."""
    size = len(STATES)
    counts = [[0] * size for _ in range(size)]
    first = [0] * size
    trajectories = 0
    for sequence in sequences:
        if not sequence:
            continue
        indices = [_state_index(state) for state in sequence]
        trajectories += 1
        first[indices[0]] += 1
        for source, target in zip(indices, indices[1:]):
            counts[source][target] += 1
    matrix, unobserved = _normalise_rows(counts)
    initial = tuple(count / trajectories for count in first) if trajectories else (0.0,) * size
    return ChainFit(
        STATES,
        tuple(tuple(row) for row in counts),
        matrix,
        initial,
        trajectories,
        unobserved,
    )


def loop_rates(fit: ChainFit) -> LoopRates:
    """Per-turn correction rate (unsolved → solved) and regression rate (compiling → broken)."""
    solved = STATES.index(SOLVED)
    from_unsolved = sum(sum(fit.counts[STATES.index(state)]) for state in TRANSIENT)
    to_solved = sum(fit.counts[STATES.index(state)][solved] for state in TRANSIENT)
    failing_row = fit.counts[STATES.index(FAILING)]
    from_failing = sum(failing_row)
    return LoopRates(
        to_solved / from_unsolved if from_unsolved else None,
        failing_row[STATES.index(BROKEN)] / from_failing if from_failing else None,
        from_unsolved,
        from_failing,
    )


def predicted_curve(fit: ChainFit, horizon: int) -> tuple[float, ...]:
    """P(solved by turn t) for t = 1..horizon: the solved mass of π₁·Pᵗ⁻¹ (solved is absorbing)."""
    solved = STATES.index(SOLVED)
    distribution = list(fit.initial)
    curve = []
    for _ in range(horizon):
        curve.append(distribution[solved])
        distribution = [
            sum(distribution[i] * fit.matrix[i][j] for i in range(len(STATES))) for j in range(len(STATES))
        ]
    return tuple(curve)


def observed_curve(first_solved_turns: Sequence[int | None], horizon: int) -> tuple[float, ...]:
    """Fraction of trajectories whose first solved turn is ≤ t, for t = 1..horizon (None: never solved)."""
    n = len(first_solved_turns)
    if n == 0:
        return (0.0,) * horizon
    return tuple(
        sum(1 for turn in first_solved_turns if turn is not None and turn <= t) / n for t in range(1, horizon + 1)
    )


def max_abs_gap(first: Sequence[float], second: Sequence[float]) -> float:
    """The largest pointwise difference between two curves of equal length (a simple goodness of fit)."""
    return max((abs(a - b) for a, b in zip(first, second, strict=True)), default=0.0)


def _state_index(state: str) -> int:
    try:
        return STATES.index(state)
    except ValueError:
        raise ValueError(f"unknown loop state {state!r}; expected one of {STATES}") from None


def _normalise_rows(counts: list[list[int]]) -> tuple[tuple[tuple[float, ...], ...], tuple[str, ...]]:
    rows: list[tuple[float, ...]] = []
    unobserved: list[str] = []
    for i, row in enumerate(counts):
        total = sum(row)
        if STATES[i] == SOLVED or total == 0:
            # Solved is absorbing by construction; an unobserved transient row stays put (see assumptions()).
            if STATES[i] != SOLVED:
                unobserved.append(STATES[i])
            rows.append(tuple(1.0 if j == i else 0.0 for j in range(len(row))))
        else:
            rows.append(tuple(count / total for count in row))
    return tuple(rows), tuple(unobserved)
