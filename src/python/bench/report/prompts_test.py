from __future__ import annotations

from dataclasses import replace

import pytest

from bench.loop.records import UnitRecord
from bench.report import tables
from bench.report.console import summary_lines
from bench.report.prompts import PromptSummary, console_lines, prompt_runs, prompt_summary, show_prompts


def context(policy: str = "localized", prompt_tokens: int = 5873, cut: bool = False, budget: int | None = 6000,
            tokenizer: str = "llamacpp/smollm2") -> dict:
    return {"policy": policy, "budget": budget, "tokenizer": tokenizer, "prompt_tokens": prompt_tokens, "cut": cut,
            "blocks": [12, 30] if cut else [30, 30]}


def attempt(task: str, outcome: str, *, ctx: dict | None = None, usage: dict | None = None, model: str = "m",
            **fields) -> dict:
    record = {"kind": "attempt", "task_id": task, "library": "lib", "model": model, "condition": "single",
              "sample": 0, "outcome": outcome, "resolved": outcome == "solved", "prompt_sha256": f"p-{task}",
              **fields}
    if ctx is not None:
        record["context"] = ctx
    if usage is not None:
        record["usage"] = usage
    return record


def loop(task: str, outcomes: list[str], *, ctx: dict | None = None, model: str = "m", **fields) -> dict:
    turns = [{"turn": n, "outcome": o, "worker_tokens": 900, "controller_tokens": 0} for n, o in enumerate(outcomes, 1)]
    solved = "solved" in outcomes
    record = {"kind": "loop", "task_id": task, "library": "lib", "model": model, "condition": "full", "sample": 0,
              "budget": len(turns), "turns": turns, "class": "CONVERGED" if solved else "EXHAUSTED",
              "outcome": "solved" if solved else outcomes[-1], "resolved": solved, "prompt_sha256": f"p-{task}",
              **fields}
    if ctx is not None:
        record["context"] = ctx
    return record


# A localized run with a 6000-token budget: one attempt solved (its context size wins over the model's usage),
# one loop solved at turn 2 that broke a pass_to_pass test (solved, not resolved), one missed attempt cut to
# the budget, one loop that hit an infrastructure error after a solved turn (neither), and one unit that failed
# before its prompt was built (no context, no prompt_sha256: no size).
LOCALIZED = [
    attempt("t1", "solved", ctx=context(prompt_tokens=5873, cut=True), usage={"prompt_tokens": 5900}),
    loop("t2", ["model_miss", "solved"], ctx=context(prompt_tokens=5999), resolved=False),
    attempt("t3", "model_miss", ctx=context(prompt_tokens=4000, cut=True)),
    loop("t4", ["solved", "infrastructure_error"], ctx=context(prompt_tokens=4500)),
    {"kind": "attempt", "task_id": "t5", "library": "lib", "model": "m", "condition": "single", "sample": 0,
     "outcome": "infrastructure_error", "reason": "the task could not be prepared"},
]
# A default run: sizes only where the model reported them; a loop record reports none.
DEFAULT = [
    attempt("t1", "solved", usage={"prompt_tokens": 1200, "completion_tokens": 80}),
    attempt("t2", "model_timeout", usage={}),
    attempt("t3", "model_miss", usage={"prompt_tokens": 0, "completion_tokens": 0}),
    loop("t4", ["model_miss", "model_miss"]),
]


def typed(records: list[dict]) -> list[UnitRecord]:
    return [UnitRecord.from_json(record) for record in records]


def test_a_context_run_is_summarised_from_its_records():
    summary = prompt_summary(typed(LOCALIZED))
    assert summary.p90_tokens == pytest.approx(5873 * 0.3 + 5999 * 0.7)  # sizes 4000, 4500, 5873, 5999
    assert replace(summary, p90_tokens=None) == PromptSummary(
        model="m", policy="localized", budget=6000, tokenizer="llamacpp/smollm2", edit_format=None, units=5,
        sized=4, min_tokens=4000, median_tokens=5186.5, p90_tokens=None, max_tokens=5999, cut=2, solved=2,
        resolved=1)
    assert summary.has_context


def test_a_default_run_takes_sizes_the_model_reported():
    summary = prompt_summary(typed(DEFAULT))
    assert summary == PromptSummary(
        model="m", policy="files", budget=None, tokenizer=None, edit_format=None, units=4, sized=1, min_tokens=1200,
        median_tokens=1200.0, p90_tokens=1200.0, max_tokens=1200, cut=0, solved=1, resolved=1)
    assert not summary.has_context


