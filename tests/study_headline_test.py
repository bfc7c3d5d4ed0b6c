"""The card's main job: `bench score --model scripted` runs the deterministic study on every synthetic task.

Pinned here: every trajectory lands in the class its committed script was generated for (so the harness
observes what the data says, counted exactly); a run with no verdict cache (every test run recomputed) gives
the committed reference results, which an earlier run made (the benchmark commit aside, which names the commit
the run was made at); and the report is a function of the results: `bench report` on the run's folder writes
the report `bench score` wrote, byte for byte. The run is made once: a second run compared with the first
showed nothing the comparison with the reference does not, at twice the time.
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
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("study") / "a"
    result = run_bench("score", "--model", "scripted", "--out", str(out), "--no-cache", cwd=checkout_root(),
                       timeout=3000)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "CONVERGED" in result.stdout  # the headline table is printed
    return out


def test_every_trajectory_lands_in_its_scripted_class(run):
    observed = Counter((r["task_id"], r["condition"], r["class"]) for r in _records(run / "results.jsonl"))
    assert observed == _expected()


def test_class_counts_per_condition_are_exact(run):
    counts = Counter((r["condition"], r["class"]) for r in _records(run / "results.jsonl"))
    expected = Counter((condition, cls) for (_, condition, cls), n in _expected().items() for _ in range(n))
    assert counts == expected
    assert sum(counts.values()) == 2 * len(list((checkout_root() / "tasks" / "synthetic").glob("*.json")))


def test_the_report_is_what_bench_report_makes_of_the_results(run, tmp_path):
    again = run_bench("report", str(run), "--out", str(tmp_path / "report"), cwd=checkout_root(), timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert (tmp_path / "report" / "report.md").read_bytes() == (run / "report" / "report.md").read_bytes()


def test_committed_reference_results_are_what_the_command_produces(run):
    committed = checkout_root() / "results" / "study" / "scripted-study" / "results.jsonl"
    fresh = _records(run / "results.jsonl")
    reference = _records(committed)
    for record in fresh + reference:
        record["integrity"].pop("benchmark_commit")
    assert fresh == reference
