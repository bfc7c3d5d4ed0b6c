"""Bring your own worker: `bench prompt` prints the task, `bench check` judges an edit from stdin, and
`bench score --predictions` scores SWE-bench-style unified diffs under the same rules."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from bench.testsupport import checkout_root, load_task, run_bench, whole_file_edit

TASK = "synthetic.caesar_shift"


def _files():
    spec = load_task(TASK)
    folder = checkout_root() / spec.synthetic_dir
    return (folder / "initial" / "caesar.py").read_text(), (folder / "reference" / "caesar.py").read_text()


def test_prompt_shows_source_and_failing_tests_but_not_the_fix():
    result = run_bench("prompt", TASK, "--json", cwd=checkout_root())
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    user = doc["messages"][1]["content"]
    initial, reference = _files()
    assert initial.strip() in user
    assert reference.strip() not in user
    assert "test_uppercase_keeps_case" in user
    assert len(doc["sha256"]) == 64


@pytest.mark.parametrize(
    "kind, expected, code",
    [("reference", "SOLVED", 0), ("initial", "FAILED", 1), ("garbage", "NO_EDIT_APPLIED", 1)],
)
def test_check_verdicts(kind, expected, code):
    initial, reference = _files()
    edit = {
        "reference": whole_file_edit("caesar.py", initial, reference),
        "initial": whole_file_edit("caesar.py", initial, initial + "# unchanged logic\n"),
        "garbage": "I think the bug is in line 4.",
    }[kind]
    result = run_bench("check", TASK, "--json", cwd=checkout_root(), stdin=edit)
    assert result.returncode == code, result.stderr
    assert json.loads(result.stdout)["status"] == expected


def test_check_reuses_the_persistent_workspace():
    from bench.variables import cache_dir

    marker = cache_dir() / "workspaces" / TASK / "ready.json"
    run_bench("check", TASK, cwd=checkout_root(), stdin="nothing")
    first = marker.stat().st_mtime_ns
    run_bench("check", TASK, cwd=checkout_root(), stdin="nothing")
    assert marker.stat().st_mtime_ns == first  # not laid out again


def test_predictions_unified_diff_is_scored(tmp_path: Path):
    initial, reference = _files()
    patch = "".join(difflib.unified_diff(initial.splitlines(True), reference.splitlines(True),
                                         "a/caesar.py", "b/caesar.py"))
    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"instance_id": TASK, "model_patch": patch, "model_name_or_path": "demo"}) + "\n"
                     + json.dumps({"instance_id": "synthetic.roman_numerals", "model_patch": "",
                                   "model_name_or_path": "demo"}) + "\n")
    out = tmp_path / "out"
    result = run_bench("score", "--predictions", str(preds), "--out", str(out), cwd=checkout_root())
    assert result.returncode == 0, result.stderr
    records = {r["task_id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert records[TASK]["outcome"] == "solved"
    assert records["synthetic.roman_numerals"]["outcome"] == "invalid_edit"
