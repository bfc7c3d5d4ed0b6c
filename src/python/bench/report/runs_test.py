from __future__ import annotations

import pytest

from bench.errors import CheckFailed
from bench.loop.convergence import NO_CANDIDATE
from bench.report.runs import parse_records


def turn(number: int, outcome: str = "model_miss", digest: str = "d", signature: str = "s", **extra) -> dict:
    return {"turn": number, "outcome": outcome, "candidate_digest": digest, "signature": signature, **extra}


def loop(task_id: str = "t1", condition: str = "full", turns: list | None = None, **extra) -> dict:
    record = {
        "kind": "loop",
        "task_id": task_id,
        "library": "lib",
        "difficulty": "easy",
        "model": "scripted/x",
        "condition": condition,
        "turns": turns if turns is not None else [turn(1, "solved", "a", "")],
        "budget": 3,
    }
    record.update(extra)
    return record


def test_loop_record_is_classified_from_its_turns_when_class_is_missing():
    parsed = parse_records([loop(turns=[turn(1, digest="a"), turn(2, digest="a")])])
    (run,) = parsed.loops
    assert run.convergence_class == "STALLED"
    assert run.first_solved_turn is None
    assert parsed.class_mismatches == ()


def test_recorded_class_wins_but_a_mismatch_is_reported():
    parsed = parse_records([loop(turns=[turn(1, digest="a"), turn(2, digest="a")], **{"class": "EXHAUSTED"})])
    (run,) = parsed.loops
    assert (run.convergence_class, run.recomputed_class) == ("EXHAUSTED", "STALLED")
    assert parsed.class_mismatches == (run,)


def test_turns_without_candidate_lose_their_digest_so_they_cannot_stall():
    # The runner may record the unchanged workspace's digest for an invalid edit; it must not count as emitted.
    parsed = parse_records([loop(turns=[turn(1, digest="a"), turn(2, "invalid_edit", digest="a")])])
    (run,) = parsed.loops
    assert run.turns[1].candidate_digest == NO_CANDIDATE
    assert run.convergence_class == "EXHAUSTED"


def test_turn_states_for_the_markov_model():
    turns = [
        turn(1, compiles=False, digest="a"),
        turn(2, compiles=True, digest="b"),
        turn(3, "model_timeout"),
    ]
    (run,) = parse_records([loop(turns=turns)]).loops
    assert run.states == ("broken", "failing", "no-edit")


def test_infrastructure_error_marks_the_run():
    (run,) = parse_records([loop(turns=[turn(1, "infrastructure_error")])]).loops
    assert run.infrastructure_error is True


def test_other_kinds_are_counted_and_skipped():
    parsed = parse_records([{"kind": "certificate"}, {"kind": "certificate"}, {"no": "kind"}, loop()])
    assert parsed.other_kinds == (("None", 1), ("certificate", 2))
    assert len(parsed.loops) == 1


def test_duplicate_units_keep_the_first_occurrence():
    first = loop(turns=[turn(1, "solved", "a", "")])
    second = loop(turns=[turn(1, digest="b")])
    parsed = parse_records([first, second, loop(condition="count-only")])
    assert parsed.duplicates == 1
    assert [run.convergence_class for run in parsed.loops] == ["CONVERGED", "CONVERGED"]


def test_attempt_defaults_for_optional_fields():
    (attempt,) = parse_records([{"kind": "attempt", "task_id": "t", "model": "m", "outcome": "solved"}]).attempts
    assert (attempt.library, attempt.difficulty, attempt.sample) == ("unknown", "unknown", 0)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"kind": "attempt", "model": "m", "outcome": "solved"}, "record 1: field 'task_id'"),
        ({"kind": "attempt", "task_id": "t", "model": "m", "outcome": "passed"}, "record 1: field 'outcome'"),
        (loop(turns="nope"), "record 1: loop record needs a list 'turns'"),
        (loop(budget=None), "record 1: field 'budget' must be an integer"),
        (loop(turns=[turn(2)]), "record 1: turn at position 1 has index 2"),
        (loop(turns=[turn(1), turn(2), turn(3), turn(4)]), "record 1: 4 turns exceed the budget of 3"),
        (loop(**{"class": "DONE"}), "record 1: 'class' must be one of"),
        (loop(turns=[turn(1, failing="t::a")]), "record 1: turn 'failing' must be a list"),
    ],
)
def test_malformed_records_name_record_and_field(record, message):
    with pytest.raises(CheckFailed, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_records([record])


def test_non_object_record_is_rejected():
    with pytest.raises(CheckFailed, match="record 2: expected a JSON object"):
        parse_records([loop(), ["not", "an", "object"]])  # type: ignore[list-item]


def test_a_loop_unit_that_failed_before_its_first_turn_is_an_infrastructure_error_run():
    # The runner writes such a record when the task cannot be prepared (say, the sandbox could not be set up).
    record = {"kind": "loop", "task_id": "t1", "library": "lib", "difficulty": "easy", "model": "scripted/x",
              "condition": "full", "sample": 0, "outcome": "infrastructure_error", "reason": "SandboxError: …"}
    (run,) = parse_records([record, loop(task_id="t2")]).loops[:1]
    assert run.infrastructure_error and [t.outcome for t in run.turns] == ["infrastructure_error"]
    assert not run.converged
    with pytest.raises(CheckFailed, match="record 1: loop record needs a list 'turns'"):
        parse_records([dict(record, outcome="model_miss")])  # only an infrastructure error may lack its turns


def test_a_turn_that_passes_its_targets_but_breaks_a_guard_test_is_not_converged_when_recomputed():
    # docs/ARCHITECTURE.md §1: CONVERGED means some turn *resolved* the task; the runner classifies so, and the
    # recomputation must agree with it instead of reporting the record as a mismatch.
    turns = [turn(1, digest="a", signature="s1", resolved=False),
             turn(2, "solved", digest="b", signature="s2", resolved=False)]
    parsed = parse_records([loop(turns=turns, **{"class": "EXHAUSTED", "first_solved_turn": None})])
    (run,) = parsed.loops
    assert (run.convergence_class, run.recomputed_class) == ("EXHAUSTED", "EXHAUSTED")
    assert parsed.class_mismatches == ()
    resolved = [turn(1, digest="a", signature="s1"), turn(2, "solved", digest="b", signature="s2", resolved=True)]
    (run,) = parse_records([loop(turns=resolved)]).loops
    assert (run.recomputed_class, run.first_solved_turn) == ("CONVERGED", 2)


def test_the_committed_mutation_study_has_no_class_that_differs_from_its_recomputation():
    from bench.report.build import load_records
    from bench.testing.support import checkout_root

    records = load_records(checkout_root() / "results" / "study" / "repairer-ast-mutation" / "results.jsonl")
    parsed = parse_records(records)
    assert len(parsed.loops) == 1020
    assert [f"{run.task_id}/{run.condition}" for run in parsed.class_mismatches] == []
