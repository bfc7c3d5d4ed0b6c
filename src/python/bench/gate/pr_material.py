"""What a reader of a PR task reads (docs/measurements/pr-reading-brief.md), taken from the repository's mirror:
the fix's commit messages, the diff of its source and test files, the fail_to_pass tests' source at the fix
commit, the project's changelog lines near the fix, and later commits that change those tests again. The prompt
is passed in (``bench prompt TASK``'s output). The spec's judgement is left out: a reader decides first.

Only git objects are read; nothing of the repository runs. The text holds third-party code: it is written
outside the checkout and never committed.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from bench import pyast
from bench.source.git_command import git, git_try
from bench.spec.model import TaskSpec

# Release notes kept in one file (CHANGELOG.rst, CHANGES.md, HISTORY.md, NEWS, docs/versions.rst, docs/changes.rst)
_NOTES_NAME = re.compile(r"^((changelog|changes|history|news)([-_.][^/]*)?|(releases?|release[-_ ]?notes|versions)"
                         r"(\.\w+)?)$", re.IGNORECASE)
# Folders of per-change fragments (towncrier, reno) or per-release notes: read only where the diff touches them
_FRAGMENT_DIRS = {"changelog", "changelog.d", "changes", "changes.d", "newsfragments", "news", "change_log",
                  "releasenotes", "notes"}
_NOTES_SUFFIXES = {"", ".md", ".rst", ".txt", ".yaml", ".yml"}
_NOT_NOTES = re.compile(r"^(readme|template|_template)([-_.].*)?$|^\.", re.IGNORECASE)
_REFERENCE = re.compile(r"(?:#|GH-|gh-|issues/|pull/)(\d{1,6})\b")
_TEST_ID = re.compile(r"^(?P<path>[^:]+)::(?P<names>.+?)(?:\[.*\])?$", re.DOTALL)

MAX_LOG_COMMITS = 20
MAX_DIFF_LINES = 3000
MAX_TEST_LINES = 150
MAX_NOTES_LINES = 80
MAX_LATER_COMMITS = 15


@dataclass(frozen=True)
class TestSource:
    """Where one fail_to_pass test's function is defined in a file at a commit, and its text."""

    path: str
    qualname: str  # Class.method or function, as found
    start: int  # 1-based, decorators included
    end: int
    text: str


def is_notes_file(path: str) -> bool:
    """A file of release notes kept in one place (not a fragment): CHANGELOG*, CHANGES*, HISTORY*, NEWS*,
    docs/changelog*, docs/versions* …, never under .github and never a code file."""
    p = PurePosixPath(path)
    if p.parts[0] == ".github" or p.suffix.lower() not in _NOTES_SUFFIXES or len(p.parts) > 3:
        return False
    return bool(_NOTES_NAME.match(p.name)) and not any(part.lower() in _FRAGMENT_DIRS for part in p.parts[:-1])


def is_fragment(path: str) -> bool:
    """A file of a folder of changelog fragments or per-release notes (towncrier's changelog.d/123.bugfix.rst,
    reno's releasenotes/notes/x.yaml, docs/change_log/release-3.2.md)."""
    p = PurePosixPath(path)
    return (p.parts[0] != ".github" and p.suffix.lower() in _NOTES_SUFFIXES and not _NOT_NOTES.match(p.name)
            and any(part.lower() in _FRAGMENT_DIRS for part in p.parts[:-1]))


def split_test_id(test_id: str) -> tuple[str, tuple[str, ...]]:
    """``tests/t.py::TestX::test_y[a-b]`` -> ``("tests/t.py", ("TestX", "test_y"))``."""
    match = _TEST_ID.match(test_id)
    if not match:
        return test_id, ()
    return match.group("path"), tuple(match.group("names").split("::"))


