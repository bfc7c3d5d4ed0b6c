from __future__ import annotations

from bench.report.runs import AttemptRun
from bench.report.sections import attempt_section


def test_a_library_with_nothing_scored_gets_no_error_bar():
    attempts = [AttemptRun("a", "alpha", "", "m", 0, "infrastructure_error"),
                AttemptRun("b", "beta", "", "m", 0, "solved"), AttemptRun("c", "beta", "", "m", 0, "model_miss")]
    _, (plot,) = attempt_section("m", attempts, "m")
    assert plot.categories == ("alpha", "beta")
    assert (plot.values[0], plot.lows[0], plot.highs[0]) == (None, 0.0, 0.0)
    assert plot.lows[1] < plot.values[1] == 0.5 < plot.highs[1]


def _sweep_attempt(model: str, task: str, policy: str, tokens: int, outcome: str) -> dict:
    return {"kind": "attempt", "task_id": task, "library": "lib", "model": model, "condition": "single", "sample": 0,
            "outcome": outcome, "resolved": outcome == "solved", "prompt_sha256": f"{policy}-{task}",
            "context": {"policy": policy, "budget": 6000, "tokenizer": "estimate", "prompt_tokens": tokens,
                        "cut": tokens > 5000, "blocks": [3, 4] if tokens > 5000 else [4, 4]}}


def _markdown(records) -> str:
    from bench.report.build import records_digest
    from bench.report.document import render_markdown
    from bench.report.prompts import prompt_runs
    from bench.report.runs import parse_records
    from bench.report.sections import compose

    document, _ = compose(parse_records(records), records_digest(records), len(records), prompt_runs(records))
    return render_markdown(document)


def test_a_context_sweep_gets_a_prompt_sizes_table_with_its_runs_side_by_side():
    records = [  # retrieval first, and model z before model a: the rows sort by model, then policy
        _sweep_attempt("z", "t1", "retrieval", 5500, "solved"),
        _sweep_attempt("z", "t2", "retrieval", 3000, "model_miss"),
        _sweep_attempt("a", "t1", "retrieval", 2000, "model_miss"),
        _sweep_attempt("z", "t1", "localized", 4000, "solved"),
        _sweep_attempt("z", "t2", "localized", 5900, "solved"),
        _sweep_attempt("a", "t1", "localized", 2500, "solved"),
    ]
    markdown = _markdown(records)
    section = markdown[markdown.index("## Prompt sizes"):]
    table = [line for line in section.splitlines() if line.startswith("| ")]
    assert table == [
        "| model | context | budget | counted by | units | sized | median | p90 | max | cut to budget | solved "
        "| resolved |",
        "| a | localized | 6000 | estimate | 1 | 1 | 2500 | 2500 | 2500 | 0 | 1 | 1 |",
        "| a | retrieval | 6000 | estimate | 1 | 1 | 2000 | 2000 | 2000 | 0 | 0 | 0 |",
        "| z | localized | 6000 | estimate | 2 | 2 | 4950 | 5710 | 5900 | 1 | 2 | 2 |",
        "| z | retrieval | 6000 | estimate | 2 | 2 | 4250 | 5250 | 5500 | 1 | 1 | 1 |",
    ]


def test_no_prompt_sizes_section_without_a_context_or_a_reported_prompt_size():
    loop = {"kind": "loop", "task_id": "t1", "model": "m", "condition": "full", "budget": 1, "prompt_sha256": "p",
            "turns": [{"turn": 1, "outcome": "solved", "worker_tokens": 50}]}
    unsized = {"kind": "attempt", "task_id": "t1", "model": "m", "outcome": "model_timeout", "usage": {}}
    assert "Prompt sizes" not in _markdown([loop, unsized])
    sized = dict(unsized, task_id="t2", outcome="model_miss", usage={"prompt_tokens": 700})
    assert "| m | files | – | model (usage) | 2 | 1 | 700 | 700 | 700 | – | 0 | 0 |" in _markdown([unsized, sized])


def test_the_legend_says_converged_means_resolved_as_the_records_are_classified():
    loop = {"kind": "loop", "task_id": "t", "library": "lib", "model": "m", "condition": "full", "budget": 2,
            "turns": [{"turn": 1, "outcome": "solved", "resolved": False, "candidate_digest": "a", "signature": "s"}],
            "class": "EXHAUSTED", "first_solved_turn": None}
    markdown = _markdown([loop])
    assert ("- `CONVERGED` — some turn within the budget resolved the task: every target test passed and no "
            "pass_to_pass test broke (a turn that passes its targets but breaks one is still failing).") in markdown
    assert "all target tests passed at some turn" not in markdown
    assert "differs from the one recomputed" not in markdown
