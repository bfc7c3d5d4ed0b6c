"""Reverted fixes, read from a real git repository made here: which commits become candidates, and exactly what
each candidate puts back."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench.errors import UsageError
from bench.mutate import history
from bench.source.mutation_site import text_sha256

BUGGY = """\
def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return low
    return value


def first(items):
    return items[0]
"""


def _git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b",
           "GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z", "HOME": str(repo)}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def _commit(repo: Path, path: str, text: str, subject: str) -> str:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", subject)
    return _git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def project(tmp_path: Path):
    """A project whose history has one behaviour fix, one typo fix, one feature and one fix of a test only;
    tagged v1.0. Returns the git dir, the released tree and the fix's commit id."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _commit(repo, "pkg/__init__.py", "", "Initial commit")
    _commit(repo, "pkg/core.py", BUGGY, "Add clamp and first")
    fixed = BUGGY.replace("        return low\n    return value", "        return high\n    return value")
    fix = _commit(repo, "pkg/core.py", fixed, "Fix clamp returning the lower bound above the range (#12)")
    typo = fixed.replace("def first(items):\n", "def first(items):\n    # the first item\n")
    _commit(repo, "pkg/core.py", typo, "Fix typo in a comment")
    _commit(repo, "pkg/core.py", typo + "\n\ndef last(items):\n    return items[-1]\n", "Add last")
    _commit(repo, "tests/test_core.py", "def test_x():\n    assert True\n", "Fix flaky test")
    _git(repo, "tag", "v1.0")
    tree = tmp_path / "tree"
    _git(repo, "worktree", "add", "-q", str(tree), "v1.0")
    return repo / ".git", tree, fix


def test_a_behaviour_fix_is_undone_in_the_released_file_and_nothing_else_is_proposed(project):
    git_dir, tree, fix = project
    fixes = history.reverted_fixes(tree, git_dir, "v1.0")
    assert [f.commit for f in fixes] == [fix]
    site = fixes[0].candidate.site
    data = (tree / "pkg/core.py").read_bytes()
    assert data[site.start : site.end] == b"        return high"
    assert site.replacement == "        return low"
    assert site.original_sha256 == text_sha256("        return high")
    assert (site.file, site.function, site.lineno, site.operator, site.engine_version, site.index) == (
        "pkg/core.py", "clamp", 5, "reverted_fix", "history", 0)
    reverted = data[: site.start] + site.replacement.encode() + data[site.end :]
    assert reverted.decode().startswith(BUGGY.split("\n\ndef first")[0])


def test_a_fix_whose_code_changed_again_before_the_release_is_not_proposed(project, tmp_path):
    git_dir, tree, _ = project
    repo = git_dir.parent
    text = (repo / "pkg/core.py").read_text().replace("        return high", "        return min(value, high)")
    _commit(repo, "pkg/core.py", text, "Simplify clamp")
    _git(repo, "tag", "v1.1")
    newer = tmp_path / "newer"
    _git(repo, "worktree", "add", "-q", str(newer), "v1.1")
    assert history.reverted_fixes(newer, git_dir, "v1.1") == ()


@pytest.mark.parametrize(("subject", "is_fix"), [
    ("Fix clamp returning the lower bound (#12)", True),
    ("fix: wrong index when the list is empty", True),
    ("Correct an off-by-one in the window", True),
    ("Fix typo in docstring", False),
    ("Fix parsing of comments in a WHERE clause and add tests", True),
    ("fix flake8 finding", False),
    ("Fix #256: Deprecate MRUCache class.", False),
    ("Add support for Python 3.13 (fixes #88)", False),
    ("Revert \"Fix the parser\"", False),
    ("Speed up the tokenizer", False),
])
def test_only_subjects_that_claim_a_behaviour_fix_count(subject, is_fix):
    assert history.is_fix_subject(subject) is is_fix


def test_the_release_tag_is_found_with_or_without_a_v_and_a_missing_one_is_a_clear_error(project):
    git_dir, _, _ = project
    assert history.resolve_tag(git_dir, "1.0") == "v1.0"
    with pytest.raises(UsageError, match="no tag v2.0 or 2.0"):
        history.resolve_tag(git_dir, "2.0")


def test_a_fix_made_before_the_package_moved_under_src_is_found_at_its_new_path(project, tmp_path):
    git_dir, _, fix = project
    repo = git_dir.parent
    _git(repo, "mv", "pkg", "src")
    (repo / "src" / "pkg").mkdir()
    for name in ("__init__.py", "core.py"):
        _git(repo, "mv", f"src/{name}", f"src/pkg/{name}")
    _git(repo, "commit", "-q", "-m", "Move the package under src")
    _git(repo, "tag", "v2.0")
    moved = tmp_path / "moved"
    _git(repo, "worktree", "add", "-q", str(moved), "v2.0")
    fixes = history.reverted_fixes(moved, git_dir, "v2.0")
    assert [(f.commit, f.candidate.site.file) for f in fixes] == [(fix, "src/pkg/core.py")]