def find_test(path: str, text: str, names: tuple[str, ...]) -> TestSource | None:
    """The function a test id names in ``text``: by its class path, else (a method a test class inherits) the
    first function of that name anywhere in the file."""
    try:
        tree = pyast.parse(text)
    except SyntaxError:
        return None
    lines = text.splitlines()

    def found(node, qualname: str) -> TestSource:
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        return TestSource(path, qualname, start, node.end_lineno, "\n".join(lines[start - 1: node.end_lineno]))

    scope: list = tree.body
    for i, name in enumerate(names):
        node = next((n for n in scope if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                     and n.name == name), None)
        if node is None:
            break
        if i == len(names) - 1:
            return found(node, ".".join(names))
        scope = node.body
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for child in node.body:
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and child.name == names[-1]:
                    return found(child, f"{node.name}.{child.name}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == names[-1]:
            return found(node, node.name)
    return None


def fenced(text: str, lang: str = "") -> str:
    """``text`` in a Markdown code fence longer than any run of backticks inside it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text.rstrip(chr(10))}\n{fence}\n"


def capped(text: str, limit: int, what: str) -> str:
    lines = text.splitlines()
    if len(lines) <= limit:
        return text
    return "\n".join(lines[:limit]) + f"\n[... {len(lines) - limit} more lines of the {what} left out]"


def _text(git_dir, args) -> str:
    return git(args, git_dir=git_dir).decode("utf-8", "replace")


def _blob(git_dir, sha: str, path: str) -> str | None:
    data = git_try(["show", f"{sha}:{path}"], git_dir=git_dir)
    return None if data is None else data.decode("utf-8", "replace")


def tip_of(git_dir) -> str:
    """The newest commit of the repository's default branch (the mirror's HEAD, else origin's main/master)."""
    for ref in ("HEAD", "refs/remotes/origin/HEAD", "refs/remotes/origin/main", "refs/remotes/origin/master"):
        out = git_try(["rev-parse", "--verify", "-q", f"{ref}^{{commit}}"], git_dir=git_dir)
        if out:
            return out.decode().strip()
    return ""


def references(spec: TaskSpec, message: str) -> list[str]:
    """The PR and issue numbers the task's title and commit messages name, the PR's first."""
    found = [str(spec.provenance.pr_number)] if spec.provenance.pr_number else []
    for number in _REFERENCE.findall(f"{spec.provenance.title}\n{message}"):
        if number not in found:
            found.append(number)
    return found


def notes_section(git_dir, spec: TaskSpec, refs: list[str]) -> str:
    """The changelog files at the fix commit: for each one the diff changes, its hunks (new fragments whole); for
    each other release-notes file, the lines naming the PR or an issue of the commit messages, else its head."""
    base, fix = spec.base_sha, spec.fix_sha
    changed = [p for p in _text(git_dir, ["diff", "--name-only", "--no-renames", base, fix]).splitlines() if p]
    touched = [p for p in changed if is_notes_file(p) or is_fragment(p)]
    files = [p for p in _text(git_dir, ["ls-tree", "-r", "--name-only", fix]).splitlines() if is_notes_file(p)]
    out = []
    for path in touched:
        diff = _text(git_dir, ["diff", "-U6", "--no-renames", base, fix, "--", path])
        out.append(f"### {path} (changed by the fix)\n\n" + fenced(capped(diff, MAX_NOTES_LINES * 2, "diff"), "diff"))
    pattern = re.compile(r"(?:#|GH-|gh-|issues/|pull/)(" + "|".join(refs) + r")\b") if refs else None
    for path in (p for p in files if p not in touched):
        lines = (_blob(git_dir, fix, path) or "").splitlines()
        hits = [i for i, line in enumerate(lines) if pattern and pattern.search(line)]
        if hits:
            keep = sorted({j for i in hits for j in range(max(0, i - 4), min(len(lines), i + 5))})
            body, what = _numbered(lines, keep), f"lines naming {', '.join('#' + r for r in refs)}"
        else:
            body, what = _numbered(lines, range(min(len(lines), 30))), "its first 30 lines (nothing names the PR)"
        out.append(f"### {path} at the fix: {what}\n\n" + fenced(capped(body, MAX_NOTES_LINES, "file")))
    return "\n".join(out) or "No changelog, news or release-notes file at the fix commit.\n"


def _counted(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _numbered(lines: list[str], keep) -> str:
    out, last = [], None
    for i in keep:
        if last is not None and i != last + 1:
            out.append("...")
        out.append(f"{i + 1:5d}  {lines[i]}")
        last = i
    return "\n".join(out)


def later_section(git_dir, spec: TaskSpec, tests: list[TestSource], tip: str) -> str:
    """For each fail_to_pass test function: is it the same at the tip; if not, what changed it after the fix and
    how (a later reversal changes the same expected values back)."""
    if not tip:
        return "No default branch in the mirror: later history not read.\n"
    date = _text(git_dir, ["log", "-1", "--format=%h %ad", "--date=short", tip]).strip()
    out = [f"Tip of the default branch: {date}.\n"]
    texts: dict[str, str | None] = {}
    for test in tests:
        if test.path not in texts:
            texts[test.path] = _blob(git_dir, tip, test.path)
        at_tip = find_test(test.path, texts[test.path], tuple(test.qualname.split("."))) if texts[test.path] else None
        if at_tip is None:
            log = _text(git_dir, ["log", "--format=%h %ad %s", "--date=short", f"{spec.fix_sha}..{tip}", "--",
                                  test.path]).splitlines()
            out.append(f"- `{test.qualname}` ({test.path}): not found at the tip (removed, renamed or moved); "
                       f"{len(log)} later commits touch the file" + (":\n" + fenced("\n".join(log[:MAX_LATER_COMMITS]))
                                                                     if log else ".\n"))
        elif at_tip.text == test.text:
            out.append(f"- `{test.qualname}`: unchanged at the tip.\n")
        else:
            log = _text(git_dir, ["log", "-s", "--format=%h %ad %s", "--date=short",
                                  f"-L{at_tip.start},{at_tip.end}:{test.path}", f"^{spec.fix_sha}", tip]).splitlines()
            diff = "\n".join(difflib.unified_diff(test.text.splitlines(), at_tip.text.splitlines(), "at the fix",
                                                  "at the tip", lineterm="", n=2))
            out.append(f"- `{test.qualname}`: changed after the fix by {_counted(len(log), 'commit')}:\n"
                       + fenced("\n".join(log[:MAX_LATER_COMMITS])) + fenced(capped(diff, 80, "diff"), "diff"))
    return "\n".join(out)


def fail_to_pass_tests(git_dir, spec: TaskSpec) -> tuple[list[TestSource], list[str]]:
    """The distinct functions of the fail_to_pass tests at the fix commit, and the ids whose function is not found."""
    found: dict[tuple[str, str], TestSource] = {}
    missing, texts = [], {}
    for test_id in spec.fail_to_pass:
        path, names = split_test_id(test_id)
        if path not in texts:
            texts[path] = _blob(git_dir, spec.fix_sha, path)
        source = find_test(path, texts[path], names) if texts[path] and names else None
        if source is None:
            missing.append(test_id)
        else:
            found.setdefault((path, source.qualname), source)
    return list(found.values()), missing


def material(spec: TaskSpec, git_dir, prompt: str) -> str:
    """The reading material of one PR task, as Markdown."""
    base, fix = spec.base_sha, spec.fix_sha
    log = _text(git_dir, ["log", f"-{MAX_LOG_COMMITS}", "--format=commit %h (%ad)%n%B", "--date=short",
                          f"{base}..{fix}"])
    message = _text(git_dir, ["log", "--format=%B", f"{base}..{fix}"])
    count = len(_text(git_dir, ["rev-list", f"{base}..{fix}"]).split())
    refs = references(spec, message)
    source_diff = _text(git_dir, ["diff", "--no-renames", base, fix, "--", *spec.source_files])
    test_diff = _text(git_dir, ["diff", "--no-renames", base, fix, "--", *spec.test_files])
    others = [line for line in _text(git_dir, ["diff", "--name-status", "--no-renames", base, fix]).splitlines()
              if line.split("\t")[-1] not in (*spec.source_files, *spec.test_files)]
    tests, missing = fail_to_pass_tests(git_dir, spec)
    p = spec.provenance
    parts = [
        f"# {spec.task_id}\n",
        f"- repository: {spec.repo} ({p.url or 'no URL'}); merged {p.merged_at or 'unknown'}",
        f"- PR title: {p.title or '(none)'}",
        f"- base {base}, fix {fix} ({_counted(count, 'commit')} in base..fix)",
        f"- editable (source) files: {', '.join(spec.source_files)}; test files: {', '.join(spec.test_files)}",
        f"- read more: `git --git-dir={git_dir} show {fix[:12]}:PATH`, "
        f"`git --git-dir={git_dir} log {fix[:12]}..HEAD -- PATH`\n",
        "## Commit messages (base..fix)\n", fenced(capped(log, 200, "log")),
        f"## fail_to_pass ({len(spec.fail_to_pass)})\n", fenced("\n".join(spec.fail_to_pass)),
        "## Fix diff: source files\n", fenced(capped(source_diff, MAX_DIFF_LINES, "diff") or "(no change)", "diff"),
        "## Fix diff: test files\n", fenced(capped(test_diff, MAX_DIFF_LINES, "diff") or "(no change)", "diff"),
        "## Other files the fix changes\n", fenced("\n".join(others) or "(none)"),
        "## The fail_to_pass tests at the fix commit\n",
    ]
    for test in tests:
        parts.append(f"### {test.path}::{test.qualname} (lines {test.start}-{test.end})\n")
        parts.append(fenced(capped(test.text, MAX_TEST_LINES, "test"), "python"))
    if missing:
        parts.append("Not found as a function in the test file at the fix (generated or parametrised elsewhere):\n"
                     + fenced("\n".join(missing)))
    parts += ["## Changelog and release notes near the fix\n", notes_section(git_dir, spec, refs),
              "## Later history of these tests\n", later_section(git_dir, spec, tests, tip_of(git_dir)),
              "## The prompt, exactly as a model gets it (`bench prompt TASK`)\n", fenced(prompt)]
    return "\n".join(parts)
