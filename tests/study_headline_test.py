"""The card's main job: `bench score --model scripted` runs the deterministic study on every synthetic task.

Pinned here: every trajectory lands in the class its committed script was generated for (so the harness
observes what the data says, counted exactly), two runs give byte-identical result files (the second with no
verdict cache, so every test run is recomputed), and the committed reference results are what the command
produces (the benchmark commit aside, which names the commit the run was made at).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from bench.testing.support import checkout_root, run_bench


def _expected() -> Counter:
    expected = Counter()
    for path in sorted((checkout_root() / "tasks" / "synthetic" / "_scripted" / "study").glob("*.json")):
        data = json.loads(path.read_text())
        for condition, script in data["conditions"].items():
            expected[(data["task_id"], condition, script["expected_class"])] += 1
    return expected


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    first = tmp_path_factory.mktemp("study") / "a"
    second = tmp_path_factory.mktemp("study") / "b"
    for out, extra in ((first, ()), (second, ("--no-cache",))):
        result = run_bench("score", "--model", "scripted", "--out", str(out), *extra, cwd=checkout_root(),
                           timeout=3000)
        assert result.returncode == 0, result.stderr[-3000:]
        assert "CONVERGED" in result.stdout  # the headline table is printed
    return first, second


def test_every_trajectory_lands_in_its_scripted_class(runs):
    observed = Counter((r["task_id"], r["condition"], r["class"]) for r in _records(runs[0] / "results.jsonl"))
    assert observed == _expected()


def test_class_counts_per_condition_are_exact(runs):
    counts = Counter((r["condition"], r["class"]) for r in _records(runs[0] / "results.jsonl"))
    expected = Counter((condition, cls) for (_, condition, cls), n in _expected().items() for _ in range(n))
    assert counts == expected
    assert sum(counts.values()) == 2 * len(list((checkout_root() / "tasks" / "synthetic").glob("*.json")))


def test_two_runs_are_byte_identical(runs):
    assert (runs[0] / "results.jsonl").read_bytes() == (runs[1] / "results.jsonl").read_bytes()
    assert (runs[0] / "report" / "report.md").read_bytes() == (runs[1] / "report" / "report.md").read_bytes()


def test_committed_reference_results_are_what_the_command_produces(runs):
    committed = checkout_root() / "results" / "study" / "scripted-study" / "results.jsonl"
    fresh = _records(runs[0] / "results.jsonl")
    reference = _records(committed)
    for record in fresh + reference:
        record["integrity"].pop("benchmark_commit")
    assert fresh == reference
