"""`bench score --predictions`: a verdict is only ever of the patch the file holds now — an edited patch is
scored again, a line dropped from the file leaves the results, two different lines for one instance are refused —
and a predictions run is a run like any other: run.json, its report, and `bench verify` scoring it again."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from bench.testing.support import checkout_root, load_task, run_bench

TASK = "synthetic.caesar_shift"
OTHER = "synthetic.roman_numerals"


def _patch(fixed: bool) -> str:
    folder = checkout_root() / load_task(TASK).synthetic_dir
    initial = (folder / "initial" / "caesar.py").read_text()
    after = (folder / "reference" / "caesar.py").read_text() if fixed else initial + "# nothing changed\n"
    return "".join(difflib.unified_diff(initial.splitlines(True), after.splitlines(True), "a/caesar.py",
                                        "b/caesar.py"))


def _write(path: Path, *lines: dict) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _score(preds: Path, out: Path, *extra: str):
    return run_bench("score", "--predictions", str(preds), "--out", str(out), *extra, cwd=checkout_root(),
                     timeout=900)


def _outcomes(out: Path) -> dict[str, str]:
    return {r["task_id"]: r["outcome"] for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}


def test_an_edited_patch_is_scored_again_not_resumed(tmp_path):
    preds, out = tmp_path / "preds.jsonl", tmp_path / "out"
    _write(preds, {"instance_id": TASK, "model_patch": _patch(True)}, {"instance_id": OTHER, "model_patch": ""})
    first = _score(preds, out, "--no-report")
    assert first.returncode == 0, first.stderr[-2000:]
    assert _outcomes(out) == {TASK: "solved", OTHER: "invalid_edit"}
    _write(preds, {"instance_id": TASK, "model_patch": _patch(False)}, {"instance_id": OTHER, "model_patch": ""})
    second = _score(preds, out, "--no-report")
    assert second.returncode == 0, second.stderr[-2000:]
    assert _outcomes(out) == {TASK: "model_miss", OTHER: "invalid_edit"}  # never the old patch's "solved"
    assert "1 recorded unit(s) run again: 1 because their patch changed" in second.stderr
    assert "(1 run now, 1 resumed)" in second.stdout
    third = _score(preds, out, "--no-report")  # the same file again: nothing to run
    assert "(0 run now, 2 resumed)" in third.stdout and "run again" not in third.stderr


def test_a_line_dropped_from_the_file_leaves_the_results(tmp_path):
    preds, out = tmp_path / "preds.jsonl", tmp_path / "out"
    _write(preds, {"instance_id": TASK, "model_patch": _patch(True)}, {"instance_id": OTHER, "model_patch": ""})
    assert _score(preds, out, "--no-report").returncode == 0
    _write(preds, {"instance_id": OTHER, "model_patch": ""})
    again = _score(preds, out, "--no-report")
    assert again.returncode == 0, again.stderr[-2000:]
    assert _outcomes(out) == {OTHER: "invalid_edit"}
    assert "predictions: 1 units (0 run now, 1 resumed)" in again.stdout


def test_two_different_lines_for_one_instance_are_refused_naming_them(tmp_path):
    preds, out = tmp_path / "preds.jsonl", tmp_path / "out"
    _write(preds, {"instance_id": TASK, "model_patch": _patch(True)}, {"instance_id": OTHER, "model_patch": ""},
           {"instance_id": TASK, "model_patch": _patch(False)})
    done = _score(preds, out)
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"1 instance(s) have more than one prediction: {TASK} on lines 1, 3" in done.stderr
    assert not out.exists()


def test_byte_identical_lines_for_one_instance_warn_and_are_scored_once(tmp_path):
    preds, out = tmp_path / "preds.jsonl", tmp_path / "out"
    line = {"instance_id": OTHER, "model_patch": ""}
    _write(preds, line, {"instance_id": TASK, "model_patch": _patch(True)}, line)
    done = _score(preds, out, "--no-report")
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"warning: {preds}: {OTHER} is on lines 1, 3, byte for byte the same: scored once" in done.stderr
    assert "predictions: 2 units (2 run now, 0 resumed)" in done.stdout


def test_a_missing_predictions_file_is_a_usage_error(tmp_path):
    done = _score(tmp_path / "absent.jsonl", tmp_path / "out")
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"--predictions {tmp_path / 'absent.jsonl'}: no such file" in done.stderr


@pytest.mark.parametrize("extra, named", [
    (("--model", "scripted"), "--model"),
    (("--turns", "3"), "--turns"),
    (("--both-conditions",), "--both-conditions"),
    (("--samples", "2", "--temperature", "0.7"), "--samples, --temperature"),
])
def test_model_options_with_predictions_are_refused(tmp_path, extra, named):
    preds = _write(tmp_path / "preds.jsonl", {"instance_id": OTHER, "model_patch": ""})
    done = _score(preds, tmp_path / "out", *extra)
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"{named}: " in done.stderr and "--predictions scores given patches" in done.stderr
    assert not (tmp_path / "out").exists()


def test_a_predictions_run_writes_its_report_and_verify_scores_it_again(tmp_path):
    preds, out = tmp_path / "preds.jsonl", tmp_path / "out"
    _write(preds, {"instance_id": TASK, "model_patch": _patch(True), "model_name_or_path": "demo"},
           {"instance_id": OTHER, "model_patch": None, "model_name_or_path": "demo"})
    done = _score(preds, out)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"report: {out / 'report' / 'report.md'} {out / 'report' / 'report.html'}" in done.stderr
    assert (out / "report" / "report.html").is_file()
    assert json.loads((out / "run.json").read_text())["kind"] == "predictions"
    verified = run_bench("verify", str(out), cwd=checkout_root(), timeout=900)
    assert verified.returncode == 0, verified.stdout + verified.stderr[-2000:]
    assert verified.stdout.splitlines()[-1] == "2 identical, 0 different"
    record = next(r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines()) if r["task_id"] == TASK)
    sha = record["response_sha256"]
    (out / "store" / sha[:2] / sha).write_text(_patch(False))  # the kept patch altered: the record no longer holds
    altered = run_bench("verify", str(out), cwd=checkout_root(), timeout=900)
    assert altered.returncode == 1
    assert f"mismatch   {TASK} demo single #0 patch {sha[:12]} missing or altered" in altered.stdout
