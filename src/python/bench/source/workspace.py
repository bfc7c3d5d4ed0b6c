"""One entry point for every task kind: a host folder holding the repository as one side of a task.

- side ``base``: the buggy tree with the fix's test files overlaid (what a model is scored against);
- side ``fix``: the same plus the fix's version of the source files (what the gate checks passes).

The fix side deliberately takes only ``source_files`` from the fix: the gate then proves that editing those
files alone is enough, which is all a model is allowed to edit.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from bench.errors import SpecError
from bench.source.git_command import git
from bench.spec.kind_registry import get_kind
from bench.spec.model import TaskSpec

SIDES = ("base", "fix")
# Files that could tell the model what the original code was, or make stale code run.
LEAKY_NAMES = ("__pycache__", ".git", ".hg", ".pytest_cache", ".tox", ".nox")


@dataclass(frozen=True)
class Workspace:
    task_id: str
    side: str
    path: Path
    scm_version: str  # a version for builds that derive it from VCS history, which the workspace lacks
    tree_digest: str  # sha256 over the tree's paths and contents (before any edit)


def prepare(spec: TaskSpec, side: str, dest: Path, *, mirror: Path | None = None) -> Workspace:
    if side not in SIDES:
        raise SpecError(f"unknown side {side!r}", kind="bad_value")
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    version = get_kind(spec.kind).lay_out(spec, side, dest, mirror=mirror)  # where the code comes from
    _scrub(dest)
    _snapshot(dest)
    return Workspace(spec.task_id, side, dest, version, tree_digest(dest))


def lay_out_synthetic(spec: TaskSpec, side: str, dest: Path) -> str:
    """Synthetic tasks are materialised afresh (two commits, deterministic) and exported like a real repo."""
    import tempfile

    from bench.source.synthetic import materialise

    with tempfile.TemporaryDirectory(prefix="bench-synthetic-") as scratch:
        made = materialise(spec, Path(scratch) / "repo")
        return lay_out_from_git(spec, side, dest, made.repo_path / ".git", made.base_sha, made.fix_sha)


def lay_out_from_git(spec: TaskSpec, side: str, dest: Path, git_dir: Path, base: str, fix: str) -> str:
    """The tree at ``base`` with the fix's test files overlaid, and on the fix side its source files too."""
    from bench.source.git import describe_version, export_tree, overlay

    export_tree(git_dir, base, dest)
    overlay(git_dir, fix, spec.test_files, dest)
    if side == "fix":
        overlay(git_dir, fix, spec.source_files, dest)
    return describe_version(git_dir, base)


def lay_out_release(spec: TaskSpec, side: str, dest: Path) -> str:
    """The pinned release unpacked; on the base side with the task's mutation written into it."""
    from bench.source.mutation_site import apply_mutation
    from bench.source.sdist import fetch_sdist, unpack_sdist

    assert spec.sdist is not None and spec.mutation is not None
    tmp = dest.with_name(dest.name + ".unpack")
    shutil.rmtree(tmp, ignore_errors=True)
    root = unpack_sdist(fetch_sdist(spec.sdist), tmp)
    dest.mkdir(parents=True, exist_ok=True)  # a caller may hand a folder that does not exist yet
    for entry in root.iterdir():
        shutil.move(str(entry), dest / entry.name)
    shutil.rmtree(tmp, ignore_errors=True)
    if side == "base":
        apply_mutation(dest, spec.mutation)
    return spec.sdist.version


def _scrub(dest: Path) -> None:
    for dirpath, dirnames, _ in os.walk(dest):
        for name in list(dirnames):
            if name in LEAKY_NAMES:
                shutil.rmtree(Path(dirpath) / name)
                dirnames.remove(name)


def _snapshot(dest: Path) -> None:
    """A fresh one-commit repository of the tree as handed over: no history, no remote, no later refs.

    Kept to a handful of files (no template hooks, no reflog, objects in one pack): every scored attempt
    copies the tree, and a loose object per source file would double what it copies."""
    git(["init", "-q", "--template="], cwd=dest)
    git(["add", "-A", "-f"], cwd=dest)
    git(["-c", "core.logAllRefUpdates=false", "commit", "-q", "--no-verify", "-m", "workspace"], cwd=dest)
    git(["repack", "-a", "-d", "-q", "-n"], cwd=dest)
    git(["pack-refs", "--all"], cwd=dest)
    (dest / ".git" / "COMMIT_EDITMSG").unlink(missing_ok=True)


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            digest.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()
