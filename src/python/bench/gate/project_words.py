"""What a project says of its own change: the changelog fragments it adds (towncrier's ``changes/123.bugfix.rst``,
``*.feature``, ``*.breaking``, ``*.misc`` …) and the entries it adds to a CHANGES / CHANGELOG / HISTORY file,
classified by the heading they sit under (``Bug fixes``, ``Features``, ``Breaking changes`` …) or, under a
version heading, by the entry's first word (``Fix …``, ``Add …``). Categories: ``bugfix``, ``feature``,
``breaking``, and ``change`` for what a project files apart from both (misc, docs, deprecations)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Changelog fragment types (towncrier and look-alikes) -> category.
FRAGMENT_TYPES = {
    "bugfix": "bugfix", "bugfixes": "bugfix", "bug": "bugfix", "fix": "bugfix", "fixed": "bugfix",
    "feature": "feature", "features": "feature", "enhancement": "feature", "added": "feature",
    "improvement": "feature",
    "breaking": "breaking", "removal": "breaking", "removed": "breaking", "incompatible": "breaking",
    # what a project files apart from its fixes: towncrier's misc and doc, and look-alikes
    "misc": "change", "trivial": "change", "doc": "change", "docs": "change", "documentation": "change",
    "internal": "change", "chore": "change", "maintenance": "change", "deprecation": "change",
    "deprecated": "change", "vendor": "change",
}
# A generic "change" fragment (attrs' changelog.d/N.change.md) says nothing either way.
FRAGMENT_DIRS = frozenset({"changes", "changelog.d", "newsfragments", "news", ".changes", "changelog", "changes.d"})
NOTES_FILE = re.compile(r"^(changes|changelog|history|news|release[-_ ]?notes)([.-].*)?$", re.IGNORECASE)
_HEADING_WORDS = (
    ("breaking", re.compile(r"breaking|backwards?[- ]incompatible|removed|removals", re.IGNORECASE)),
    ("bugfix", re.compile(r"\bbug|\bfix", re.IGNORECASE)),
    ("feature", re.compile(r"feature|\badded\b|enhancement|improvement|\bnew\b|changed", re.IGNORECASE)),
)
_ENTRY_WORDS = (
    ("bugfix", re.compile(r"^(fix|fixe[sd]|fixing|correct|corrected|prevent|handle|avoid|resolve)\b", re.IGNORECASE)),
    ("feature", re.compile(r"^(add|added|adds|support|supports|introduce|implement|allow|new)\b", re.IGNORECASE)),
    ("breaking", re.compile(r"^(remove|removed|drop|dropped|rename|renamed)\b", re.IGNORECASE)),
)
# An entry the project marks breaking whatever its words ("**BREAKING** Correct the log directory …").
_BREAKING_MARK = re.compile(r"\bBREAKING\b|\*\*breaking\*\*")
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*(.+?)\s*#*\s*$")
_RST_UNDERLINE = re.compile(r"^([-=~^*+#`'\"])\1{2,}\s*$")
_LABEL_LINE = re.compile(r"^[A-Za-z][A-Za-z /-]{2,40}:\s*$")  # "Bug fixes:" above its entries (marshmallow)
_VERSIONISH = re.compile(r"\d+\.\d+|unreleased", re.IGNORECASE)


@dataclass(frozen=True)
class NotesChange:
    """A changelog file the change touched: its text after the change and the 1-based lines it added."""

    path: str
    text: str
    added_lines: tuple[int, ...]


def fragment_categories(paths: tuple[str, ...]) -> list[str]:
    found = []
    for path in paths:
        parts = path.split("/")
        if len(parts) < 2 or parts[-2].lower() not in FRAGMENT_DIRS:
            continue
        for token in parts[-1].lower().split(".")[1:]:
            if token in FRAGMENT_TYPES:
                found.append(FRAGMENT_TYPES[token])
                break
    return found


def notes_categories(notes: tuple[NotesChange, ...]) -> list[str]:
    """The categories of the entries a change adds to the newest release's section of a changelog. Lines it
    touches under older releases (a typo corrected, an entry reflowed) are the log's upkeep, not this change."""
    found = []
    for change in notes:
        lines = change.text.splitlines()
        newest = _newest_release(lines)
        for number in change.added_lines:
            entry = lines[number - 1].strip().lstrip("-*+ ").strip() if 0 < number <= len(lines) else ""
            if not entry or _is_heading(lines, number - 1) or _RST_UNDERLINE.match(entry):
                continue
            if _release_above(lines, number - 1) not in (-1, newest):
                continue
            category = ("breaking" if _BREAKING_MARK.search(lines[number - 1]) else
                        _heading_category(lines, number - 1) or _first_match(_ENTRY_WORDS, entry))
            if category:
                found.append(category)
    return found


def _is_heading(lines: list[str], index: int) -> bool:
    if _MARKDOWN_HEADING.match(lines[index]) or _LABEL_LINE.match(lines[index].strip()):
        return True
    return index + 1 < len(lines) and bool(_RST_UNDERLINE.match(lines[index + 1])) and bool(lines[index].strip())


def _heading_category(lines: list[str], index: int) -> str:
    """The category of the nearest heading above line ``index``; "" when that heading names a version."""
    for above in range(index - 1, -1, -1):
        if not _is_heading(lines, above):
            continue
        text = _MARKDOWN_HEADING.match(lines[above])
        heading = text.group(1) if text else lines[above].strip().rstrip(":")
        if _VERSIONISH.search(heading):
            return ""
        return _first_match(_HEADING_WORDS, heading)
    return ""


def _release_above(lines: list[str], index: int) -> int:
    """The line of the nearest heading above ``index`` that names a version (or "Unreleased"), -1 if none."""
    return next((above for above in range(index - 1, -1, -1) if _is_release(lines, above)), -1)


def _newest_release(lines: list[str]) -> int:
    """The topmost release heading with an entry under it (an empty "Unreleased" above the release being made
    does not count), -1 if none."""
    releases = [index for index in range(len(lines)) if _is_release(lines, index)]
    for start, end in zip(releases, releases[1:] + [len(lines)]):
        if any(lines[i].strip() and not _is_heading(lines, i) and not _RST_UNDERLINE.match(lines[i].strip())
               for i in range(start + 1, end)):
            return start
    return releases[0] if releases else -1


def _is_release(lines: list[str], index: int) -> bool:
    if not _is_heading(lines, index):
        return False
    text = _MARKDOWN_HEADING.match(lines[index])
    return bool(_VERSIONISH.search(text.group(1) if text else lines[index]))


def _first_match(table, text: str) -> str:
    return next((category for category, pattern in table if pattern.search(text)), "")