def test_a_run_without_any_prompt_size():
    summary = prompt_summary(typed([loop("t1", ["solved"])]))
    assert (summary.sized, summary.min_tokens, summary.median_tokens, summary.p90_tokens, summary.max_tokens) == (
        0, None, None, None, None)
    assert (summary.solved, summary.resolved) == (1, 1)
    assert not show_prompts([summary])
    assert show_prompts([summary, prompt_summary(typed(DEFAULT))])


def test_records_of_more_than_one_setting_are_not_one_run():
    with pytest.raises(ValueError, match="more than one run"):
        prompt_summary(typed([LOCALIZED[0], attempt("t9", "solved", ctx=context(policy="retrieval"))]))
    with pytest.raises(ValueError, match="more than one run"):
        prompt_summary(typed([DEFAULT[0], attempt("t9", "solved", model="other")]))


def test_runs_sort_by_model_then_policy_and_budget():
    retrieval = [attempt("t1", "model_miss", ctx=context(policy="retrieval", prompt_tokens=3000))]
    unbudgeted = [attempt("t1", "solved", ctx=context(policy="localized", budget=None, prompt_tokens=9000))]
    other_model = [attempt("t1", "solved", model="a/model", usage={"prompt_tokens": 10})]
    records = retrieval + LOCALIZED + DEFAULT + unbudgeted + other_model + [{"kind": "certificate"}]
    runs = prompt_runs(records)
    assert [(r.model, r.policy, r.budget, r.units) for r in runs] == [
        ("a/model", "files", None, 1), ("m", "files", None, 5), ("m", "localized", None, 1),
        ("m", "localized", 6000, 4), ("m", "retrieval", 6000, 1)]
    # t5 failed before its prompt: with a default run of the same model beside it, it counts there
    default_run = next(r for r in runs if r.policy == "files" and r.model == "m")
    assert default_run == prompt_summary(typed(DEFAULT + LOCALIZED[4:]))


def test_a_unit_without_a_prompt_joins_the_one_context_run_of_its_model():
    (run,) = prompt_runs(LOCALIZED)
    assert run == prompt_summary(typed(LOCALIZED))
    assert prompt_runs(LOCALIZED + [LOCALIZED[0]]) == (run,)  # a unit recorded twice counts once


def test_the_edit_format_makes_its_own_run_when_records_name_it():
    whole = [dict(r, edit_format="whole") for r in DEFAULT]
    runs = prompt_runs(DEFAULT + [dict(r, model="x") for r in whole])
    assert [(r.model, r.edit_format) for r in runs] == [("m", None), ("x", "whole")]
    table = tables.prompt_table(runs)
    assert table.columns[:4] == ("model", "context", "budget", "edit format")
    assert [row[3] for row in table.rows] == ["–", "whole"]


def test_prompt_table_cells():
    table = tables.prompt_table(prompt_runs(DEFAULT + [dict(r, model="n") for r in LOCALIZED]))
    assert table.columns == ("model", "context", "budget", "counted by", "units", "sized", "median", "p90", "max",
                             "cut to budget", "solved", "resolved")
    assert table.rows == (
        ("m", "files", "–", "model (usage)", "4", "1", "1200", "1200", "1200", "–", "1", "1"),
        ("n", "localized", "6000", "llamacpp/smollm2", "5", "4", "5186", "5961", "5999", "2", "2", "1"),
    )


def test_console_prints_a_prompt_line_for_a_context_run_only():
    assert console_lines(LOCALIZED) == [
        "prompts: localized context, budget 6000 (llamacpp/smollm2): median 5186, max 5999 tokens; 2 of 4 cut"]
    assert console_lines(DEFAULT) == []
    default_lines = summary_lines(DEFAULT)
    assert not any(line.startswith("prompts:") for line in default_lines)
    assert summary_lines(LOCALIZED)[-1] == console_lines(LOCALIZED)[0]
    no_budget = [attempt("t1", "solved", ctx=context(policy="retrieval", budget=None, tokenizer="estimate"))]
    assert console_lines(no_budget) == [
        "prompts: retrieval context, no budget (estimate): median 5873, max 5873 tokens; 0 of 1 cut"]


def test_a_default_resample_run_is_not_taken_for_units_without_a_prompt():
    resample = {"kind": "resample", "task_id": "t1", "model": "m", "condition": "resample", "sample": 0,
                "outcome": "solved", "resolved": True, "budget": 1, "turns": [{"turn": 1, "outcome": "solved"}]}
    runs = prompt_runs([resample] + LOCALIZED[:1])
    assert [(r.policy, r.units, r.solved) for r in runs] == [("files", 1, 1), ("localized", 1, 1)]
