"""`bench score --out` never replaces results it did not make: a committed reference (results/study/) is refused
unless --update-reference, so is a folder of another run (other settings or tasks); the same run resumes.
`bench report` of a committed run writes its report elsewhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.testing.support import checkout_root, run_bench

TASK = "synthetic.caesar_shift"


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("extra", [(), ("--no-resume",)])
def test_score_out_on_a_committed_reference_is_refused(extra):
    root = checkout_root()
    committed = root / "results" / "study" / "scripted-study"
    before = _snapshot(committed)
    assert len((committed / "results.jsonl").read_text().splitlines()) > 100  # the study, not a stand-in
    done = run_bench("score", "--model", "scripted", "--tasks", TASK, "--out", str(committed), *extra,
                     cwd=root, timeout=900)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "is a committed reference" in done.stderr and "--update-reference" in done.stderr
    assert _snapshot(committed) == before


def test_score_out_on_another_runs_folder_is_refused_and_the_same_run_resumes(tmp_path):
    root, out = checkout_root(), tmp_path / "out"
    first = ("score", "--model", "scripted", "--tasks", TASK, "--turns", "1", "--no-report", "--out", str(out))
    assert run_bench(*first, cwd=root, timeout=900).returncode == 0
    (out / "records.jsonl").unlink()  # as a committed folder holds it: results.jsonl and run.json only
    before = _snapshot(out)
    for changed, named in ((("--turns", "2"), "turns differ"),
                           (("--tasks", "synthetic.roman_numerals"), "1 task(s) this run does not select")):
        argv = [*first]
        argv[argv.index(changed[0]) + 1] = changed[1]
        done = run_bench(*argv, cwd=root, timeout=900)
        assert done.returncode == 2, done.stderr[-2000:]
        assert f"{out} holds results of" in done.stderr and named in done.stderr
        assert _snapshot(out) == before
    again = run_bench(*first, cwd=root, timeout=900)  # the same run: accepted
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads((out / "results.jsonl").read_text().splitlines()[0])["task_id"] == TASK


def test_report_of_a_committed_run_leaves_its_report_alone():
    root = checkout_root()
    committed = root / "results" / "study" / "scripted-study"
    before = _snapshot(committed)
    elsewhere = root / "results" / "runs" / "reports" / "study-scripted-study"
    try:
        done = run_bench("report", str(committed), "--adequacy", cwd=root, timeout=900)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.splitlines()[0] == str(elsewhere / "report.md")
        assert f"written to {elsewhere}" in done.stderr
        assert _snapshot(committed) == before
    finally:
        shutil.rmtree(elsewhere, ignore_errors=True)
