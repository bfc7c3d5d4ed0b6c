"""The synthetic source: authored tasks kept in this repository, materialised into a small local git repo.

A synthetic task lives in ``tasks/synthetic/<slug>/``::

    SPEC.md                 what the model is told
    initial/<module>.py     the buggy implementation (one file per entry of ``source_files``)
    reference/<module>.py   a correct implementation (same file set)
    tests/test_<module>.py  the hidden tests (every file under tests/ is copied)

:func:`materialise` turns it into a git repository with two commits: the base commit holds ``SPEC.md`` and the
initial modules at the repository root, the fix commit replaces them by the reference modules and adds
``tests/``. Identity, dates and git configuration are fixed, so the same files always give the same shas.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bench.errors import SourceError, SpecError
from bench.spec.model import TaskSpec

FileTree = tuple[tuple[str, str], ...]  # (repo-relative posix path, text), sorted by path

SPEC_FILE = "SPEC.md"
_IGNORED_PARTS = frozenset({"__pycache__", ".pytest_cache"})

# Fixed identity and clock: commit shas depend on them, and they must not come from the host.
_AUTHOR = ("loopcontrolbench", "synthetic@loopcontrolbench.invalid")
_BASE_DATE = "2024-01-01T00:00:00+00:00"
_FIX_DATE = "2024-01-01T00:01:00+00:00"
_GIT_CONFIG = (
    f"user.name={_AUTHOR[0]}",
    f"user.email={_AUTHOR[1]}",
    "commit.gpgsign=false",
    "core.autocrlf=false",
    "core.fileMode=true",
    "core.hooksPath=/dev/null",
    "init.defaultBranch=main",
)


@dataclass(frozen=True)
class SyntheticFiles:
    """Every file of one synthetic task, as text, keyed by the path it gets in the materialised repo."""

    task_id: str
    spec_text: FileTree  # (("SPEC.md", text),)
    initial: FileTree  # paths equal the spec's source_files
    reference: FileTree  # same paths as initial
    tests: FileTree  # paths start with "tests/"

    @property
    def base_tree(self) -> FileTree:
        """What the base commit holds: the spec text and the initial modules."""
        return _sorted_tree(self.spec_text + self.initial)

    @property
    def fix_tree(self) -> FileTree:
        """What the fix commit holds: the spec text, the reference modules and the tests."""
        return _sorted_tree(self.spec_text + self.reference + self.tests)


@dataclass(frozen=True)
class Materialised:
    repo_path: Path
    base_sha: str
    fix_sha: str


def task_dir(spec: TaskSpec, *, root: Path | None = None) -> Path:
    """The folder of a synthetic task, resolved against ``root`` or the benchmark checkout holding the spec."""
    if spec.kind != "synthetic" or not spec.synthetic_dir:
        raise SpecError(f"{spec.task_id} is not a synthetic task", kind="not-synthetic", path=spec.path)
    relative = _safe_relative(spec.synthetic_dir, spec)
    for base in _candidate_roots(spec, root):
        candidate = base / relative
        if candidate.is_dir():
            return candidate
    raise SpecError(
        f"synthetic dir {spec.synthetic_dir!r} not found", kind="synthetic-dir-missing", path=spec.path
    )


def load_synthetic_files(spec: TaskSpec, *, root: Path | None = None) -> SyntheticFiles:
    """Read a synthetic task's files and check they match the spec's source_files and test_files."""
    folder = task_dir(spec, root=root)
    spec_path = folder / SPEC_FILE
    if not spec_path.is_file():
        raise SpecError(f"{folder} has no {SPEC_FILE}", kind="synthetic-layout", path=spec.path)
    files = SyntheticFiles(
        task_id=spec.task_id,
        spec_text=((SPEC_FILE, _read_text(spec_path)),),
        initial=_read_tree(folder / "initial", ""),
        reference=_read_tree(folder / "reference", ""),
        tests=_read_tree(folder / "tests", "tests/"),
    )
    _check_layout(spec, files)
    return files


def materialise(spec: TaskSpec, dest: Path, *, root: Path | None = None) -> Materialised:
    """Build the task's git repo at ``dest`` (absent or empty): base = SPEC.md + initial, fix = reference + tests."""
    files = load_synthetic_files(spec, root=root)
    dest = Path(dest).absolute()
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise SourceError(f"destination {dest} exists and is not an empty directory")
    dest.parent.mkdir(parents=True, exist_ok=True)
    # Build beside the destination and move it into place, so a crash never leaves a half-built repo at dest.
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    home = Path(tempfile.mkdtemp(prefix="bench-git-home-"))
    try:
        env = _git_env(home)
        _git(staging, env, "init", "-q", "--template=", "-b", "main", ".")
        base_sha = _commit_tree(staging, env, files.base_tree, _BASE_DATE, f"{spec.task_id}: initial import")
        fix_sha = _commit_tree(staging, env, files.fix_tree, _FIX_DATE, "Reference solution and tests")
        if dest.exists():
            dest.rmdir()
        os.replace(staging, dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return Materialised(repo_path=dest, base_sha=base_sha, fix_sha=fix_sha)


def write_tree(tree: FileTree, dest: Path) -> None:
    """Write text files byte-exactly (no newline translation) under ``dest``."""
    for relative, text in tree:
        target = dest / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
        target.chmod(0o644)


def _commit_tree(repo: Path, env: dict[str, str], tree: FileTree, date: str, message: str) -> str:
    """Make the work tree equal ``tree`` and commit it; returns the commit sha."""
    for entry in repo.iterdir():
        if entry.name != ".git":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    write_tree(tree, repo)
    dated = dict(env, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    _git(repo, dated, "add", "-A", ".")
    _git(repo, dated, "commit", "-q", "--no-verify", "--allow-empty", "-m", message)
    return _git(repo, dated, "rev-parse", "HEAD").strip()


def _git_env(home: Path) -> dict[str, str]:
    """A minimal environment: nothing from the host's git configuration or identity leaks into commits."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": _AUTHOR[0],
        "GIT_AUTHOR_EMAIL": _AUTHOR[1],
        "GIT_COMMITTER_NAME": _AUTHOR[0],
        "GIT_COMMITTER_EMAIL": _AUTHOR[1],
        "LC_ALL": "C",
        "TZ": "UTC",
    }


def _git(repo: Path, env: dict[str, str], *args: str) -> str:
    config = [part for item in _GIT_CONFIG for part in ("-c", item)]
    try:
        done = subprocess.run(
            ["git", *config, *args], cwd=repo, env=env, capture_output=True, text=True, check=False
        )
    except OSError as exc:
        raise SourceError(f"cannot run git: {exc}") from exc
    if done.returncode != 0:
        raise SourceError(f"git {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def _candidate_roots(spec: TaskSpec, root: Path | None):
    if root is not None:
        yield Path(root)
        return
    # The checkout holding the spec file, then the working directory's, then the one holding this module.
    starts = [Path(spec.path).absolute().parent] if spec.path else []
    starts += [Path.cwd(), Path(__file__).absolute().parent]
    for start in starts:
        yield start
        yield from start.parents


def _safe_relative(value: str, spec: TaskSpec) -> PurePosixPath:
    relative = PurePosixPath(value)
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        raise SpecError(f"synthetic dir {value!r} must be a relative path inside the checkout",
                        kind="path-outside", path=spec.path)
    return relative


def _read_tree(folder: Path, prefix: str) -> FileTree:
    if not folder.is_dir():
        return ()
    entries = []
    for path in folder.rglob("*"):
        relative = path.relative_to(folder)
        if path.is_file() and not _IGNORED_PARTS.intersection(relative.parts) and path.suffix != ".pyc":
            entries.append((prefix + relative.as_posix(), _read_text(path)))
    return _sorted_tree(entries)


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(f"{path} is not UTF-8 text", kind="synthetic-layout") from exc


def _check_layout(spec: TaskSpec, files: SyntheticFiles) -> None:
    wanted = sorted(spec.source_files)
    for label, tree in (("initial", files.initial), ("reference", files.reference)):
        found = [path for path, _ in tree]
        if found != wanted:
            raise SpecError(f"{label}/ holds {found}, source_files say {wanted}",
                            kind="synthetic-layout", path=spec.path)
    test_paths = {path for path, _ in files.tests}
    missing = sorted(set(spec.test_files) - test_paths)
    if missing or not spec.test_files:
        raise SpecError(f"test files missing under tests/: {missing or 'none listed'}",
                        kind="synthetic-layout", path=spec.path)
    if set(spec.source_files) & test_paths or SPEC_FILE in spec.source_files:
        raise SpecError("source_files overlap the tests or SPEC.md", kind="synthetic-layout", path=spec.path)


def _sorted_tree(entries) -> FileTree:
    return tuple(sorted(entries))
