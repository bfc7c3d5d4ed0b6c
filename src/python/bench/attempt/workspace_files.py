"""Reading and writing the editable files of a workspace safely, for edits and for unified diffs.

Rules shared by every way a model changes files:

- A path must equal one of the allowed paths after normalisation; absolute paths, ``..`` and test files
  (``test_*.py``, ``*_test.py``, ``conftest.py``) are refused even if listed (reason ``path_not_allowed``).
- No component of the path inside the workspace may be a symlink (reason ``symlink``): a previous turn's
  tests ran with the workspace writable and could have planted one pointing outside. Edits are applied while
  no sandboxed code runs, so the check cannot race with it.
- All or nothing: every new content is computed before anything is written; then temp files are written
  beside their targets and renamed into place. A failure while renaming restores the files already renamed.

Text is decoded as UTF-8 with ``surrogateescape``, so bytes that are not UTF-8 survive an edit unchanged.
"""

from __future__ import annotations

import difflib
import fnmatch
import hashlib
import os
import posixpath
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, NamedTuple

from bench.errors import EditError, InfrastructureError

TEST_FILE_PATTERNS = ("test_*.py", "*_test.py", "conftest.py")
NEW_FILE_MODE = 0o644
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


class FileChange(NamedTuple):
    path: str
    before_sha256: str  # "" when the file did not exist
    after_sha256: str  # "" when the file was deleted


@dataclass(frozen=True)
class AppliedEdits:
    files: tuple[FileChange, ...]  # (path, before_sha256, after_sha256), sorted by path
    diff: str  # unified diff of every changed file ("" when nothing changed)


def normalise_path(raw: str) -> str:
    """``./src/x.py`` -> ``src/x.py``; absolute paths and ``..`` raise EditError(path_not_allowed)."""
    path = raw.strip().replace("\\", "/")
    if not path or path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        raise EditError(f"{raw!r} is not a relative path", reason="path_not_allowed")
    if ".." in path.split("/"):
        raise EditError(f"{raw!r} leaves its directory", reason="path_not_allowed")
    normal = posixpath.normpath(path)
    if normal in (".", ""):
        raise EditError(f"{raw!r} names no file", reason="path_not_allowed")
    return normal


def check_allowed(path: str, allowed_paths: tuple[str, ...]) -> str:
    """The normalised path, if it is allowed; EditError(path_not_allowed) otherwise."""
    normal = normalise_path(path)
    name = posixpath.basename(normal)
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in TEST_FILE_PATTERNS):
        raise EditError(f"{normal} is a test file; tests are never editable", reason="path_not_allowed")
    if normal not in {posixpath.normpath(p) for p in allowed_paths}:
        raise EditError(
            f"{normal} is not an editable file (editable: {', '.join(allowed_paths)})",
            reason="path_not_allowed",
        )
    return normal


def read_text(workspace: Path, path: str) -> str | None:
    """The current content of an allowed file, or None if it does not exist yet."""
    target = _checked_target(workspace, path)
    if target is None:
        return None
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise EditError(f"cannot read {path}: {exc}", reason="path_not_allowed") from exc
    with os.fdopen(fd, "rb") as handle:
        return handle.read().decode("utf-8", "surrogateescape")


def _checked_target(workspace: Path, path: str) -> Path | None:
    """Walk the path from the workspace down; refuse symlinks and non-regular files. None = missing."""
    current = workspace
    parts = path.split("/")
    for index, part in enumerate(parts):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(mode):
            raise EditError(f"{'/'.join(parts[: index + 1])} is a symlink", reason="symlink")
        last = index == len(parts) - 1
        if not last and not stat.S_ISDIR(mode):
            raise EditError(f"{'/'.join(parts[: index + 1])} is not a directory", reason="path_not_allowed")
        if last and not stat.S_ISREG(mode):
            raise EditError(f"{path} is not a regular file", reason="path_not_allowed")
    return current


def sha256_text(text: str | None) -> str:
    if text is None:
        return ""
    return hashlib.sha256(encode(text)).hexdigest()


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def write_changes(
    workspace: Path, before: Mapping[str, str | None], after: Mapping[str, str | None]
) -> AppliedEdits:
    """Write ``after`` (see :func:`write_all`) and describe what changed."""
    changes = write_all(workspace, before, after)
    return AppliedEdits(files=changes, diff=combined_diff(before, after))


def write_all(
    workspace: Path, before: Mapping[str, str | None], after: Mapping[str, str | None]
) -> tuple[FileChange, ...]:
    """Write every ``after`` content (None deletes) all-or-nothing; return the changes, sorted by path."""
    paths = sorted(after)
    changed = [path for path in paths if after[path] != before[path]]
    for path in changed:
        _checked_target(workspace, path)  # re-check right before writing
    staged: list[tuple[Path, Path | None]] = []
    try:
        for path in changed:
            staged.append((workspace / path, _stage(workspace, path, after[path], before[path])))
    except OSError as exc:
        for _, temp in staged:
            if temp is not None:
                _unlink_quietly(temp)
        raise InfrastructureError(f"cannot write the edited files: {exc}") from exc
    _commit(staged, workspace, before)
    return tuple(FileChange(p, sha256_text(before[p]), sha256_text(after[p])) for p in paths)


def _stage(workspace: Path, path: str, content: str | None, previous: str | None) -> Path | None:
    if content is None:
        return None
    target = workspace / path
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(os.lstat(target).st_mode) if previous is not None else NEW_FILE_MODE
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".edit")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(encode(content))
        os.chmod(temp, mode)
    except OSError:
        _unlink_quietly(Path(temp))
        raise
    return Path(temp)


def _commit(
    staged: list[tuple[Path, Path | None]], workspace: Path, before: Mapping[str, str | None]
) -> None:
    done: list[Path] = []
    try:
        for target, temp in staged:
            if temp is None:
                target.unlink()
            else:
                os.replace(temp, target)
            done.append(target)
    except OSError as exc:
        for target in done:  # put back what was already replaced
            previous = before[target.relative_to(workspace).as_posix()]
            if previous is None:
                _unlink_quietly(target)
            else:
                target.write_bytes(encode(previous))
        for _, temp in staged:
            if temp is not None:
                _unlink_quietly(temp)
        raise InfrastructureError(f"cannot write the edited files: {exc}") from exc


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def split_lines(text: str) -> list[str]:
    """Lines with their ``\\n`` (only ``\\n`` ends a line, unlike str.splitlines)."""
    return _LINE.findall(text)


def unified_diff(path: str, before: str | None, after: str | None) -> str:
    """A ``diff -u`` style patch for one file, with ``\\ No newline at end of file`` where due."""
    if before == after:
        return ""
    old = "a/" + path if before is not None else "/dev/null"
    new = "b/" + path if after is not None else "/dev/null"
    lines = difflib.unified_diff(split_lines(before or ""), split_lines(after or ""), old, new)
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def combined_diff(before: Mapping[str, str | None], after: Mapping[str, str | None]) -> str:
    return "".join(unified_diff(path, before[path], after[path]) for path in sorted(after))
