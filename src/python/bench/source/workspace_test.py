"""Workspaces hold the tree at base with the fix's tests overlaid, and no history after base."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench.source.git_command import git, git_env
from bench.source.workspace import prepare, tree_digest
from bench.spec.load import spec_from_document


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(["add", "-A"], cwd=repo)
    git(["commit", "-q", "-m", message], cwd=repo)
    return git(["rev-parse", "HEAD"], cwd=repo).decode().strip()


@pytest.fixture
def upstream(tmp_path: Path, monkeypatch) -> tuple[Path, str, str]:
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    repo = tmp_path / "upstream"
    repo.mkdir()
    git(["init", "-q"], cwd=repo)
    base = _commit(repo, {"pkg/core.py": "def f():\n    return 1\n", "tests/test_core.py": "# old\n"}, "base")
    fix = _commit(repo, {"pkg/core.py": "def f():\n    return 2\n", "tests/test_core.py": "# new test\n",
                         "CHANGES": "secret fix message\n"}, "fix: the bug (#12)")
    return repo, base, fix


def _spec(base: str, fix: str):
    return spec_from_document({
        "schema_version": 1, "task_id": "demo-12", "kind": "pr", "repo": "demo/demo", "base_sha": base,
        "fix_sha": fix, "source_files": ["pkg/core.py"], "test_files": ["tests/test_core.py"],
        "fail_to_pass": [], "pass_to_pass": [], "image": "trixie-py313", "lockfile": "lockfiles/tasks/demo.lock",
        "provenance": {"source": "pull-request", "pr_number": 12},
    })


def test_base_side_has_fix_tests_but_buggy_source_and_no_later_history(upstream, tmp_path):
    repo, base, fix = upstream
    ws = prepare(_spec(base, fix), "base", tmp_path / "ws", mirror=repo)
    assert (ws.path / "pkg/core.py").read_text() == "def f():\n    return 1\n"
    assert (ws.path / "tests/test_core.py").read_text() == "# new test\n"
    assert not (ws.path / "CHANGES").exists()
    log = git(["log", "--all", "--format=%H %s"], cwd=ws.path).decode().strip().splitlines()
    assert len(log) == 1 and base not in log[0] and fix not in log[0]
    assert git(["remote"], cwd=ws.path).strip() == b""
    missing = subprocess.run(["git", "cat-file", "-e", fix], cwd=ws.path, env=git_env(), capture_output=True)
    assert missing.returncode != 0
    assert b"secret fix message" not in b"".join(p.read_bytes() for p in ws.path.rglob("*") if p.is_file())


def test_fix_side_takes_only_source_files_from_the_fix(upstream, tmp_path):
    repo, base, fix = upstream
    ws = prepare(_spec(base, fix), "fix", tmp_path / "ws", mirror=repo)
    assert (ws.path / "pkg/core.py").read_text() == "def f():\n    return 2\n"
    assert not (ws.path / "CHANGES").exists()


def test_same_inputs_give_same_tree_and_snapshot_commit(upstream, tmp_path):
    repo, base, fix = upstream
    a = prepare(_spec(base, fix), "base", tmp_path / "a", mirror=repo)
    b = prepare(_spec(base, fix), "base", tmp_path / "b", mirror=repo)
    assert a.tree_digest == b.tree_digest == tree_digest(a.path)
    assert git(["rev-parse", "HEAD"], cwd=a.path) == git(["rev-parse", "HEAD"], cwd=b.path)


def test_unknown_commit_is_a_source_error(upstream, tmp_path):
    from bench.errors import SourceError

    repo, base, _ = upstream
    with pytest.raises(SourceError):
        prepare(_spec(base, "f" * 40), "base", tmp_path / "ws", mirror=repo)


def test_a_release_is_laid_out_into_a_folder_that_does_not_exist_yet(tmp_path, monkeypatch):
    """The honest-fix scan hands a fresh path; a release whose top level is a lone file (SECURITY.md first)
    used to fail to move there."""
    from bench.source import sdist
    from bench.source.workspace import lay_out_release
    from bench.spec.load import load_spec
    from bench.testing.support import checkout_root

    def unpack(_archive, dest):
        dest.mkdir(parents=True)
        (dest / "SECURITY.md").write_text("report privately\n")
        return dest

    monkeypatch.setattr(sdist, "fetch_sdist", lambda pin: tmp_path / "unused.tar.gz")
    monkeypatch.setattr(sdist, "unpack_sdist", unpack)
    spec = load_spec(next((checkout_root() / "tasks" / "_retired" / "mutation-six").glob("*.json")))
    assert lay_out_release(spec, "fix", tmp_path / "scan" / "fix") == "1.16.0"
    assert (tmp_path / "scan" / "fix" / "SECURITY.md").read_text() == "report privately\n"
