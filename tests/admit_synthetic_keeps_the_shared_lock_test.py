"""Adding a synthetic task leaves the reference alone: `bench admit` of a new synthetic task keeps the lock all
synthetic tasks share, so every other synthetic task's lock and certificate stay byte for byte what they were
(re-resolving that lock changed them all, and the committed study no longer reproduced). The spec is written
as `tasks/synthetic/<slug>.json` like every other, and admission says what the scripted study needs next,
which `bench score --model scripted` asks for too (exit 2) until it is made. A task the shared lock does not
serve is refused before anything is written, naming --relock."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bench.model.scripted import GENERATE_COMMAND
from bench.testing.support import checkout_root, empty_checkout, run_bench

KEPT = ("caesar_shift", "anagram_groups")
NEW = "clamp_range"
FILES = {
    "SPEC.md": "`clamp(value, low, high)` returns value kept within [low, high].\n",
    "initial/clamp.py": "def clamp(value, low, high):\n    if value < low:\n        return low\n    return value\n",
    "reference/clamp.py": ("def clamp(value, low, high):\n    if value < low:\n        return low\n"
                           "    if value > high:\n        return high\n    return value\n"),
    "tests/test_clamp.py": ("from clamp import clamp\n\n\ndef test_below():\n    assert clamp(-3, 0, 9) == 0\n\n\n"
                            "def test_inside():\n    assert clamp(4, 0, 9) == 4\n\n\n"
                            "def test_above():\n    assert clamp(12, 0, 9) == 9\n"),
}


def _checkout(folder: Path) -> Path:
    """A checkout holding two admitted synthetic tasks with their shared lock and certificates."""
    root, source = empty_checkout(folder), checkout_root()
    for slug in KEPT:
        shutil.copytree(source / "tasks" / "synthetic" / slug, root / "tasks" / "synthetic" / slug)
        shutil.copy(source / "tasks" / "synthetic" / f"{slug}.json", root / "tasks" / "synthetic")
        certificate = Path("results") / "certificates" / f"synthetic.{slug}.json.gz"
        (root / certificate).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source / certificate, root / certificate)
    shutil.copy(source / "lockfiles" / "tasks" / "synthetic.lock", root / "lockfiles" / "tasks")
    (root / "tasks" / "synthetic" / "_scripted" / "study").mkdir(parents=True)
    return root


def _candidate(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / "tasks" / "synthetic" / NEW / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "tasks" / "synthetic" / NEW / name).write_text(text)
    doc = {"schema_version": 1, "task_id": f"synthetic.{NEW}", "kind": "synthetic", "repo": f"synthetic/{NEW}",
           "source_files": ["clamp.py"], "test_files": ["tests/test_clamp.py"],
           "fail_to_pass": ["tests/test_clamp.py::test_above"],
           "pass_to_pass": ["tests/test_clamp.py::test_below", "tests/test_clamp.py::test_inside"],
           "image": "trixie-py313-slim", "lockfile": "lockfiles/tasks/synthetic.lock",
           "provenance": {"source": "authored"}, "difficulty": "easy", "synthetic": {"dir": f"tasks/synthetic/{NEW}"}}
    path = root / "candidates" / f"synthetic.{NEW}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(doc, indent=2))
    return path


def _shared_state(root: Path) -> dict[str, bytes]:
    paths = [Path("lockfiles/tasks/synthetic.lock")]
    for slug in KEPT:
        paths += [Path(f"tasks/synthetic/{slug}.json"), Path(f"results/certificates/synthetic.{slug}.json.gz")]
    return {str(path): (root / path).read_bytes() for path in paths}


def test_admitting_a_synthetic_task_changes_no_other_synthetic_tasks_lock_or_certificate(tmp_path):
    root = _checkout(tmp_path / "checkout")
    before = _shared_state(root)
    env = {"BENCH_ROOT": str(root)}
    done = run_bench("admit", str(_candidate(root, FILES)), cwd=root, env=env, timeout=1200)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert done.stdout.startswith(f"admitted synthetic.{NEW}: admitted f2p=1")
    assert _shared_state(root) == before
    assert (root / "tasks" / "synthetic" / f"{NEW}.json").is_file()  # named as every synthetic spec is
    assert not (root / "tasks" / "synthetic" / f"synthetic.{NEW}.json").exists()
    assert (root / "results" / "certificates" / f"synthetic.{NEW}.json.gz").is_file()
    assert (root / "results" / "certificates" / "inputs" / f"synthetic.{NEW}.json").is_file()
    assert GENERATE_COMMAND in done.stderr  # what the scripted study needs next

    scored = run_bench("score", "--model", "scripted", "--tasks", f"synthetic.{NEW}", "--out", str(tmp_path / "run"),
                       cwd=root, env=env)
    assert scored.returncode == 2, scored.stderr[-2000:]
    assert GENERATE_COMMAND in scored.stderr


def test_a_task_the_shared_lock_does_not_serve_is_refused_before_anything_is_written(tmp_path):
    root = _checkout(tmp_path / "checkout")
    before = _shared_state(root)
    needs_attrs = dict(FILES, **{"tests/test_clamp.py": "import attrs\n" + FILES["tests/test_clamp.py"]})
    done = run_bench("admit", str(_candidate(root, needs_attrs)), cwd=root, env={"BENCH_ROOT": str(root)})
    assert done.returncode == 2, done.stdout + done.stderr[-3000:]
    assert "attrs" in done.stderr and "--relock" in done.stderr and "every synthetic task" in done.stderr
    assert _shared_state(root) == before
    assert not (root / "tasks" / "synthetic" / f"{NEW}.json").exists()
    assert not list((root / "tasks" / "_dropped").iterdir())


def test_a_synthetic_candidate_not_named_after_its_folder_is_refused(tmp_path):
    root = _checkout(tmp_path / "checkout")
    candidate = _candidate(root, FILES)
    doc = json.loads(candidate.read_text())
    candidate.write_text(json.dumps(dict(doc, task_id="synthetic.clamp")))
    done = run_bench("admit", str(candidate), cwd=root, env={"BENCH_ROOT": str(root)})
    assert done.returncode == 2, done.stdout + done.stderr[-3000:]
    assert f"must be named synthetic.{NEW}" in done.stderr
