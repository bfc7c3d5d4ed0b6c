from __future__ import annotations

import copy

import pytest

from bench.errors import CheckFailed
from bench.loop import convergence
from bench.loop.records import (NO_CANDIDATE_OUTCOMES, Outcome, PromptContext, TurnRecord, UnitRecord, Usage,
                                final_outcome)
from bench.store.canonical import canonical_json

INTEGRITY = {"benchmark_commit": "c0ffee", "certificate_sha256": "a" * 64, "image_digest": "sha256:" + "b" * 64,
             "lock_sha256": "c" * 64, "pool_sha256": "d" * 64, "spec_sha256": "e" * 64, "workspace_sha256": "f" * 64}
BASE = {"kind": "attempt", "task_id": "arrow-1016", "task_kind": "pr", "library": "arrow", "difficulty": "",
        "model": "llamacpp/smollm2", "condition": "single", "sample": 0, "runner_version": "runner-v1/0.1.0",
        "integrity": INTEGRITY}
CONTEXT = {"policy": "localized", "budget": 6000, "tokenizer": "llamacpp/smollm2", "prompt_tokens": 5959,
           "cut": True, "blocks": [13, 72]}
USAGE = {"prompt_tokens": 5957, "completion_tokens": 256, "reasoning_tokens": 0}

# Records as each path of the writer makes them (bench.score: attempt, repair_loop, resample, prediction, runner).
ANSWERED = {**BASE, "prompt_sha256": "p" * 64, "edit_format": "function", "context": CONTEXT, "outcome": "model_miss",
            "resolved": False, "reason": "tests still fail", "response_sha256": "r" * 64, "usage": USAGE,
            "served_model": "SmolLM2.gguf", "edited_files": ["arrow/parser.py"], "candidate_digest": "9" * 64,
            "still_failing": ["tests/test_parser.py::test_a"], "pass_to_pass_broken": [],
            "results": [["tests/test_parser.py::test_a", "failed"], ["tests/test_parser.py::test_b", "passed"]]}
TIMED_OUT = {**BASE, "prompt_sha256": "p" * 64, "outcome": "model_timeout", "resolved": False,
             "reason": "no answer in 120 s", "response_sha256": "", "usage": {}}
PREDICTION = {**BASE, "model": "predictions", "outcome": "solved", "resolved": True, "reason": "all targets pass",
              "response_sha256": "r" * 64, "still_failing": [], "pass_to_pass_broken": []}
FAILED_FIRST = {**BASE, "integrity": {"benchmark_commit": "c0ffee", "pool_sha256": "d" * 64},
                "outcome": "infrastructure_error", "reason": "SandboxError: bwrap: no user namespaces"}
OLDER = {key: value for key, value in ANSWERED.items()
         if key not in ("resolved", "served_model", "context", "edit_format")}  # made before those fields
MISS_TURN = {"turn": 1, "outcome": "model_miss", "resolved": False, "reason": "1 target fails", "signature": "s1",
             "candidate_digest": "d1", "compiles": True, "failing": ["t.py::test_a"], "response_sha256": "r1",
             "edited_files": ["m.py"], "worker_tokens": 900, "controller_tokens": 40, "guidance": "look at m.f"}
TIMEOUT_TURN = {"turn": 2, "outcome": "model_timeout", "resolved": False, "reason": "no answer", "signature": "",
                "candidate_digest": "", "compiles": True, "failing": [], "worker_tokens": 0, "controller_tokens": 0}
SOLVED_TURN = {**MISS_TURN, "turn": 3, "outcome": "solved", "resolved": True, "failing": [], "guidance": ""}
LOOP = {**BASE, "kind": "loop", "condition": "full", "prompt_sha256": "p" * 64, "budget": 5,
        "turns": [MISS_TURN, TIMEOUT_TURN, SOLVED_TURN], "class": "CONVERGED", "class_reason": "turn 3 solved the task",
        "first_solved_turn": 3, "outcome": "solved", "resolved": True}
DRAW = {"turn": 1, "outcome": "invalid_edit", "resolved": False, "reason": "no_edits", "signature": "",
        "candidate_digest": "", "compiles": True, "failing": [], "response_sha256": "r1", "worker_tokens": 1200,
        "controller_tokens": 0}
RESAMPLE = {**BASE, "kind": "resample", "condition": "resample", "budget": 2,
            "turns": [DRAW, {**DRAW, "turn": 2, "outcome": "model_miss"}], "first_solved_turn": None,
            "class": "EXHAUSTED", "class_reason": "none of 2 draws solved", "outcome": "model_miss", "resolved": False,
            "edit_format": "diff"}
