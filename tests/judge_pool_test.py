"""`bench pool judge` on real git repositories: the change's own changelog fragment decides, the judgement is
written into the spec's provenance, and the spec's identity (spec_sha256, which certificates and records cite)
does not change."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bench.testing.support import run_bench

SPEC = {"schema_version": 1, "kind": "pr", "source_files": ["calc.py"], "test_files": ["tests/test_calc.py"],
        "fail_to_pass": ["tests/test_calc.py::test_add"], "pass_to_pass": [], "image": "trixie-py313",
        "provenance": {"source": "pull-request", "pr_number": 3, "title": "Make add behave (#3)"}}


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "HOME": str(repo.parent), "PATH": "/usr/bin:/bin"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def _repository(folder: Path, fragment: str) -> tuple[str, str]:
    folder.mkdir(parents=True)
    _git(folder, "init", "-q")
    (folder / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-q", "-m", "base")
    (folder / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (folder / "tests").mkdir()
    (folder / "tests" / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    (folder / "changes").mkdir()
    (folder / "changes" / fragment).write_text("add adds.\n")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-q", "-m", "Make add behave (#3)")
    return _git(folder, "rev-parse", "HEAD~1").strip(), _git(folder, "rev-parse", "HEAD").strip()


def test_the_projects_fragment_decides_and_the_judgement_is_recorded_outside_the_identity(tmp_path):
    root = tmp_path / "bench"
    (root / "tasks" / "calc").mkdir(parents=True)
    (root / "pants.toml").write_text("")
    for name, fragment in (("calc-1", "3.bugfix.rst"), ("calc-2", "3.feature.rst")):
        base, fix = _repository(tmp_path / "repos" / name, fragment)
        doc = dict(SPEC, task_id=name, repo=str(tmp_path / "repos" / name), base_sha=base, fix_sha=fix,
                   lockfile=f"lockfiles/tasks/{name}.lock")
        (root / "tasks" / "calc" / f"{name}.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    env = {"BENCH_ROOT": str(root), "BENCH_CACHE_DIR": str(tmp_path / "cache")}
    before = run_bench("pool", "stats", "--json", cwd=root, env=env)
    done = run_bench("pool", "judge", "--write", cwd=root, env=env)
    assert done.returncode == 0, done.stderr
    assert [line.split("\t")[:2] for line in done.stdout.splitlines()] == [["calc-1", "bugfix"], ["calc-2", "feature"]]
    assert "2 judged: bugfix 1, feature 1; 0 with over-specified tests; written" in done.stderr
    written = json.loads((root / "tasks" / "calc" / "calc-2.json").read_text())["provenance"]["judgement"]
    assert (written["verdict"], written["signals"]) == ("feature", ["project:feature"])
    after = run_bench("pool", "stats", "--json", cwd=root, env=env)
    assert json.loads(after.stdout)["digest"] == json.loads(before.stdout)["digest"]  # spec_sha256 unchanged
    listed = run_bench("list", "judgement:bugfix", cwd=root, env=env)
    assert listed.stdout.split("\t")[0] == "calc-1"
