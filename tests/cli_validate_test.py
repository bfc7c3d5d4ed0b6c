"""End to end: `bench validate` / `bench list` as a user runs them, exit codes and messages included."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bench.spec.validate_test import GOOD_PR
from bench.testing.support import run_bench


def _bench(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_bench(*args, cwd=cwd, env=env)


def _tree(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    (tmp_path / "pants.toml").write_text("")
    (tmp_path / "tasks" / "click").mkdir(parents=True)
    (tmp_path / "tasks" / "click" / "click-2345.json").write_text(json.dumps(GOOD_PR))
    (tmp_path / "lockfiles" / "tasks").mkdir(parents=True)
    (tmp_path / "lockfiles" / "tasks" / "click-2345.lock").write_text("")
    (tmp_path / "images" / "trixie-py313").mkdir(parents=True)
    return tmp_path


def test_validate_lists_every_bad_file_not_only_the_first(checkout: Path):
    folder = checkout / "tasks" / "click"
    (folder / "click-7.json").write_text(json.dumps({**GOOD_PR, "task_id": "click-7", "base_sha": "nope"}))
    (folder / "click-8.json").write_text(json.dumps({**GOOD_PR, "task_id": "click-8", "surprise": 1}))
    result = _bench("validate", cwd=checkout)
    assert result.returncode == 2
    assert "click-7.json" in result.stderr and "bad_sha:" in result.stderr
    assert "click-8.json" in result.stderr and "unknown_key:" in result.stderr
    assert "2 of 3 spec files invalid" in result.stderr


@pytest.mark.parametrize("change, kind", [
    ({"fail_to_pass": ["tests/test_other.py::test_x"]}, "test_outside_test_files"),
    ({"lockfile": "lockfiles/tasks/absent.lock"}, "missing_lockfile"),
    ({"image": "no-such-image"}, "missing_image"),
])
def test_validate_checks_targets_lockfile_and_image(checkout: Path, change, kind):
    (checkout / "tasks" / "click" / "click-9.json").write_text(json.dumps({**GOOD_PR, "task_id": "click-9", **change}))
    result = _bench("validate", cwd=checkout)
    assert result.returncode == 2, result.stderr
    assert f"click-9.json: {kind}:" in result.stderr


@pytest.mark.parametrize(
    "change, kind",
    [
        ({"surprise": True}, "unknown_key"),
        ({"fail_to_pass": "tests/test_basic.py::test_x"}, "string_not_array"),
        ({"base_sha": "not-a-sha"}, "bad_sha"),
        ({"source_files": ["/etc/shadow"]}, "absolute_path"),
        ({"source_files": ["src/../../x.py"]}, "path_outside_repo"),
        ({"test_files": ["tests/a b.py"]}, "shell_metachar"),
    ],
)
def test_validate_rejects_bad_spec_with_exit_2_and_writes_nothing(checkout: Path, change, kind):
    bad = checkout / "tasks" / "click" / "click-9.json"
    bad.write_text(json.dumps({**GOOD_PR, "task_id": "click-9", **change}))
    before = _tree(checkout)
    result = _bench("validate", cwd=checkout)
    assert result.returncode == 2, result.stderr
    assert f"{kind}:" in result.stderr
    assert "click-9.json" in result.stderr
    assert _tree(checkout) == before


def test_validate_rejects_duplicate_ids_across_files(checkout: Path):
    (checkout / "tasks" / "click" / "copy.json").write_text(json.dumps(GOOD_PR))
    result = _bench("validate", cwd=checkout)
    assert result.returncode == 2
    assert "duplicate_id" in result.stderr


def test_validate_and_list_on_good_tree(checkout: Path):
    assert _bench("validate", cwd=checkout).returncode == 0
    listed = _bench("list", "--json", cwd=checkout)
    assert listed.returncode == 0
    assert json.loads(listed.stdout)["task_id"] == "click-2345"


def test_unknown_verb_and_bad_selector_are_usage_errors(checkout: Path):
    assert _bench("frobnicate", cwd=checkout).returncode == 2
    result = _bench("list", "lib:nothing", cwd=checkout)
    assert result.returncode == 2
    assert "matches no task" in result.stderr


def test_outside_a_checkout_is_a_usage_error(tmp_path: Path):
    result = _bench("list", cwd=tmp_path, env={"BENCH_ROOT": ""})
    assert result.returncode == 2
    assert "BENCH_ROOT" in result.stderr


def test_committed_task_specs_all_validate():
    from bench.spec.load import discover, load_all
    from bench.variables import find_root

    specs = load_all(discover(find_root()))
    assert len({s.task_id for s in specs}) == len(specs)


def test_validate_synthetic_proves_a_task_sound_and_names_an_unsound_one(tmp_path: Path):
    from bench.testing.support import checkout_root

    root = checkout_root()
    good = _bench("validate", "--synthetic", "tasks/synthetic/caesar_shift.json", cwd=root)
    assert good.returncode == 0, good.stderr[-2000:]
    assert good.stdout.splitlines()[0].startswith("ok   synthetic.caesar_shift")
    assert good.stdout.splitlines()[-1] == "1 passed, 0 failed"
    spec = json.loads((root / "tasks/synthetic/caesar_shift.json").read_text())
    moved = spec["pass_to_pass"].pop(0)
    spec["fail_to_pass"] = spec["fail_to_pass"] + [moved]  # a target that already passes at base
    (tmp_path / "caesar_shift.json").write_text(json.dumps(spec))
    bad = _bench("validate", "--synthetic", str(tmp_path / "caesar_shift.json"), cwd=root)
    assert bad.returncode == 1, bad.stderr[-2000:]
    assert bad.stdout.splitlines()[0].startswith("FAIL synthetic.caesar_shift")
    assert "Traceback" not in bad.stderr
