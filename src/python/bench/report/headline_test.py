"""The top of the report says what the run found in one sentence and what was run; sections that cannot apply
to the run (a comparison whose other arm was not run, a time-out column for given patches) are left out."""

from __future__ import annotations

import json

from bench.report.build import build_report


def _loop(task: str, condition: str, converged: bool, library: str = "lib", **extra) -> dict:
    turn = {"turn": 1, "outcome": "solved" if converged else "model_miss", "resolved": converged,
            "candidate_digest": f"{task}-{condition}", "signature": "s"}
    return {"kind": "loop", "task_id": task, "task_kind": "mutation", "library": library, "difficulty": "",
            "model": "repairer/ast", "condition": condition, "sample": 0, "budget": 3, "turns": [turn],
            "class": "CONVERGED" if converged else "EXHAUSTED", "first_solved_turn": 1 if converged else None,
            "outcome": turn["outcome"], "resolved": converged,
            "integrity": {"benchmark_commit": "c0ffee" * 6 + "ab"}, **extra}


def _attempt(task: str, outcome: str, model: str = "openai/gpt-x", **extra) -> dict:
    return {"kind": "attempt", "task_id": task, "task_kind": "pr", "library": task.split("-")[0], "difficulty": "",
            "model": model, "condition": "single", "sample": 0, "outcome": outcome,
            "resolved": outcome == "solved", **extra}


def _head(markdown: str) -> list[str]:
    return markdown.split("\n\n")[1:4]


def test_the_report_opens_with_a_headline_and_the_runs_settings(tmp_path):
    records = [_loop("m.a.1", "full", True), _loop("m.a.2", "full", False, library="other"),
               _loop("m.a.1", "count-only", False), _loop("m.a.2", "count-only", False, library="other")]
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"model": "repairer/ast", "turns": 3, "samples": 1,
                                              "conditions": ["full", "count-only"], "controller": None}))
    (run / "summary.json").write_text(json.dumps({"selection": {"selector": "kind:mutation", "tasks": 2},
                                                  "written": "2026-12-05T10:11:12Z", "interrupted": False}))
    paths = build_report(records, run / "report", run_dir=run)
    headline, caption, table = _head(paths.md.read_text())
    assert headline == ("`repairer/ast` converged in 1 of 2 runs (50.0 %) with full feedback and 0 of 2 runs "
                        "(0.0 %) with the failure count only (at most 3 turns each).")
    assert caption == "**Run settings**"
    assert table.splitlines() == [
        "| setting | value |",
        "|---|---|",
        "| model | `repairer/ast` |",
        "| selection | `kind:mutation`: 2 tasks (mutation 2) of 2 libraries |",
        "| turns | 3 per loop |",
        "| conditions | `full`, `count-only` |",
        "| samples per task | 1 |",
        "| date | 2026-12-05 (summary written) |",
        "| benchmark commit | `c0ffeec0ffee` |",
    ]
    html = paths.html.read_text()
    assert html.index("converged in 1 of 2 runs") < html.index("Run settings") < html.index("Records digest")


def test_without_a_runs_folder_the_settings_come_from_the_records(tmp_path):
    records = [_attempt("click-1", "solved"), _attempt("click-2", "model_miss"),
               _attempt("attrs-3", "infrastructure_error")]
    markdown = build_report(records, tmp_path / "report").md.read_text()
    headline, _, table = _head(markdown)
    assert headline == ("`openai/gpt-x` resolved 1 of 2 single attempts (50.0 %); 1 unit hit infrastructure "
                        "errors and are not counted.")
    assert "| selection | 3 tasks (pr 3) of 2 libraries |" in table
    assert "| turns | single attempts |" in table and "| date | not recorded |" in table
    assert "| benchmark commit | not recorded |" in table


def test_sections_that_do_not_apply_to_the_run_are_left_out(tmp_path):
    one_condition = [_loop("m.a.1", "full", True), _loop("m.a.2", "full", False)]
    markdown = build_report(one_condition, tmp_path / "loops").md.read_text()
    for absent in ("Feedback effect", "Loop vs resampling", "Needs runs", "Convergence by condition and "
                   "difficulty", "single attempts", "## Single attempts"):
        assert absent not in markdown, absent
    assert "2 records: 2 loop runs." in markdown and "#### Iterations to converge" in markdown
    attempts = build_report([_attempt("click-1", "solved")], tmp_path / "attempts").md.read_text()
    for absent in ("Convergence of the repair loop", "loop runs", "CONVERGED", "Markov"):
        assert absent not in attempts, absent


def test_a_predictions_report_says_so_and_has_no_time_out_column(tmp_path):
    given = [_attempt("click-1", "solved", model="predictions"), _attempt("click-2", "invalid_edit",
                                                                          model="predictions")]
    markdown = build_report(given, tmp_path / "predictions").md.read_text()
    assert "## Predictions (given patches, one attempt each)" in markdown and "## Single attempts" not in markdown
    header = next(line for line in markdown.splitlines() if line.startswith("| library |"))
    assert header == ("| library | tasks | attempts | resolved | rate | 95 % CI | solved | model_miss | tampered | "
                      "invalid_edit | infrastructure_error |")
    prompted = build_report([_attempt("click-1", "solved", prompt_sha256="ab" * 32)], tmp_path / "m").md.read_text()
    assert "| model_timeout |" in prompted and "## Single attempts" in prompted


def test_without_the_verified_tier_its_columns_are_not_counted_as_zero(tmp_path):
    records = [_loop("m.a.1", "full", True), _loop("m.a.2", "full", False)]
    markdown = build_report(records, tmp_path / "unverified").md.read_text()
    assert "The verified tier did not run for these units" in markdown
    assert "| repairer/ast | loop | 2 | 1 | 1 | – | – | – |" in markdown
    checked = [_loop("m.a.1", "full", True, verification="verified", verified=True), _loop("m.a.2", "full", False)]
    markdown = build_report(checked, tmp_path / "verified").md.read_text()
    assert "did not run" not in markdown and "| repairer/ast | loop | 2 | 1 | 1 | 1 | 0 | 0 |" in markdown
