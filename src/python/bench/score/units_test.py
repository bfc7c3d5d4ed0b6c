from __future__ import annotations

from bench.loop.records import Outcome, UnitRecord, Usage
from bench.score.units import RUNNER_VERSION, Unit, failed_record, record_key, unit_record, usage_of
from bench.testing.support import load_task

BENCHMARK = {"benchmark_commit": "c0ffee", "pool_sha256": "d" * 64}


def _unit(kind: str = "attempt", condition: str = "single") -> Unit:
    return Unit(load_task("synthetic.caesar_shift"), "repairer/ast", kind, condition, 1)


def test_a_unit_that_failed_before_it_was_scored_has_the_shared_fields_and_the_reason():
    record = failed_record(_unit("loop", "full"), BENCHMARK, "SandboxError: " + "x" * 600)
    assert record.to_json() == {
        "kind": "loop", "task_id": "synthetic.caesar_shift", "task_kind": "synthetic", "library": "synthetic",
        "difficulty": "easy", "model": "repairer/ast", "condition": "full", "sample": 1,
        "runner_version": RUNNER_VERSION, "integrity": BENCHMARK, "outcome": "infrastructure_error",
        "reason": ("SandboxError: " + "x" * 600)[:500],
    }
    assert UnitRecord.from_json(record.to_json()) == record


def test_a_units_fields_follow_the_shared_ones_and_the_run_context_joins_the_tasks_pins():
    fields = {"prompt_sha256": "p", "outcome": Outcome.MODEL_TIMEOUT, "resolved": False, "reason": "slow",
              "response_sha256": "", "usage": Usage()}
    record = unit_record(_unit(), {"lock_sha256": "l", "pool_sha256": "old"}, BENCHMARK, fields)
    assert record.integrity == (("lock_sha256", "l"), ("pool_sha256", "d" * 64), ("benchmark_commit", "c0ffee"))
    written = record.to_json()
    assert (written["usage"], written["response_sha256"], written["outcome"]) == ({}, "", "model_timeout")
    assert record_key(written) == record.key == ("synthetic.caesar_shift", "repairer/ast", "single", 1)


def test_usage_of_a_call_without_an_answer_counts_nothing():
    assert usage_of(None).to_json() == {"prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0}
