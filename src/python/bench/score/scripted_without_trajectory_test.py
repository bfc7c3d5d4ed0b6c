"""A synthetic task the scripted study has no trajectory for (a task just added): `bench score --model scripted`
refuses it up front as a usage error (exit 2), naming the file it lacks and the command that makes it, instead
of running every unit into an error and exiting 3."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bench.model.scripted import GENERATE_COMMAND
from bench.testing.support import checkout_root, empty_checkout, run_bench

NEW = "caesar_shift_again"


def _checkout_with_a_new_synthetic_task(folder: Path) -> Path:
    root = empty_checkout(folder)
    source = checkout_root() / "tasks" / "synthetic"
    shutil.copytree(source / "caesar_shift", root / "tasks" / "synthetic" / NEW)
    doc = json.loads((source / "caesar_shift.json").read_text())
    doc.update(task_id=f"synthetic.{NEW}", repo=f"synthetic/{NEW}", synthetic={"dir": f"tasks/synthetic/{NEW}"})
    (root / "tasks" / "synthetic" / f"{NEW}.json").write_text(json.dumps(doc, indent=2))
    shutil.copy(checkout_root() / "lockfiles" / "tasks" / "synthetic.lock", root / "lockfiles" / "tasks")
    (root / "tasks" / "synthetic" / "_scripted" / "study").mkdir(parents=True)
    return root


def test_scoring_a_task_without_a_trajectory_is_a_usage_error_naming_the_generator(tmp_path):
    root = _checkout_with_a_new_synthetic_task(tmp_path / "checkout")
    done = run_bench("score", "--model", "scripted", "--tasks", f"synthetic.{NEW}", "--out", str(tmp_path / "run"),
                     cwd=root, env={"BENCH_ROOT": str(root)})
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"_scripted/study/{NEW}.json" in done.stderr
    assert GENERATE_COMMAND in done.stderr
    assert not (tmp_path / "run" / "records.jsonl").exists()


def test_even_without_preflight_the_missing_trajectory_stops_the_run_before_any_unit(tmp_path):
    root = _checkout_with_a_new_synthetic_task(tmp_path / "checkout")
    done = run_bench("score", "--model", "scripted", "--tasks", f"synthetic.{NEW}", "--out", str(tmp_path / "run"),
                     "--no-preflight", cwd=root, env={"BENCH_ROOT": str(root)})
    assert done.returncode == 2, done.stderr[-2000:]
    assert GENERATE_COMMAND in done.stderr
