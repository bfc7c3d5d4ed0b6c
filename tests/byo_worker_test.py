"""Bring your own worker: `bench prompt` prints the task, `bench check` judges an edit from stdin, and
`bench score --predictions` scores SWE-bench-style unified diffs under the same rules."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from bench.testing.support import checkout_root, load_task, run_bench, whole_file_edit

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


def test_check_reports_the_verified_tier_of_a_resolved_edit():
    """The reference is verified; a table of the tested values resolves too, and is not."""
    initial, reference = _files()
    table = initial + (
        '\n_TESTED = {("Hello", 3): "Khoor", ("caf\\u00e9 \\u00df", 1): "dbg\\u00e9 \\u00df", ("Uryyb", 13): "Hello",\n'
        '           ("The Quick Brown Fox, 1923!", 11): "~", ("~", -11): "The Quick Brown Fox, 1923!"}\n'
        "_shift = shift\n\n\ndef shift(text, k):\n    return _TESTED.get((text, k)) or _shift(text, k)\n")
    verdicts = {}
    for name, text in (("reference", reference), ("table", table)):
        result = run_bench("check", TASK, "--json", cwd=checkout_root(), stdin=whole_file_edit("caesar.py", initial, text))
        assert result.returncode == 0, result.stderr
        verdicts[name] = json.loads(result.stdout)
    assert (verdicts["reference"]["verified"], verdicts["reference"]["verification"]) == (True, "verified")
    assert verdicts["reference"]["probes"] > 0 and not verdicts["reference"]["divergence"]
    assert (verdicts["table"]["status"], verdicts["table"]["verified"]) == ("SOLVED", False)
    assert verdicts["table"]["divergence"].startswith("caesar.py: ")


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


def test_check_shows_why_the_tests_failed_as_the_loop_tells_a_model():
    initial, _ = _files()
    edit = whole_file_edit("caesar.py", initial, initial + "# unchanged logic\n")
    result = run_bench("check", TASK, "--json", cwd=checkout_root(), stdin=edit)
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    assert doc["outcome"] == "model_miss" and doc["resolved"] is False
    failing = {failure["test"]: failure for failure in doc["failures"]}
    assert set(doc["still_failing"]) <= set(failing)
    case = failing["tests/test_caesar.py::test_uppercase_keeps_case"]
    assert case["outcome"] == "failed" and "assert" in case["detail"]
    assert doc["feedback"].startswith("The tests still fail:")
    assert "### tests/test_caesar.py::test_uppercase_keeps_case (failed)" in doc["feedback"]
    text = run_bench("check", TASK, cwd=checkout_root(), stdin=edit)
    assert text.stdout.startswith("FAILED\n")
    assert "### tests/test_caesar.py::test_uppercase_keeps_case (failed)" in text.stdout


def test_check_on_a_terminal_says_to_pipe_the_edit_instead_of_waiting():
    import os
    import pty
    import subprocess
    import sys

    from bench.testing.support import child_env

    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "bench.cli.main", "check", TASK], stdin=follower,
                              capture_output=True, text=True, cwd=checkout_root(), env=child_env(), timeout=120)
    finally:
        os.close(leader)
        os.close(follower)
    assert done.returncode == 2
    assert "reads the edit from stdin" in done.stderr


FUNCTION_FIX = '''caesar.py
```python
def _shift_char(ch, k):
    for first in ("a", "A"):
        if first <= ch <= chr(ord(first) + 25):
            return chr((ord(ch) - ord(first) + k) % 26 + ord(first))
    return ch
```
'''


def test_whole_function_replies_are_judged_like_any_edit():
    prompt = run_bench("prompt", TASK, "--json", "--edit-format", "function", cwd=checkout_root())
    assert prompt.returncode == 0, prompt.stderr
    system = json.loads(prompt.stdout)["messages"][0]["content"]
    assert "new full text of each function or class" in system and "SEARCH" not in system
    solved = run_bench("check", TASK, "--edit-format", "function", cwd=checkout_root(), stdin=FUNCTION_FIX)
    assert (solved.returncode, solved.stdout.splitlines()[0]) == (0, "SOLVED"), solved.stderr
    missing = run_bench("check", TASK, "--edit-format", "function", "--json", cwd=checkout_root(),
                        stdin=FUNCTION_FIX.replace("def _shift_char", "def _shift_letter"))
    assert missing.returncode == 1
    assert json.loads(missing.stdout)["reason"] == "definition_not_found"
