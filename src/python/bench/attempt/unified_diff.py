"""Unified diffs (SWE-bench-style predictions): parse them and apply them to a workspace.

Hunks are applied by exact context matching, no fuzz: the hunk's old lines (context and removals) must
appear verbatim. They are looked for at the stated line first (shifted by how far earlier hunks of the same
file moved); failing that, the nearest exact occurrence after the previous hunk is taken, as ``patch`` does
with offsets. Git headers (``diff --git``, ``index``, modes) are accepted and ignored; renames, copies and
binary patches are refused. The same path rules and all-or-nothing write as SEARCH/REPLACE edits apply
(:mod:`bench.attempt.workspace_files`).

Reasons: ``no_edits`` (no file in the patch), ``unparsable``, ``path_not_allowed``, ``symlink``,
``hunk_not_found`` (context does not match, a created file exists, a deleted file keeps content).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bench.attempt import workspace_files as files
from bench.attempt.workspace_files import AppliedEdits
from bench.errors import EditError

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_REFUSED_HEADERS = ("rename from", "rename to", "copy from", "copy to", "GIT binary patch", "Binary files")
NO_NEWLINE = "\\ No newline at end of file"


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[
        str, ...
    ]  # each starts with " ", "-" or "+"; the text keeps its "\n" unless the file ends there

    def old_lines(self) -> list[str]:
        return [line[1:] for line in self.lines if line[0] in " -"]

    def new_lines(self) -> list[str]:
        return [line[1:] for line in self.lines if line[0] in " +"]


@dataclass(frozen=True)
class FilePatch:
    old_path: str | None  # None: the file is created (/dev/null)
    new_path: str | None  # None: the file is deleted
    hunks: tuple[Hunk, ...]

    @property
    def path(self) -> str:
        return self.new_path if self.new_path is not None else self.old_path or ""


def parse_unified_diff(patch: str) -> tuple[FilePatch, ...]:
    lines = files.split_lines(patch)
    patches: list[FilePatch] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith(_REFUSED_HEADERS):
            raise EditError(f"line {index + 1}: {line.strip()!r} is not supported", reason="unparsable")
        if line.startswith("--- ") and index + 1 < len(lines) and lines[index + 1].startswith("+++ "):
            patch_, index = _file_patch(lines, index)
            patches.append(patch_)
            continue
        if line.startswith("@@"):
            raise EditError(f"line {index + 1}: hunk without ---/+++ file header", reason="unparsable")
        index += 1
    if not patches:
        raise EditError("the patch changes no file", reason="no_edits")
    return tuple(patches)


def _file_patch(lines: list[str], index: int) -> tuple[FilePatch, int]:
    old_path, new_path = _header_paths(lines[index], lines[index + 1])
    index += 2
    hunks: list[Hunk] = []
    while index < len(lines) and lines[index].startswith("@@"):
        hunk, index = _hunk(lines, index)
        hunks.append(hunk)
    if not hunks:
        raise EditError(f"line {index}: file header without hunks", reason="unparsable")
    return FilePatch(old_path, new_path, tuple(hunks)), index


def _header_paths(old_line: str, new_line: str) -> tuple[str | None, str | None]:
    old = old_line[4:].rstrip("\n").split("\t")[0].strip()
    new = new_line[4:].rstrip("\n").split("\t")[0].strip()
    old_path = None if old == "/dev/null" else old
    new_path = None if new == "/dev/null" else new
    # git's a/ and b/ prefixes are stripped only when the patch uses them (as SWE-bench patches do).
    if (old_path or "a/").startswith("a/") and (new_path or "b/").startswith("b/"):
        old_path = old_path[2:] if old_path else None
        new_path = new_path[2:] if new_path else None
    if old_path is None and new_path is None:
        raise EditError(f"{old_line.strip()!r}: both sides are /dev/null", reason="unparsable")
    return old_path, new_path


def _hunk(lines: list[str], index: int) -> tuple[Hunk, int]:
    header = _HUNK.match(lines[index])
    if not header:
        raise EditError(f"line {index + 1}: bad hunk header {lines[index].strip()!r}", reason="unparsable")
    old_start, new_start = int(header.group(1)), int(header.group(3))
    old_count = int(header.group(2)) if header.group(2) is not None else 1
    new_count = int(header.group(4)) if header.group(4) is not None else 1
    body: list[str] = []
    old_seen = new_seen = 0
    index += 1
    while old_seen < old_count or new_seen < new_count:
        if index >= len(lines):
            raise EditError("patch ends inside a hunk", reason="unparsable")
        line = lines[index]
        if line.startswith("\\"):
            body[-1:] = [_without_newline(body, index)]
        elif line in ("\n", "\r\n"):  # a context line whose lone space an editor stripped
            body.append(" " + line)
        elif line[0] in " -+":
            body.append(line)
        else:
            raise EditError(
                f"line {index + 1}: unexpected line in hunk: {line.strip()!r}", reason="unparsable"
            )
        if line[0] in " -\n\r":
            old_seen += 1
        if line[0] in " +\n\r":
            new_seen += 1
        index += 1
    if index < len(lines) and lines[index].startswith("\\"):
        body[-1:] = [_without_newline(body, index)]
        index += 1
    if old_seen != old_count or new_seen != new_count or _looks_like_hunk_line(lines, index):
        raise EditError(f"line {index}: hunk line counts do not match its header", reason="unparsable")
    return Hunk(old_start, old_count, new_start, new_count, tuple(body)), index


def _looks_like_hunk_line(lines: list[str], index: int) -> bool:
    """A hunk body line right after a hunk that is complete: the header undercounts (``--`` starts the next
    file's header or an e-mail signature, not a body line)."""
    if index >= len(lines):
        return False
    line = lines[index]
    return line[:1] in (" ", "+", "-") and not line.startswith(("--", "+++"))


def _without_newline(body: list[str], index: int) -> str:
    if not body:
        raise EditError(f"line {index + 1}: '\\' marker before any hunk line", reason="unparsable")
    return body[-1][:-1] if body[-1].endswith("\n") else body[-1]


def apply_unified_diff(
    workspace: Path, patch: str | tuple[FilePatch, ...], allowed_paths: tuple[str, ...]
) -> AppliedEdits:
    """Apply every file patch or none; EditError names the first that cannot apply."""
    patches = parse_unified_diff(patch) if isinstance(patch, str) else patch
    before: dict[str, str | None] = {}
    after: dict[str, str | None] = {}
    for file_patch in patches:
        path = _checked_path(file_patch, allowed_paths)
        if path not in before:
            before[path] = files.read_text(workspace, path)
            after[path] = before[path]
        after[path] = _patched(after[path], file_patch, path)
    return files.write_changes(workspace, before, after)


def _checked_path(file_patch: FilePatch, allowed_paths: tuple[str, ...]) -> str:
    paths = {files.check_allowed(p, allowed_paths) for p in (file_patch.old_path, file_patch.new_path) if p}
    if len(paths) != 1:
        raise EditError(f"renaming {file_patch.old_path} is not supported", reason="unparsable")
    return paths.pop()


def _patched(content: str | None, file_patch: FilePatch, path: str) -> str | None:
    if file_patch.old_path is None and content:
        raise EditError(f"{path}: the patch creates a file that exists", reason="hunk_not_found")
    result = apply_hunks(content or "", file_patch.hunks, path)
    if file_patch.new_path is None:
        if result:
            raise EditError(f"{path}: the patch deletes a file but leaves content", reason="hunk_not_found")
        return None
    return result


def apply_hunks(text: str, hunks: tuple[Hunk, ...], path: str = "") -> str:
    lines = files.split_lines(text)
    out: list[str] = []
    position = 0  # lines before this index are done
    drift = 0  # how far the previous hunk was found from where it said it was
    for number, hunk in enumerate(hunks, start=1):
        old = hunk.old_lines()
        stated = hunk.old_start - 1 if hunk.old_count else hunk.old_start
        at = _locate(lines, old, stated + drift, position)
        if at is None:
            raise EditError(
                f"{path}: hunk {number} (line {hunk.old_start}) does not match", reason="hunk_not_found"
            )
        drift = at - stated
        out.extend(lines[position:at])
        out.extend(hunk.new_lines())
        position = at + len(old)
    out.extend(lines[position:])
    return "".join(out)


def _locate(lines: list[str], old: list[str], expected: int, start: int) -> int | None:
    """Where ``old`` occurs exactly, at or after ``start``: ``expected`` if it matches, else the nearest."""
    if not old:
        return expected if start <= expected <= len(lines) else None
    last = len(lines) - len(old)
    if start <= expected <= last and lines[expected : expected + len(old)] == old:
        return expected
    for distance in range(1, len(lines) + 1):
        for candidate in (expected + distance, expected - distance):
            if start <= candidate <= last and lines[candidate : candidate + len(old)] == old:
                return candidate
        if expected - distance < start and expected + distance > last:
            return None
    return None
