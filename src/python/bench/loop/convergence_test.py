from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.loop.convergence import (
    NO_CANDIDATE,
    Classification,
    Outcome,
    StopPolicy,
    Trajectory,
    Turn,
    classify,
    classify_turns,
    should_stop,
)

SETTINGS = settings(max_examples=400, deadline=None)
RANK = {Outcome.EXHAUSTED: 0, Outcome.OSCILLATING: 1, Outcome.STALLED: 2, Outcome.CONVERGED: 3}


def make(*steps: tuple[str, str] | str, budget: int = 5) -> Trajectory:
    """Steps are (digest, signature) pairs for failing turns, or "SOLVED"."""
    turns = []
    for index, step in enumerate(steps, start=1):
        if step == "SOLVED":
            turns.append(Turn(index, f"solved-{index}", "", solved=True, compiles=True))
        else:
            digest, signature = step
            turns.append(Turn(index, digest, signature, solved=False, compiles=True))
    return Trajectory("t1", "full", tuple(turns), budget)


# --- hand-written examples, one per class ---------------------------------------------------------------------


def test_converged_reports_first_solved_turn():
    result = classify(make(("a", "s1"), ("a", "s1"), "SOLVED", "SOLVED"))
    assert result == Classification(Outcome.CONVERGED, 3, "turn 3 solved the task")


def test_stalled_on_byte_identical_candidate_anywhere_not_only_consecutive():
    result = classify(make(("a", "s1"), ("b", "s2"), ("a", "s1")))
    assert result.outcome is Outcome.STALLED
    assert result.first_solved_turn is None
    assert result.reason == "turn 3 re-emitted the failing candidate of turn 1 (a)"


def test_stalled_takes_precedence_over_oscillating():
    # Turn 2 repeats turn 1's signature with new code (oscillation) but turn 3 repeats turn 1's code (stall).
    assert classify(make(("a", "s1"), ("b", "s1"), ("a", "s1"))).outcome is Outcome.STALLED


def test_oscillating_cycle_through_other_states():
    result = classify(make(("a", "s1"), ("b", "s2"), ("c", "s1")))
    assert result.outcome is Outcome.OSCILLATING
    assert result.reason == "failing state s1 of turn 1 recurred at turn 3 with different code (cycle through other states)"


def test_oscillating_plateau_is_named_as_such():
    result = classify(make(("a", "s1"), ("b", "s1")))
    assert result.outcome is Outcome.OSCILLATING
    assert result.reason.endswith("(plateau)")


def test_exhausted_when_everything_is_new():
    result = classify(make(("a", "s1"), ("b", "s2"), ("c", "s3"), budget=3))
    assert result == Classification(Outcome.EXHAUSTED, None, "3 of 3 turns failed, no candidate or failing state repeated")


def test_empty_trajectory_is_exhausted():
    assert classify(make(budget=3)).outcome is Outcome.EXHAUSTED


def test_turns_without_candidate_never_count_as_a_stall():
    # Two invalid edits in a row leave the same code in place; the model emitted nothing, so no stall.
    result = classify(make(("a", "s1"), (NO_CANDIDATE, "s1"), (NO_CANDIDATE, "s1")))
    assert result.outcome is Outcome.EXHAUSTED


# --- validation -----------------------------------------------------------------------------------------------


def test_trajectory_rejects_more_turns_than_budget():
    with pytest.raises(ValueError, match="exceed the budget"):
        make(("a", "s"), ("b", "t"), budget=1)


def test_trajectory_rejects_indices_that_are_not_one_to_n():
    with pytest.raises(ValueError, match="indices are 1..n"):
        Trajectory("t", "full", (Turn(2, "a", "s", False, True),), 3)


def test_trajectory_rejects_zero_budget():
    with pytest.raises(ValueError, match="budget"):
        Trajectory("t", "full", (), 0)


# --- should_stop ----------------------------------------------------------------------------------------------


def test_should_stop_default_policy_stops_only_on_solved_or_budget():
    stalled = make(("a", "s1"), ("a", "s1")).turns
    assert should_stop(stalled) is False
    assert should_stop(stalled, budget=2) is True
    assert should_stop(make(("a", "s1"), "SOLVED").turns) is True
    assert should_stop(()) is False


def test_should_stop_on_repeat_policy_stops_at_first_stall_or_oscillation():
    assert should_stop(make(("a", "s1"), ("a", "s1")).turns, policy=StopPolicy.ON_REPEAT) is True
    assert should_stop(make(("a", "s1"), ("b", "s1")).turns, policy=StopPolicy.ON_REPEAT) is True
    assert should_stop(make(("a", "s1"), ("b", "s2")).turns, policy=StopPolicy.ON_REPEAT) is False


# --- properties -----------------------------------------------------------------------------------------------


