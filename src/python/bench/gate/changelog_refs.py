"""What a project's changelog says of one change, wherever the entry sits: an entry naming the change's pull
request or issue number (``PR #1189``, ``#42``, ``:issue:`42```, ``/pull/42``), anywhere in the file, or,
within the section of the release that shipped the change, an entry naming in code markup (````nth_permutation````,
``:func:`nth_permutation```) a function or class the change edits. Plain changelog files (``CHANGELOG.rst``,
``docs/versions.rst``, ``CHANGES.md``, ``HISTORY.rst`` …) and towncrier's alike are read as text.

An entry's category is, in this order: its own tag (``[FIXED]``, ``[ADDED]``, ``[CHANGED]`` …), the heading it
sits under (``Fixed`` / ``Bug fixes``, ``Added`` / ``Features``, ``Changed``, ``Breaking`` / ``Removed``),
its first word (``Fix …``, ``Add …``), then a bug word anywhere in it (``A bug in … was fixed``).
"""

from __future__ import annotations

import re

from bench.gate.project_words import _BREAKING_MARK, _ENTRY_WORDS, _MARKDOWN_HEADING, _first_match, _is_heading, \
    _is_release, _RST_UNDERLINE, _VERSIONISH

_TAGS = {"fix": "bugfix", "fixed": "bugfix", "fixes": "bugfix", "bugfix": "bugfix", "bug": "bugfix",
         "add": "feature", "added": "feature", "new": "feature", "feature": "feature", "enhancement": "feature",
         "change": "change", "changed": "change", "changes": "change", "internal": "change", "docs": "change",
         "deprecated": "change", "deprecation": "change", "security": "bugfix",
         "removed": "breaking", "remove": "breaking", "breaking": "breaking"}
_TAG = re.compile(r"^\[([A-Za-z]+)\]")
_HEADINGS = (
    ("breaking", re.compile(r"breaking|backwards?[- ]incompatible|\bremoved\b|removals", re.IGNORECASE)),
    ("bugfix", re.compile(r"\bbug|\bfix", re.IGNORECASE)),
    ("change", re.compile(r"^\W*changed\W*$|deprecat|internal|documentation|^\W*docs\W*$", re.IGNORECASE)),
    ("feature", re.compile(r"feature|\badded\b|enhancement|improvement|\bnew\b", re.IGNORECASE)),
)
_BUG_WORDS = re.compile(r"\b(bug|bugs|fix|fixes|fixed|regression|crash(es|ed)?)\b", re.IGNORECASE)
_BULLET = re.compile(r"^\s*([-*+]|\d+\.)\s+")
_CODE = re.compile(r":[a-z]+:`~?([^`]+)`|``([^`]+)``|`([^`]+)`")


def number_pattern(number: int) -> re.Pattern:
    return re.compile(rf"(#|\bgh-|\bPR\s?|/pull/|/issues/|:pr:`|:pull:`|:issue:`|:gh:`|\bissue\s)#?{number}(?!\d)",
                      re.IGNORECASE)


def entry_start(lines: list[str], index: int) -> int:
    """The first line of the bullet entry that line ``index`` belongs to."""
    for above in range(index, max(-1, index - 8), -1):
        if _BULLET.match(lines[above]):
            return above
        if not lines[above].strip() or _is_heading(lines, above):
            return min(above + 1, index)
    return index


def category(lines: list[str], index: int) -> str:
    """The category of the entry starting at line ``index`` ("" when nothing in it or above it says)."""
    entry = _BULLET.sub("", lines[index]).strip()
    tag = _TAG.match(entry)
    if tag and tag.group(1).lower() in _TAGS:
        return _TAGS[tag.group(1).lower()]
    if _BREAKING_MARK.search(entry):
        return "breaking"
    heading = _heading_above(lines, index)
    return (_first_match(_HEADINGS, heading) if heading else "") or _first_match(_ENTRY_WORDS, entry) or (
        "bugfix" if _BUG_WORDS.search(" ".join(lines[index: _entry_end(lines, index)])) else "")


def _entry_end(lines: list[str], index: int) -> int:
    end = index + 1
    while end < len(lines) and lines[end].strip() and not _BULLET.match(lines[end]) and not _is_heading(lines, end):
        end += 1
    return end


def _heading_above(lines: list[str], index: int) -> str:
    """The nearest heading above that does not name a release ("" when a release heading comes first)."""
    for above in range(index - 1, -1, -1):
        if _is_heading(lines, above):
            text = _MARKDOWN_HEADING.match(lines[above])
            heading = text.group(1) if text else lines[above].strip().rstrip(":")
            return "" if _VERSIONISH.search(heading) else heading
        stripped = _BULLET.sub("", lines[above]).strip()
        if _BULLET.match(lines[above]) and len(stripped) < 60 and \
                len(lines[above]) - len(lines[above].lstrip()) < len(lines[index]) - len(lines[index].lstrip()):
            return stripped.rstrip(":")  # "* Bug fixes" above its indented entries (more-itertools)
    return ""


def entries_naming_numbers(text: str, numbers: tuple[int, ...]) -> list[tuple[str, str]]:
    """(category, entry's first line) of every entry that names one of ``numbers``."""
    lines = text.splitlines()
    patterns = [number_pattern(n) for n in numbers if n]
    found, seen = [], set()
    for index, line in enumerate(lines):
        if not any(p.search(line) for p in patterns) or _is_heading(lines, index) or _RST_UNDERLINE.match(line):
            continue
        start = entry_start(lines, index)
        if start in seen:
            continue
        seen.add(start)
        found.append((category(lines, start), lines[start].strip()))
    return found


def release_section(lines: list[str], version: str) -> range:
    """The lines under the release heading that names ``version`` (empty when none does)."""
    releases = [i for i in range(len(lines)) if _is_release(lines, i)]
    wanted = re.compile(rf"(?<![\d.]){re.escape(version.lstrip('vV'))}(?![\d])")
    for start, end in zip(releases, releases[1:] + [len(lines)]):
        if wanted.search(lines[start]):
            return range(start + 1, end)
    return range(0)


def entries_naming_code(text: str, names: set[str], version: str) -> list[tuple[str, str]]:
    """(category, entry's first line) of every entry of ``version``'s section that names one of ``names`` in
    code markup (the last dotted part, without call parentheses, counts)."""
    lines = text.splitlines()
    found, seen = [], set()
    for index in release_section(lines, version):
        quoted = {m.strip("()").rsplit(".", 1)[-1] for groups in _CODE.findall(lines[index]) for m in groups if m}
        if not quoted & names or _is_heading(lines, index):
            continue
        start = entry_start(lines, index)
        if start not in seen:
            seen.add(start)
            found.append((category(lines, start), lines[start].strip()))
    return found
