from __future__ import annotations

from pathlib import Path

from bench.report.run_summary import error_lines, run_summary

ATTEMPT_OK = {"task_id": "a", "condition": "single", "sample": 0, "kind": "attempt", "outcome": "solved",
              "resolved": True, "verified": True, "verification": "verified", "usage": {"total_tokens": 12}}
HARD_CODED = {"task_id": "f", "condition": "single", "sample": 0, "kind": "attempt", "outcome": "solved",
              "resolved": True, "verified": False, "verification": "diverged", "divergence": "f(2): expected 4, got 5"}
ATTEMPT_BROKE_GUARDS = {"task_id": "b", "condition": "single", "sample": 0, "kind": "attempt",
                        "outcome": "solved", "resolved": False}
DEAD = {"task_id": "c", "condition": "single", "sample": 0, "kind": "attempt", "outcome": "infrastructure_error",
        "reason": "cannot reach endpoint: Connection refused"}
LOOP_DEAD_TURN = {"task_id": "d", "condition": "full", "sample": 0, "kind": "loop", "class": "EXHAUSTED",
                  "turns": [{"outcome": "model_miss", "worker_tokens": 5, "controller_tokens": 0},
                            {"outcome": "infrastructure_error", "reason": "sandbox gone", "worker_tokens": 0}]}


def test_summary_counts_outcomes_ids_errors_and_tokens():
    summary = run_summary([ATTEMPT_OK, ATTEMPT_BROKE_GUARDS, DEAD, LOOP_DEAD_TURN, HARD_CODED], ran=4, resumed=1,
                          wall_seconds=2.04, selection={"selector": "lib:x", "tasks": 5}, now=0)
    assert summary == {
        "model": "", "selection": {"selector": "lib:x", "tasks": 5}, "written": "1970-01-01T00:00:00Z",
        "interrupted": False,
        "units": 5, "ran_now": 4, "resumed": 1, "wall_seconds": 2.0,
        "by_condition": {
            "full": {"units": 1, "scored": 0, "resolved": 0, "rate": None, "ci95": None, "errored": 1},
            "single": {"units": 4, "scored": 3, "resolved": 2, "rate": 0.6667, "ci95": [0.2077, 0.9385],
                       "errored": 1}},
        "by_outcome": {"EXHAUSTED": 1, "infrastructure_error": 1, "solved": 3},
        "resolved": ["a/single/0", "f/single/0"], "solved": ["a/single/0", "b/single/0", "f/single/0"],
        "verified": ["a/single/0"],
        "tiers": {"units": 3, "solved": 3, "resolved": 2, "verified": 1, "resolved_not_verified": 1,
                  "resolved_without_probes": 0},
        "errored": {"c/single/0": "cannot reach endpoint: Connection refused", "d/full/0": "sandbox gone"},
        "tokens": 17, "cost": None,
    }


def test_error_lines_name_each_reason_once_and_the_way_to_rerun():
    lines = error_lines([DEAD, dict(DEAD, task_id="e"), LOOP_DEAD_TURN, ATTEMPT_OK], Path("/runs/x"))
    assert lines == [
        "3 units hit infrastructure errors (not scored):",
        "  2 × cannot reach endpoint: Connection refused  (e.g. c/single/0)",
        "  1 × sandbox gone  (e.g. d/full/0)",
        "fix the cause, then run the same command with --retry-errors --out /runs/x to run them again",
    ]


def test_no_error_lines_without_errors():
    assert error_lines([ATTEMPT_OK], Path("/runs/x")) == []


def test_summary_names_the_model_the_selection_and_each_conditions_figures():
    def loop(task, condition, cls, resolved):
        return {"task_id": task, "condition": condition, "sample": 0, "kind": "loop", "model": "repairer/ast",
                "class": cls, "resolved": resolved, "outcome": "solved" if resolved else "model_miss",
                "turns": [{"outcome": "solved" if resolved else "model_miss"}]}

    records = [loop("a", "full", "CONVERGED", True), loop("b", "full", "STALLED", False),
               loop("a", "count-only", "EXHAUSTED", False), loop("b", "count-only", "EXHAUSTED", False)]
    summary = run_summary(records, ran=4, resumed=0, wall_seconds=1.0, now=86400 * 365)
    assert (summary["model"], summary["selection"]) == ("repairer/ast", {"selector": None, "tasks": 2})
    assert summary["written"] == "1971-01-01T00:00:00Z" and summary["interrupted"] is False
    assert summary["by_condition"] == {
        "count-only": {"units": 2, "scored": 2, "resolved": 0, "rate": 0.0, "ci95": [0.0, 0.6576], "errored": 0,
                       "classes": {"EXHAUSTED": 2}},
        "full": {"units": 2, "scored": 2, "resolved": 1, "rate": 0.5, "ci95": [0.0945, 0.9055], "errored": 0,
                 "classes": {"CONVERGED": 1, "STALLED": 1}},
    }
    two = run_summary(records + [dict(records[0], model="other/m")], ran=5, resumed=0, wall_seconds=1.0)
    assert two["model"] == ["other/m", "repairer/ast"]