UNPREPARED_LOOP = {**FAILED_FIRST, "kind": "loop", "condition": "count-only"}
WRITTEN = [ANSWERED, TIMED_OUT, PREDICTION, FAILED_FIRST, OLDER, LOOP, RESAMPLE, UNPREPARED_LOOP]


@pytest.mark.parametrize("raw", WRITTEN, ids=lambda raw: f"{raw['kind']}-{raw['outcome']}-{len(raw)}")
def test_every_record_the_writer_makes_is_written_back_byte_for_byte(raw):
    record = UnitRecord.from_json(copy.deepcopy(raw))
    assert record.to_json() == raw
    assert canonical_json(record.to_json()) == canonical_json(raw)
    assert UnitRecord.from_json(record.to_json()) == record
    assert record.extra == ()  # every field is a typed one


def test_the_record_is_frozen_and_made_of_tuples():
    record = UnitRecord.from_json(LOOP)
    assert isinstance(record.turns, tuple) and isinstance(record.turns[0].failing, tuple)
    assert record.integrity == tuple(INTEGRITY.items())
    assert record.outcome is Outcome.SOLVED and record.convergence_class is convergence.Outcome.CONVERGED
    with pytest.raises(AttributeError):
        record.outcome = Outcome.MODEL_MISS  # type: ignore[misc]
    assert hash(record) == hash(UnitRecord.from_json(LOOP))


def test_parts_read_and_write_their_objects():
    assert UnitRecord.from_json(ANSWERED).context == PromptContext("localized", 6000, "llamacpp/smollm2", 5959, True,
                                                                   (13, 72))
    assert UnitRecord.from_json(ANSWERED).usage == Usage(5957, 256, 0)
    assert Usage().to_json() == {} and Usage(1, 2, 3).total == 6
    assert TurnRecord.from_json({"turn": 1, "outcome": "solved"}).to_json() == {
        "turn": 1, "outcome": "solved", "reason": "", "signature": "", "candidate_digest": "", "compiles": True,
        "failing": [], "worker_tokens": 0, "controller_tokens": 0}


def test_fields_this_module_does_not_know_are_kept():
    raw = {**LOOP, "cost": {"usd": 0.25}, "turns": [{**MISS_TURN, "latency": 1.5}, TIMEOUT_TURN, SOLVED_TURN],
           "usage": {**USAGE, "total_tokens": 6213}}
    record = UnitRecord.from_json(raw)
    assert record.extra == (("cost", '{"usd":0.25}'),) and record.turns[0].extra == (("latency", "1.5"),)
    assert record.to_json() == raw


def test_optional_fields_take_the_documented_defaults():
    record = UnitRecord.from_json({"kind": "attempt", "task_id": "t", "model": "m", "outcome": "solved"})
    assert (record.library, record.difficulty, record.sample, record.condition) == ("unknown", "unknown", 0, "single")
    assert (record.resolved, record.is_resolved, record.reason, record.usage) == (None, True, None, None)
    assert "resolved" not in record.to_json() and record.to_json()["library"] == "unknown"


def test_a_loop_without_class_or_outcome_is_classified_from_its_turns():
    turns = [{"turn": 1, "outcome": "model_miss", "candidate_digest": "a"},
             {"turn": 2, "outcome": "model_miss", "candidate_digest": "a"}]
    record = UnitRecord.from_json({"kind": "loop", "task_id": "t", "model": "m", "condition": "full", "budget": 3,
                                   "turns": turns})
    assert record.convergence_class is convergence.Outcome.STALLED and record.first_solved_turn is None
    assert record.outcome is Outcome.MODEL_MISS and record.class_reason.startswith("turn 2 re-emitted")
    recorded = UnitRecord.from_json({"kind": "loop", "task_id": "t", "model": "m", "condition": "full", "budget": 3,
                                     "turns": turns, "class": "EXHAUSTED", "first_solved_turn": None})
    assert recorded.convergence_class is convergence.Outcome.EXHAUSTED  # as recorded, even if it disagrees


def test_resolved_is_derived_for_records_made_before_it_existed():
    assert UnitRecord.from_json({**OLDER, "outcome": "solved"}).is_resolved is True
    assert UnitRecord.from_json({**OLDER, "outcome": "solved", "pass_to_pass_broken": ["t::g"]}).is_resolved is False
    assert TurnRecord.from_json({"turn": 1, "outcome": "solved"}).is_resolved is True


def test_errored_and_solved_look_at_the_turns_too():
    loop = UnitRecord.from_json(LOOP)
    assert loop.solved and not loop.errored
    broken = UnitRecord.from_json({**LOOP, "turns": [MISS_TURN, {**TIMEOUT_TURN, "outcome": "infrastructure_error"}],
                                   "class": "EXHAUSTED", "first_solved_turn": None, "outcome": "infrastructure_error"})
    assert broken.errored and not broken.solved


