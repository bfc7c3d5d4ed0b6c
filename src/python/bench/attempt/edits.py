"""SEARCH/REPLACE edits: parse them out of a model's reply and apply them to a workspace.

The format (aider-style)::

    path/to/file.py
    <<<<<<< SEARCH
    exact lines currently in the file
    =======
    the lines to put there instead
    >>>>>>> REPLACE

What models actually emit is accepted too: blocks inside code fences (```python … ```), the path on the line
before the SEARCH marker, on the fence line (```python path/to/file.py) or after the marker
(``<<<<<<< SEARCH path/to/file.py``), CRLF line ends, trailing whitespace on marker lines, 5–9 marker
characters, several blocks per file (a block without a path of its own reuses the previous block's path).

Applying (see :func:`apply_edits`): blocks apply in order, each to the content left by the ones before. A
SEARCH must occur exactly once in the current content. An empty SEARCH is allowed only for a file that is
missing or empty, whose content it then sets; on a non-empty file it is ``search_ambiguous`` (it matches
everywhere). A file with CRLF line ends is matched and written in CRLF. A file without a final newline
also matches a SEARCH whose last line ends with one.

Limits: a reply longer than ``MAX_REPLY_BYTES`` or with more than ``MAX_BLOCKS`` blocks is refused before
anything is applied (``reply_too_large``, ``too_many_blocks``). Each block's exactly-once check scans the
file as it stands, so without a bound on the blocks a reply of many blocks that each grow the file costs time
quadratic in its size, on the host. ``MAX_REPLY_BYTES`` is 1 MiB: the largest source file of the pool is
about 250 KB (pyparsing's core.py, arrow's locales), and an honest reply that rewrites such a file whole
quotes it twice (SEARCH and REPLACE), about 500 KB; 1 MiB leaves twice that and is above what any model's
output limit lets it write (128k tokens ≈ 512 KB). ``MAX_BLOCKS`` is 100: honest replies hold a handful of
blocks, and 100 blocks over a file of at most ~1.3 MB bound the work at ~100 scans of it (tenths of a second).
With the block count bounded, applying is linear in the reply's size (``benchmarks/edit_apply.py``).

Reasons (``EditError.reason``): ``no_edits``, ``unparsable``, ``reply_too_large``, ``too_many_blocks``,
``path_not_allowed``, ``symlink``, ``search_not_found``, ``search_ambiguous``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bench.attempt import workspace_files as files
from bench.attempt.unified_diff import FilePatch, Hunk, apply_unified_diff, parse_unified_diff
from bench.attempt.workspace_files import AppliedEdits, FileChange
from bench.errors import EditError

__all__ = [
    "AppliedEdits",
    "Edit",
    "FileChange",
    "FilePatch",
    "Hunk",
    "apply_edits",
    "apply_unified_diff",
    "parse_edits",
    "parse_unified_diff",
]

_SEARCH = re.compile(r"^<{5,9} ?SEARCH\b[ \t]*(?P<path>\S*)[ \t]*$")
_DIVIDER = re.compile(r"^={5,9}[ \t]*$")
_REPLACE = re.compile(r"^>{5,9} ?REPLACE\b[ \t]*\S*[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*(?P<info>.*?)[ \t]*$")
_PATHLIKE = re.compile(r"^[\w.+@-][\w./+@-]*$")
# How far above a SEARCH marker its path may stand (blank lines and fence lines are skipped).
_PATH_LOOKBACK = 3
MAX_REPLY_BYTES = 1 << 20  # why these two values: see the module docstring
MAX_BLOCKS = 100


@dataclass(frozen=True)
class Edit:
    path: str
    search: str
    replace: str


def parse_edits(text: str, *, max_reply_bytes: int | None = MAX_REPLY_BYTES,
                max_blocks: int | None = MAX_BLOCKS) -> tuple[Edit, ...]:
    """Every SEARCH/REPLACE block in ``text``, in order. No block: no_edits; a broken block: unparsable; over
    a limit: reply_too_large or too_many_blocks (``None`` lifts a limit, for measurements)."""
    if max_reply_bytes is not None:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > max_reply_bytes:
            raise EditError(f"the reply is {size} bytes, more than the {max_reply_bytes} a reply may have",
                            reason="reply_too_large")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    edits: list[Edit] = []
    previous_path = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        if _REPLACE.match(line.rstrip()):
            raise EditError(f"line {index + 1}: {line.strip()!r} outside a SEARCH block", reason="unparsable")
        match = _SEARCH.match(line.rstrip())
        if not match:
            index += 1
            continue
        path = match.group("path") or _path_above(lines, index) or previous_path
        if not path:
            raise EditError(f"line {index + 1}: SEARCH block without a file path", reason="unparsable")
        if max_blocks is not None and len(edits) >= max_blocks:
            raise EditError(f"line {index + 1}: more than {max_blocks} SEARCH/REPLACE blocks in one reply",
                            reason="too_many_blocks")
        search, replace, index = _block_body(lines, index)
        previous_path = _clean_path(path)
        edits.append(Edit(previous_path, search, replace))
    if not edits:
        raise EditError("the reply contains no SEARCH/REPLACE block", reason="no_edits")
    return tuple(edits)


def _block_body(lines: list[str], start: int) -> tuple[str, str, int]:
    """(search, replace, index after the block) for the SEARCH marker at ``start``."""
    search: list[str] = []
    replace: list[str] = []
    part = search
    for index in range(start + 1, len(lines)):
        marker = lines[index].rstrip()
        if _SEARCH.match(marker):
            raise EditError(f"line {index + 1}: SEARCH marker inside a block", reason="unparsable")
        if part is search and _DIVIDER.match(marker):
            part = replace
            continue
        if _REPLACE.match(marker):
            if part is search:
                raise EditError(f"line {index + 1}: REPLACE marker before =======", reason="unparsable")
            return _joined(search), _joined(replace), index + 1
        part.append(lines[index])
    raise EditError(f"line {start + 1}: SEARCH block never closed by >>>>>>> REPLACE", reason="unparsable")


def _joined(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _path_above(lines: list[str], marker: int) -> str:
    """The path written just above a SEARCH marker: on a plain line or on a fence line."""
    seen = 0
    for index in range(marker - 1, -1, -1):
        line = lines[index].strip()
        if not line:
            continue
        if _REPLACE.match(line):
            return ""  # the previous block ends here: no path of this block's own
        fence = _FENCE.match(line)
        if fence:
            words = fence.group("info").split()
            candidate = next((w for w in reversed(words) if _looks_like_path(w)), "")
            if candidate:
                return candidate
        elif _looks_like_path(_clean_path(line)):
            return _clean_path(line)
        seen += 1
        if seen >= _PATH_LOOKBACK:
            return ""
    return ""


def _clean_path(text: str) -> str:
    """Strip the decoration models put around a path: backticks, bold, a trailing colon, a leading '#'."""
    text = text.strip()
    text = re.sub(r"^(#+|[Ff]ile(name)?:|[Pp]ath:)\s*", "", text)
    return text.strip().rstrip(":").strip("`*'\" ").rstrip(":").strip()


def _looks_like_path(text: str) -> bool:
    return bool(_PATHLIKE.match(text)) and ("/" in text or "." in text.lstrip("."))


def apply_edits(workspace: Path, edits: tuple[Edit, ...], allowed_paths: tuple[str, ...]) -> AppliedEdits:
    """Apply every edit or none; raise EditError with the reason of the first edit that cannot apply."""
    before: dict[str, str | None] = {}
    current: dict[str, _Content] = {}
    for number, edit in enumerate(edits, start=1):
        path = files.check_allowed(edit.path, allowed_paths)
        if path not in before:
            before[path] = files.read_text(workspace, path)
            current[path] = _Content.of(before[path])
        current[path] = _replaced(current[path], edit, number)
    after = {path: content.text() for path, content in current.items()}
    return files.write_changes(workspace, before, after)


@dataclass(frozen=True)
class _Content:
    """A file's content between blocks, kept with LF line ends when it is all CRLF, so a block does not
    convert the whole file twice (once to match, once to write back): ``text()`` converts once at the end.
    Which form a block sees is decided exactly as on the file as it stands before that block."""

    lf: str | None  # the content, LF-normalised when ``crlf``; None: the file does not exist
    crlf: bool

    @classmethod
    def of(cls, content: str | None) -> "_Content":
        if content is None:
            return cls(None, False)
        crlf = "\r\n" in content and content.count("\r\n") == content.count("\n")
        return cls(content.replace("\r\n", "\n") if crlf else content, crlf)

    def text(self) -> str | None:
        return self.lf.replace("\n", "\r\n") if self.crlf and self.lf is not None else self.lf

    def after(self, lf: str) -> "_Content":
        if self.crlf:
            # Written back, every LF becomes CRLF: the file stays all-CRLF while it has any line end at all.
            return _Content(lf, "\n" in lf)
        return _Content.of(lf)


def _replaced(content: _Content, edit: Edit, number: int) -> _Content:
    where = f"edit {number} ({edit.path})"
    if edit.search == "":
        if content.lf:
            raise EditError(f"{where}: empty SEARCH on a non-empty file", reason="search_ambiguous")
        return _Content.of(edit.replace)
    if content.lf is None:
        raise EditError(f"{where}: the file does not exist", reason="search_not_found")
    return content.after(_replace_once(content.lf, edit.search, edit.replace, where))


def _replace_once(text: str, search: str, replace: str, where: str) -> str:
    """``search`` replaced where it occurs once, found with one scan of ``text`` (str.count's
    non-overlapping occurrences: a second one starts at or after the end of the first)."""
    first = text.find(search)
    if first < 0 and not text.endswith("\n") and search.endswith("\n") and text.endswith(search[:-1]):
        # The file's last line has no newline; the block's does. Match it there, keep the file's ending.
        if text.count(search[:-1]) == 1:
            stem = text[: len(text) - len(search) + 1]
            return stem + (replace[:-1] if replace.endswith("\n") else replace)
    if first < 0:
        raise EditError(f"{where}: SEARCH text not found in the file", reason="search_not_found")
    if text.find(search, first + len(search)) >= 0:
        count = text.count(search)
        raise EditError(f"{where}: SEARCH text occurs {count} times; add context", reason="search_ambiguous")
    return text[:first] + replace + text[first + len(search):]


# How a model is asked for this format (bench.attempt.formats); the default prompt's system message.
SYSTEM_PROMPT = """\
You are an expert Python developer fixing a bug in a repository.

You are shown the current content of the files you may edit and the tests that fail. Change the editable \
files so that the failing tests pass without breaking other behaviour. You cannot run anything: reply with \
edits only.

Reply with one or more SEARCH/REPLACE blocks, each exactly in this form:

path/to/file.py
<<<<<<< SEARCH
lines copied exactly from the current file
=======
the lines that replace them
>>>>>>> REPLACE

Rules:
- The path line names one of the editable files, written exactly as shown.
- The SEARCH section must match the current file exactly once, character for character, indentation and \
blank lines included. Include enough surrounding lines to make it unique, and no more.
- Several blocks may edit the same file; they apply in order, each to the result of the ones before.
- To fill a file that does not exist yet or is empty, leave the SEARCH section empty.
- Test files cannot be edited.
- Text outside the blocks is ignored.
"""
