"""What the repository's history says of a PR task's change, read from its mirror (git objects only):

- **the project's word** — changelog entries that name the change's PR or issue numbers, in the changelog files
  at the fix commit and at the first release tag that contains it, and entries of that release's section that
  name a function or class the change edits (:mod:`bench.gate.changelog_refs`);
- **regression fixes** — tests whose expectation the change corrects, where the commit that last wrote that
  test also changed the task's source files and no release lies between it and the fix (at most
  ``REGRESSION_DAYS`` before it): the bug came in with the test that asserted it, and the fix repairs both;
- **later reversals** — tests whose expectation the change rewrites and that a later commit of the mirror
  changes back to the base's value (``reversed``), and tests of the change whose literals alone a later commit
  rewrites (``repinned``: the pinned value did not last).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path, PurePosixPath

from bench.gate.change_shapes import _Blank, parse_or_none
from bench.gate.changelog_refs import entries_naming_code, entries_naming_numbers
from bench.gate.change_text import test_functions
from bench.source.git_command import git_try

REGRESSION_DAYS = 60
LATER_COMMITS = 400  # later commits read per test file for reversals
CHANGELOG_NAME = re.compile(r"^(changes|changelog|history|news|release[-_ ]?notes|versions?)([.-][^/]*)?$",
                            re.IGNORECASE)
_CLOSING = re.compile(r"\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s*:?\s+#(\d+)|\(#(\d+)\)|\bgh-(\d+)",
                      re.IGNORECASE)


def _text(git_dir: Path, sha: str, path: str) -> str:
    return (git_try(["show", f"{sha}:{path}"], git_dir=git_dir) or b"").decode("utf-8", "replace")


def _lines(git_dir: Path, *args: str) -> list[str]:
    return [line for line in (git_try(list(args), git_dir=git_dir) or b"").decode("utf-8", "replace").splitlines()
            if line]


def changelog_paths(git_dir: Path, sha: str) -> list[str]:
    """The changelog files of the tree at ``sha`` (at the top, or under docs/ or doc/)."""
    paths = _lines(git_dir, "ls-tree", "-r", "--name-only", sha)
    return [p for p in paths if p.count("/") <= 1 and (p.count("/") == 0 or p.split("/")[0] in ("docs", "doc"))
            and CHANGELOG_NAME.match(PurePosixPath(p).name)
            and PurePosixPath(p).suffix.lower() in ("", ".md", ".rst", ".txt")]


def change_numbers(pr_number: int | None, title: str, message: str) -> tuple[int, ...]:
    """The PR number and the issues the change says it closes (``Fixes #12``, ``(#12)``, ``gh-12``)."""
    found = {int(n) for match in _CLOSING.findall(f"{title}\n{message}") for n in match if n}
    return tuple(sorted(found | ({pr_number} if pr_number else set())))


def release_of(git_dir: Path, fix: str) -> tuple[str, str]:
    """(tag, commit) of the earliest release tag containing ``fix``; ("", HEAD) when none does yet."""
    tags = _lines(git_dir, "tag", "--contains", fix, "--sort=creatordate")
    if tags:
        return tags[0], _lines(git_dir, "rev-list", "-n", "1", tags[0])[0]
    return "", (_lines(git_dir, "rev-parse", "HEAD") or [fix])[0]


def head(git_dir: Path, fallback: str) -> str:
    """The mirror's HEAD: the newest history it holds."""
    return (_lines(git_dir, "rev-parse", "HEAD") or [fallback])[0]


def edited_names(before, after) -> set[str]:
    """Functions and classes (their own names) whose text the change edits or adds, 4 characters or longer."""
    def defs(pairs):
        found = {}
        for _, text in pairs:
            tree, lines = parse_or_none(text), text.splitlines()
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    found.setdefault(node.name, "\n".join(lines[node.lineno - 1: node.end_lineno]))
        return found
    old, new = defs(before), defs(after)
    return {name for name, dump in new.items() if old.get(name) != dump and len(name) >= 4
            and not name.startswith("__")}


def project_word(git_dir: Path, fix: str, numbers: tuple[int, ...], names: set[str]) -> tuple[str, ...]:
    """``category@where`` for each changelog entry about the change (where: ``fix`` or the release tag)."""
    tag, released = release_of(git_dir, fix)
    found: list[str] = []
    for where, sha in (("fix", fix), (tag or "head", released)):
        for path in changelog_paths(git_dir, sha):
            text = _text(git_dir, sha, path)
            entries = entries_naming_numbers(text, numbers)
            if tag and sha == released:
                entries += entries_naming_code(text, names, tag)
            found += [f"{category}@{where}" for category, _ in entries if category]
    return tuple(dict.fromkeys(found))


def _segment(text: str, test_id: str) -> str | None:
    """The lines of a test function (its decorators included), found by its def line and indentation alone: a
    cheap stand-in for :func:`test_functions` to tell whether a commit touched the test at all."""
    names = [part.split("[", 1)[0] for part in test_id.split("::")[1:]]
    lines, start, indent = text.splitlines(), 0, -1
    for name in names:
        pattern = re.compile(rf"^(\s*)(async\s+def|def|class)\s+{re.escape(name)}\b")
        for number in range(start, len(lines)):
            match = pattern.match(lines[number])
            if match and len(match.group(1)) > indent:
                start, indent = number, len(match.group(1))
                break
        else:
            return None
    first, end = start, start + 1
    while first > 0 and lines[first - 1].strip().startswith("@"):
        first -= 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
        end += 1
    return "\n".join(lines[first:end])


class _Bodies:
    """Test function texts at commits, parsed only when their lines differ from the last ones parsed."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir, self.seen, self.texts = git_dir, {}, {}

    def __call__(self, sha: str, test_id: str) -> str | None:
        path = test_id.split("::", 1)[0]
        if (sha, path) not in self.texts:
            self.texts = {(sha, path): _text(self.git_dir, sha, path)}  # one file at a time: tests walk commits
        text = self.texts[sha, path]
        segment = _segment(text, test_id)
        if segment is None:
            return None
        if (test_id, segment) not in self.seen:
            self.seen[test_id, segment] = test_functions(((path, text),), (test_id,)).get(test_id)
        return self.seen[test_id, segment]


def regressions(git_dir: Path, base: str, fix: str, test_ids: tuple[str, ...], source_files: tuple[str, ...],
                old_bodies: dict[str, str]) -> tuple[str, ...]:
    """The tests among ``test_ids`` whose last writer before the fix also changed the task's source files, in
    the same release and at most REGRESSION_DAYS before the fix."""
    fix_time = int((_lines(git_dir, "log", "-1", "--format=%ct", fix) or ["0"])[0])
    _body, found = _Bodies(git_dir), []
    for test_id in test_ids:
        path = test_id.split("::", 1)[0]
        for line in _lines(git_dir, "log", "--format=%H %ct", "-n", "40", base, "--", path):
            sha, when = line.split()
            parent = _body(f"{sha}^", test_id)
            if parent == old_bodies.get(test_id):
                continue  # this commit left the test as the base has it
            if _body(sha, test_id) != old_bodies.get(test_id):
                break  # the base's text came later, from a commit this walk has passed: give up
            touched = set(_lines(git_dir, "diff-tree", "--no-commit-id", "--name-only", "-r", f"{sha}^", sha))
            released = _lines(git_dir, "tag", "--merged", base, "--no-merged", sha)
            if touched & set(source_files) and not released and fix_time - int(when) <= REGRESSION_DAYS * 86400:
                found.append(test_id)
            break
    return tuple(found)


def _constants(body: str | None) -> tuple[str, list] | None:
    tree = parse_or_none(body or "")
    if tree is None:
        return None
    values = [repr(n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    return ast.dump(_Blank().visit(tree)), values


def later_changes(git_dir: Path, fix: str, head: str, test_ids: tuple[str, ...], old_bodies: dict[str, str],
                  new_bodies: dict[str, str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(reversed, repinned): tests whose rewritten expectation a later commit sets back to the base's value, and
    tests of the change whose literals alone a later commit rewrites."""
    reversed_, repinned, _body = [], [], _Bodies(git_dir)
    by_path: dict[str, list[str]] = {}
    for test_id in test_ids:
        by_path.setdefault(test_id.split("::", 1)[0], []).append(test_id)
    for path, ids in by_path.items():
        commits = _lines(git_dir, "log", "--format=%H", "--reverse", "-n", str(LATER_COMMITS), f"{fix}..{head}",
                         "--", path)
        pending = {test_id: (_constants(new_bodies.get(test_id)), _constants(old_bodies.get(test_id)))
                   for test_id in ids if _constants(new_bodies.get(test_id)) is not None}
        for sha in commits:  # oldest first; each later text read once for every test of the file
            for test_id, (fixed, old) in list(pending.items()):
                later = _constants(_body(sha, test_id))
                if later is None or later[0] != fixed[0] or later[1] == fixed[1]:
                    continue
                if old is not None and old[0] == fixed[0] and any(
                        o != f and l == o for o, f, l in zip(old[1], fixed[1], later[1])):
                    reversed_.append(test_id)
                else:
                    repinned.append(test_id)
                del pending[test_id]
            if not pending:
                break
    return tuple(sorted(reversed_)), tuple(sorted(repinned))