@st.composite
def trajectories(draw) -> Trajectory:
    budget = draw(st.integers(min_value=1, max_value=8))
    length = draw(st.integers(min_value=0, max_value=budget))
    digests = st.sampled_from([NO_CANDIDATE, "d1", "d2", "d3", "d4", "d5"])
    signatures = st.sampled_from(["s1", "s2", "s3", "s4"])
    turns = []
    for index in range(1, length + 1):
        solved = draw(st.integers(min_value=0, max_value=9)) == 0
        turns.append(Turn(index, draw(digests), draw(signatures), solved, draw(st.booleans())))
    return Trajectory("task", "full", tuple(turns), budget)


def reference_outcome(trajectory: Trajectory) -> Outcome:
    """The docs/ARCHITECTURE.md §1 definitions read literally, over all pairs, independent of the implementation."""
    turns = trajectory.turns
    if any(t.solved for t in turns):
        return Outcome.CONVERGED
    emitted = [t for t in turns if t.candidate_digest != NO_CANDIDATE]
    pairs = [(a, b) for i, a in enumerate(emitted) for b in emitted[i + 1 :]]
    if any(a.candidate_digest == b.candidate_digest for a, b in pairs):
        return Outcome.STALLED
    if any(a.signature == b.signature and a.candidate_digest != b.candidate_digest for a, b in pairs):
        return Outcome.OSCILLATING
    return Outcome.EXHAUSTED


@SETTINGS
@given(trajectories())
def test_classification_is_total_and_matches_the_literal_definition(trajectory):
    result = classify(trajectory)
    assert isinstance(result.outcome, Outcome)
    assert result.outcome is reference_outcome(trajectory)
    assert result.reason


@SETTINGS
@given(trajectories())
def test_converged_iff_some_turn_solved_with_correct_first_turn(trajectory):
    result = classify(trajectory)
    solved = [t.index for t in trajectory.turns if t.solved]
    assert (result.outcome is Outcome.CONVERGED) == bool(solved)
    assert result.first_solved_turn == (min(solved) if solved else None)


@SETTINGS
@given(trajectories())
def test_stalled_implies_a_repeated_emitted_digest(trajectory):
    if classify(trajectory).outcome is Outcome.STALLED:
        digests = [t.candidate_digest for t in trajectory.turns if t.emitted]
        assert len(digests) > len(set(digests))


@SETTINGS
@given(trajectories())
def test_oscillating_implies_distinct_digests_and_a_repeated_signature(trajectory):
    if classify(trajectory).outcome is Outcome.OSCILLATING:
        emitted = [t for t in trajectory.turns if t.emitted]
        assert len({t.candidate_digest for t in emitted}) == len(emitted)
        assert len({t.signature for t in emitted}) < len(emitted)


@SETTINGS
@given(trajectories(), st.permutations(["d1", "d2", "d3", "d4", "d5"]), st.permutations(["s1", "s2", "s3", "s4"]))
def test_classification_is_invariant_under_injective_relabelling(trajectory, new_digests, new_signatures):
    digest_map = dict(zip(["d1", "d2", "d3", "d4", "d5"], (f"x{d}" for d in new_digests)))
    digest_map[NO_CANDIDATE] = NO_CANDIDATE
    signature_map = dict(zip(["s1", "s2", "s3", "s4"], (f"y{s}" for s in new_signatures)))
    relabelled = Trajectory(
        trajectory.task_id,
        trajectory.condition,
        tuple(
            Turn(t.index, digest_map[t.candidate_digest], signature_map[t.signature], t.solved, t.compiles)
            for t in trajectory.turns
        ),
        trajectory.budget,
    )
    before, after = classify(trajectory), classify(relabelled)
    assert (before.outcome, before.first_solved_turn) == (after.outcome, after.first_solved_turn)


@SETTINGS
@given(trajectories())
def test_class_only_moves_up_as_the_prefix_grows_and_converged_is_absorbing(trajectory):
    previous = None
    for length in range(len(trajectory.turns) + 1):
        result = classify_turns(trajectory.turns[:length])
        if previous is not None:
            assert RANK[result.outcome] >= RANK[previous.outcome]
            if previous.outcome is Outcome.CONVERGED:
                assert result.first_solved_turn == previous.first_solved_turn
        previous = result


@SETTINGS
@given(trajectories())
def test_turns_without_candidate_do_not_change_a_failing_class(trajectory):
    kept = [t for t in trajectory.turns if t.emitted or t.solved]
    reindexed = tuple(Turn(i, t.candidate_digest, t.signature, t.solved, t.compiles) for i, t in enumerate(kept, 1))
    assert classify_turns(reindexed).outcome is classify(trajectory).outcome


@SETTINGS
@given(trajectories())
def test_classify_does_not_depend_on_compiles_flag(trajectory):
    flipped = tuple(Turn(t.index, t.candidate_digest, t.signature, t.solved, not t.compiles) for t in trajectory.turns)
    assert classify_turns(flipped, budget=trajectory.budget) == classify(trajectory)


@SETTINGS
@given(trajectories())
def test_should_stop_by_default_only_when_solved_or_budget_spent(trajectory):
    for length in range(len(trajectory.turns) + 1):
        prefix = trajectory.turns[:length]
        expected = any(t.solved for t in prefix) or (length >= trajectory.budget and length > 0)
        assert should_stop(prefix, budget=trajectory.budget) is expected
