"""scripts/pr_readings.py on a scratch checkout: a reader's table goes into tasks/_readings/pr.json, a task read
false leaves the pool with its history (git mv) and its BUILD target, and the material refuses to be written
into the checkout."""

import json
import shutil
import subprocess
import sys

import bench.gate.pants_targets  # noqa: F401  (the script imports these: named here so the build ships them)
import bench.gate.pr_material  # noqa: F401
import bench.gate.pr_readings  # noqa: F401
from bench.testing.support import checkout_root, empty_checkout, load_task

SCRIPT = checkout_root() / "scripts" / "pr_readings.py"
TASKS = ("arrow-1042", "arrow-1057")


def _checkout(tmp_path):
    root = empty_checkout(tmp_path / "checkout")
    (root / "tasks" / "arrow").mkdir()
    for task in TASKS:
        shutil.copy(load_task(task).path, root / "tasks" / "arrow")  # in the pool or retired: the spec is the same
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-qm", "pool"], cwd=root,
                   check=True)
    return root


def _run(root, *args):
    env = {"PATH": "/usr/bin:/bin", "BENCH_ROOT": str(root), "HOME": str(root)}
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=root, env=env, capture_output=True, text=True)


def test_import_records_the_table_and_retires_the_task_read_false(tmp_path):
    root = _checkout(tmp_path)
    table = tmp_path / "table.md"
    table.write_text("| # | task | verdict | why |\n|---|---|---|---|\n"
                     "| 1 | arrow-1042 | false: R1 | an entry under Added |\n"
                     "| 2 | arrow-1057 | good | the Russian word was wrong |\n")
    done = _run(root, "import", str(table), "--reading", "reader A (2026-12-05)", "--retire")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["2 read as 'reader A (2026-12-05)': 1 false, 0 questionable",
                                            "retired arrow-1042"]
    assert json.loads((root / "tasks" / "_readings" / "pr.json").read_text()) == {
        "arrow-1042": [{"reading": "reader A (2026-12-05)", "verdict": "false: R1", "why": "an entry under Added"}],
        "arrow-1057": [{"reading": "reader A (2026-12-05)", "verdict": "good", "why": "the Russian word was wrong"}]}
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout
    assert "R  tasks/arrow/arrow-1042.json -> tasks/_retired/arrow/arrow-1042.json" in status
    build = (root / "tasks" / "arrow" / "BUILD").read_text()
    assert 'name="arrow-1057"' in build and "arrow-1042" not in build
    assert _run(root, "unread").stdout.split() == ["arrow-1057"]  # read once: one more reading to go


def test_a_table_naming_an_unknown_task_changes_nothing(tmp_path):
    root = _checkout(tmp_path)
    table = tmp_path / "table.md"
    table.write_text("| 1 | arrow-1057 | good | fine |\n| 2 | arrow-9999 | good | fine |\n")
    done = _run(root, "import", str(table), "--reading", "A")
    assert done.returncode != 0 and "not PR tasks of this checkout: ['arrow-9999']" in done.stderr
    assert not (root / "tasks" / "_readings" / "pr.json").exists()
    table.write_text("| 1 | arrow-1057 | questionable | fine |\n")
    done = _run(root, "import", str(table), "--reading", "A")
    assert done.returncode == 2 and "names no criterion" in done.stderr


def test_material_is_never_written_into_the_checkout(tmp_path):
    root = _checkout(tmp_path)
    done = _run(root, "material", str(root / "material"), "arrow-1042")
    assert done.returncode != 0 and "is inside the checkout" in done.stderr
    assert not (root / "material").exists()
