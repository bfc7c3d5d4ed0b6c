"""Context policies end to end: `bench prompt` fits a budget with a real base run in the sandbox, and a scored
run records its policy in run.json and in every record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.model.tokenizers import count_messages, get_tokenizer
from bench.testing.support import checkout_root, load_task, run_bench

TASK = "synthetic.tiny_json"  # the largest synthetic source file: a budget of 2,000 tokens must cut it


@pytest.mark.parametrize("policy", ["files", "localized", "retrieval"])
def test_bench_prompt_fits_the_budget_and_says_what_it_shows(policy):
    result = run_bench("prompt", TASK, "--json", "--context", policy, "--context-budget", "2000",
                       cwd=checkout_root())
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    contents = [m["content"] for m in doc["messages"]]
    tokens = count_messages(get_tokenizer("estimate"), contents)
    assert tokens <= 2000
    assert doc["context"]["prompt_tokens"] == tokens
    assert doc["context"]["policy"] == policy and doc["context"]["tokenizer"] == "estimate"
    assert doc["context"]["budget"] == 2000
    kept, offered = doc["context"]["blocks"]
    assert doc["context"]["cut"] is (kept < offered)


def test_localized_prompt_without_a_budget_outlines_what_the_tests_do_not_reach():
    task = "synthetic.semver_ranges"  # its failing tests reach some of the module, not all
    result = run_bench("prompt", task, "--json", "--context", "localized", cwd=checkout_root())
    assert result.returncode == 0, result.stderr
    user = json.loads(result.stdout)["messages"][1]["content"]
    spec = load_task(task)
    source = (checkout_root() / spec.synthetic_dir / "initial" / spec.source_files[0]).read_text()
    reference = (checkout_root() / spec.synthetic_dir / "reference" / spec.source_files[0]).read_text()
    assert reference.strip() not in user
    shown = _fenced_after(user, "### " + spec.source_files[0])
    markers = [line for line in shown if line.startswith("# ⋮ ")]
    assert markers and all(line.endswith(" not shown") for line in markers)  # the tests do not reach it all
    own = set(source.splitlines())
    assert all(line in own for line in shown if line not in markers)  # every other line is the file's own


def _fenced_after(text: str, heading: str) -> list[str]:
    """The lines inside the first fence after the line starting with ``heading``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    opening = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    fence = lines[opening].rstrip("abcdefghijklmnopqrstuvwxyz")
    closing = next(i for i in range(opening + 1, len(lines)) if lines[i] == fence)
    return lines[opening + 1:closing]


def test_a_scored_run_records_its_context_in_run_json_and_each_record(tmp_path: Path):
    out = tmp_path / "run"
    result = run_bench("score", "--model", "scripted", "--tasks", TASK, "--turns", "2", "--context", "localized",
                       "--context-budget", "2000", "--out", str(out), "--no-report", cwd=checkout_root())
    assert result.returncode == 0, result.stderr
    settings = json.loads((out / "run.json").read_text())
    assert settings["context"] == {"policy": "localized", "budget": 2000, "tokenizer": "estimate"}
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert records and all(r["context"]["policy"] == "localized" for r in records)
    assert all(r["context"]["prompt_tokens"] <= 2000 for r in records)
    assert "prompts: localized context, budget 2000 (estimate)" in result.stdout + result.stderr


def test_a_budget_below_the_floor_is_a_usage_error():
    result = run_bench("prompt", TASK, "--context", "localized", "--context-budget", "10", cwd=checkout_root())
    assert result.returncode == 2
    assert "too small" in result.stderr