def test_a_turn_that_emitted_no_code_has_no_candidate_for_the_classifier():
    for outcome in NO_CANDIDATE_OUTCOMES:
        turn = TurnRecord(turn=1, outcome=outcome, candidate_digest="d")
        assert turn.convergence_turn().candidate_digest == convergence.NO_CANDIDATE
    assert TurnRecord(turn=1, outcome=Outcome.MODEL_MISS, candidate_digest="d").convergence_turn().emitted


def test_final_outcome_of_a_trajectory():
    miss, infra = (TurnRecord(turn=1, outcome=Outcome.INFRASTRUCTURE_ERROR),
                   TurnRecord(turn=2, outcome=Outcome.MODEL_MISS))
    assert final_outcome("loop", [miss, infra], 2) is Outcome.SOLVED
    assert final_outcome("loop", [miss, infra], None) is Outcome.INFRASTRUCTURE_ERROR  # the run is not scored
    assert final_outcome("resample", [miss, infra], None) is Outcome.MODEL_MISS  # its last draw's
    assert final_outcome("loop", [], None) is Outcome.MODEL_MISS


@pytest.mark.parametrize(("raw", "message"), [
    (["not", "an", "object"], "record: a record must be a JSON object, got list"),
    ({**ANSWERED, "kind": "certificate"}, "record: field 'kind' must be one of"),
    ({**ANSWERED, "task_id": ""}, "record: field 'task_id' must be a non-empty string"),
    ({**ANSWERED, "outcome": "passed"}, "record: field 'outcome' must be one of"),
    ({**ANSWERED, "sample": "0"}, "record: field 'sample' must be an integer"),
    ({**ANSWERED, "resolved": "yes"}, "record: field 'resolved' must be true or false"),
    ({**ANSWERED, "integrity": {"lock_sha256": 1}}, "record: field 'integrity' must be an object of strings"),
    ({**ANSWERED, "results": [["t", 1]]}, "record: field 'results' must be a list of lists of strings"),
    ({**ANSWERED, "usage": [1]}, "record: 'usage' must be a JSON object"),
    ({**ANSWERED, "usage": {"prompt_tokens": "9"}}, "record: usage field 'prompt_tokens' must be an integer"),
    ({**ANSWERED, "context": {**CONTEXT, "cut": "no"}}, "record: context field 'cut' must be true or false"),
    ({**LOOP, "turns": "nope"}, "record: loop record needs a list 'turns'"),
    ({**LOOP, "outcome": "model_miss", "turns": None}, "record: loop record needs a list 'turns'"),
    ({**LOOP, "budget": None}, "record: field 'budget' must be an integer"),
    ({**LOOP, "budget": 2}, "record: 3 turns exceed the budget of 2"),
    ({**LOOP, "turns": [SOLVED_TURN]}, "record: turn at position 1 has index 3"),
    ({**LOOP, "class": "DONE"}, "record: 'class' must be one of"),
    ({**LOOP, "first_solved_turn": "3"}, "record: field 'first_solved_turn' must be an integer"),
    ({**LOOP, "turns": ["turn"]}, "record: each turn must be a JSON object, got str"),
    ({**LOOP, "turns": [{**MISS_TURN, "failing": "t::a"}]}, "record: turn 'failing' must be a list of strings"),
    ({**LOOP, "turns": [{**MISS_TURN, "outcome": None}]}, "record: turn 'outcome' must be one of"),
])
def test_malformed_records_name_the_field_at_fault(raw, message):
    with pytest.raises(CheckFailed, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        UnitRecord.from_json(raw)


def test_errors_name_where_the_record_is():
    with pytest.raises(CheckFailed, match="^results.jsonl: record 7: field 'model'"):
        UnitRecord.from_json({**ANSWERED, "model": None}, "results.jsonl: record 7")


def test_a_loop_fed_its_divergences_says_so_and_other_records_keep_their_bytes():
    base = {"kind": "loop", "task_id": "t", "model": "m", "condition": "full", "outcome": "model_miss",
            "budget": 2, "turns": [], "class": "EXHAUSTED", "class_reason": "", "first_solved_turn": None}
    plain = UnitRecord.from_json(base)
    assert plain.feed_divergences is False and "feed_divergences" not in plain.to_json()
    fed = UnitRecord.from_json({**base, "feed_divergences": True})
    assert fed.feed_divergences is True and fed.to_json()["feed_divergences"] is True
    assert UnitRecord.from_json(fed.to_json()) == fed
