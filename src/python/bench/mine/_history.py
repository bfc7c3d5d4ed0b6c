"""The git plumbing the miner needs: the first-parent line of the default branch and what each commit changed.

Everything here reads a (bare) repository through :func:`bench.source.git_command.git`, so no hook, filter or config
of the mined repository ever runs. Output order is git's and therefore deterministic for a given history.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from bench.errors import SourceError
from bench.source.git_command import git, git_try

# Field and record separators for `git log --format`: bytes that cannot occur in a subject or body line.
_FS, _RS = "\x1f", "\x1e"


@dataclass(frozen=True)
class Commit:
    sha: str
    parents: tuple[str, ...]
    committed_at: str  # committer date in UTC, ISO 8601 with a Z (the merge time for merges and squashes)
    subject: str
    body: str


@dataclass(frozen=True)
class FileChange:
    path: str  # the path after the change (the new path of a rename)
    status: str  # A, M, D, R (rename), C (copy), T (type change)
    added: int  # changed lines; 0 for binary files
    deleted: int
    old_path: str = ""  # renames and copies: the path before


def default_branch(git_dir: Path) -> str:
    """The ref HEAD points at (a mirror's default branch), e.g. ``refs/heads/main``."""
    out = git_try(["symbolic-ref", "-q", "HEAD"], git_dir=git_dir)
    ref = (out or b"").decode().strip()
    if ref and git_try(["rev-parse", "-q", "--verify", ref + "^{commit}"], git_dir=git_dir) is not None:
        return ref
    for name in ("refs/heads/main", "refs/heads/master"):
        if git_try(["rev-parse", "-q", "--verify", name + "^{commit}"], git_dir=git_dir) is not None:
            return name
    raise SourceError(f"{git_dir}: cannot find the default branch (HEAD, main or master)")


def resolve(git_dir: Path, ref: str) -> str:
    return git(["rev-parse", "--verify", ref + "^{commit}"], git_dir=git_dir).decode().strip()


def first_parent_log(git_dir: Path, ref: str) -> tuple[Commit, ...]:
    """Commits on the first-parent line of `ref`, newest first (git's own order for --first-parent)."""
    return _log(git_dir, ["--first-parent", ref])


def _log(git_dir: Path, selection: list[str]) -> tuple[Commit, ...]:
    fmt = _FS.join(("%H", "%P", "%ct", "%s", "%b")) + _RS
    out = git(["log", "--no-color", "--encoding=UTF-8", f"--format={fmt}", *selection],
              git_dir=git_dir).decode("utf-8", "replace")
    commits = []
    for record in out.split(_RS):
        record = record.lstrip("\n")
        if not record:
            continue
        sha, parents, epoch, subject, body = record.split(_FS, 4)
        commits.append(Commit(sha, tuple(parents.split()), utc_iso(int(epoch)), subject.strip(), body.strip()))
    return tuple(commits)


def utc_iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def changed_files(git_dir: Path, base: str, fix: str) -> tuple[FileChange, ...]:
    """What `fix` changed relative to `base`, renames detected, sorted by path."""
    statuses = _name_status(git_dir, base, fix)
    counts = _numstat(git_dir, base, fix)
    changes = []
    for path, (status, old) in sorted(statuses.items()):
        added, deleted = counts.get(path, (0, 0))
        changes.append(FileChange(path, status, added, deleted, old))
    return tuple(changes)


def _name_status(git_dir: Path, base: str, fix: str) -> dict[str, tuple[str, str]]:
    out = git(["diff", "--no-color", "--no-ext-diff", "--name-status", "-z", "-M", base, fix],
              git_dir=git_dir).decode("utf-8", "replace")
    fields = out.split("\0")
    result: dict[str, tuple[str, str]] = {}
    index = 0
    while index < len(fields) and fields[index]:
        status = fields[index][0]
        if status in "RC":
            old, new = fields[index + 1], fields[index + 2]
            result[new] = (status if fields[index][1:] != "100" else status + "100", old)
            index += 3
        else:
            result[fields[index + 1]] = (status, "")
            index += 2
    return result


def _numstat(git_dir: Path, base: str, fix: str) -> dict[str, tuple[int, int]]:
    out = git(["diff", "--no-color", "--no-ext-diff", "--numstat", "-z", "-M", base, fix],
              git_dir=git_dir).decode("utf-8", "replace")
    fields = out.split("\0")
    result: dict[str, tuple[int, int]] = {}
    index = 0
    while index < len(fields) and fields[index]:
        added, deleted, path = fields[index].split("\t", 2)
        if path == "":  # a rename: the old and the new path follow as their own fields
            path = fields[index + 2]
            index += 3
        else:
            index += 1
        result[path] = (_count(added), _count(deleted))
    return result


def _count(text: str) -> int:
    return int(text) if text.isdigit() else 0  # "-" for binary files


def existing_paths(git_dir: Path, sha: str, paths: tuple[str, ...]) -> frozenset[str]:
    """Which of `paths` are regular files (blobs) in the tree of `sha`."""
    if not paths:
        return frozenset()
    out = git(["ls-tree", "-r", "-z", sha, "--", *paths], git_dir=git_dir).decode("utf-8", "replace")
    found = set()
    for entry in out.split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        mode, kind, _ = meta.split()
        if kind == "blob" and mode in ("100644", "100755"):
            found.add(path)
    return frozenset(found)


def brought_in(git_dir: Path, merge: Commit) -> tuple[Commit, ...]:
    """The commits a merge brings in from its other parents, on their first-parent lines down to what the first
    parent already had, newest first: a maintenance branch's own history since it last met the main line."""
    if len(merge.parents) < 2:
        return ()
    found: list[Commit] = []
    for other in merge.parents[1:]:
        found.extend(_log(git_dir, ["--first-parent", other, f"^{merge.parents[0]}"]))
    return tuple(found)


def branch_dates(git_dir: Path) -> tuple[tuple[str, str], ...]:
    """Each branch and the date of its newest commit (ISO day), newest first."""
    out = git(["for-each-ref", "--sort=-committerdate", "--format=%(refname) %(committerdate:short)", "refs/heads"],
              git_dir=git_dir).decode("utf-8", "replace")
    return tuple(tuple(line.split(" ", 1)) for line in out.splitlines() if " " in line)
