"""Cross-kind twins on a real git repository: a reverted-fix mutation task re-planting a commit of a PR task's
merged branch, or its fix commit, is the same bug; one re-planting another commit is not."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from bench.gate.twins import Twin, distinct_bugs, distinct_bugs_line, find_twins
from bench.spec.load import spec_from_document
from bench.testing.support import load_task

MUTATION = json.loads(Path(load_task("mutation.arrow.1.4.0.32c9ae38").path).read_text(encoding="utf-8"))


def _git(repo: Path, *argv: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    return subprocess.run(["git", *argv], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout.strip()


def _commit(repo: Path, name: str, text: str) -> str:
    (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--no-gpg-sign", "-m", name)
    return _git(repo, "rev-parse", "HEAD")


def _history(tmp_path: Path):
    """base, an unrelated later commit, a PR branch of two commits merged as the fix."""
    repo = tmp_path / "example+shapes"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    base = _commit(repo, "shapes.py", "v1\n")
    _git(repo, "checkout", "-q", "-b", "pr")
    first = _commit(repo, "shapes.py", "v2\n")
    _commit(repo, "notes.txt", "n\n")
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "Merge pull request #7", "pr")
    fix = _git(repo, "rev-parse", "HEAD")
    later = _commit(repo, "other.py", "x\n")
    return repo, base, first, fix, later


def _pr(task_id: str, base: str, fix: str):
    return spec_from_document({
        "schema_version": 1, "task_id": task_id, "kind": "pr", "repo": "example/shapes", "source_files": ["shapes.py"],
        "test_files": ["test_shapes.py"], "fail_to_pass": ["test_shapes.py::test_area"], "pass_to_pass": [],
        "image": "trixie-py313", "lockfile": f"lockfiles/tasks/{task_id}.lock", "base_sha": base, "fix_sha": fix,
        "provenance": {"source": "pull-request", "pr_number": 7, "url": "https://example.invalid/pull/7"}},
        path=f"{task_id}.json")


def _mutation(task_id: str, commit: str):
    doc = dict(MUTATION, task_id=task_id, provenance={"source": "mutation", "reverted_commit": commit})
    return spec_from_document(doc, path=f"{task_id}.json")


def test_a_reverted_commit_of_a_pr_tasks_merged_branch_or_its_fix_commit_is_the_same_bug(tmp_path):
    repo, base, first, fix, later = _history(tmp_path)
    specs = [_pr("shapes-7", base, fix), _mutation("mutation.a", first), _mutation("mutation.b", fix),
             _mutation("mutation.c", later), _mutation("mutation.d", base)]
    found = find_twins(specs, mirror_of=lambda name: repo / ".git")
    assert found == (Twin("mutation.a", "shapes-7", "pr-commit"), Twin("mutation.b", "shapes-7", "fix-commit"))
    assert distinct_bugs(specs, found) == {"items": 5, "duplicates": 2, "distinct": 3}
    # without history only the fix commit itself is known (and a shared failing test on the same file)
    assert find_twins(specs, mirror_of=lambda name: None) == (Twin("mutation.b", "shapes-7", "fix-commit"),)
    assert distinct_bugs_line(specs, tmp_path) == "distinct bugs: 4 (5 items; 1 cross-kind duplicates)"
