"""Reverted fixes: a release's own past bug fixes, undone in the released tree, as mutation candidates.

A single-site mutant is made by a tool; careful readers find it on sight in most cases, because the rest of the
function still expects the original (docs/measurements/mutation-audit.md). A fix the maintainers made before the
release is different: the code it replaced was written by them and shipped, and it lived beside the same
neighbours. This module reads the project's history (a git mirror) up to the release's tag and, for each small
fix of one library file whose fixed text is still in the released file, proposes to put the code from before
the fix back.

A candidate is an ordinary byte-span edit (:class:`bench.spec.model.MutationSite`, operator ``reverted_fix``,
engine version ``history``): the same gate, the same giveaway refusal and the same cap decide it. Which commit
it undoes is recorded by id only.
"""

from __future__ import annotations

import ast
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bench import pyast
from bench.errors import UsageError
from bench.mutate import files as file_selection
from bench.mutate.engine import MutationCandidate, _diff
from bench.source.mutation_site import text_sha256
from bench.spec.model import MutationSite

OPERATOR = "reverted_fix"
ENGINE = "history"
MAX_CHANGED_LINES = 6  # removed plus added: a fix a reader can hold in mind, as small as most shipped fixes
MAX_INNER_CONTEXT = 3

# A subject that says it fixes something, and none of the words of changes that are not behaviour fixes.
_FIX_WORDS = re.compile(r"\b(fix|fixes|fixed|fixing|bug|bugs|wrong|incorrect|regression|broken|crash|"
                        r"mishandl\w*|off[- ]by[- ]one)\b", re.IGNORECASE)
_NOT_A_FIX = re.compile(r"\b(typo\w*|flake8|lint\w*|pylint|ruff|mypy|pyright|typing|type hints?|annotations?|"
                        r"style|format\w*|black|isort|pre-commit|docs?|docstrings?|documentation|readme|changelog|"
                        r"spelling|grammar|deprecat\w*|refactor\w*|cleanup|clean up|revert\w*|bump|support|"
                        r"feature|new|implement\w*|ci|flaky|warning\w*)\b",
                        re.IGNORECASE)


@dataclass(frozen=True)
class RevertedFix:
    """A candidate and the commit whose fix it undoes (by id)."""

    candidate: MutationCandidate
    commit: str


@dataclass(frozen=True)
class _Hunk:
    lead: tuple[str, ...]  # context before the first change
    before: tuple[str, ...]  # the changed region before the fix (inner context included)
    after: tuple[str, ...]  # the same region after the fix
    trail: tuple[str, ...]


def is_fix_subject(subject: str) -> bool:
    """Whether a commit subject claims a behaviour fix (and not a typo, lint, docs, feature or revert)."""
    return bool(_FIX_WORDS.search(subject)) and not _NOT_A_FIX.search(subject)


def _git(git_dir: Path, *args: str) -> str:
    done = subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True,
                          encoding="utf-8", errors="replace")
    if done.returncode != 0:
        raise UsageError(f"git {' '.join(args[:2])} in {git_dir} failed: {done.stderr.strip()[:200]}")
    return done.stdout


def resolve_tag(git_dir: Path, version: str, tag: str | None = None) -> str:
    """The release's tag: ``tag`` when given, else the first of ``v<version>``, ``<version>`` that exists."""
    names = (tag,) if tag else (f"v{version}", version)
    for name in names:
        done = subprocess.run(["git", "--git-dir", str(git_dir), "rev-parse", "--verify", "--quiet",
                               f"refs/tags/{name}^{{commit}}"], capture_output=True, text=True)
        if done.returncode == 0:
            return name
    raise UsageError(f"no tag {' or '.join(names)} in {git_dir}: name the release's tag with --tag")


def _single_hunk(diff: str) -> _Hunk | None:
    """The hunk of a one-hunk diff, split into lead context, changed region (before/after) and trail context."""
    hunks = diff.split("\n@@")[1:]
    if len(hunks) != 1:
        return None
    body = [line for line in hunks[0].split("\n")[1:] if line and not line.startswith("\\")]
    changed = [i for i, line in enumerate(body) if line[0] in "+-"]
    if not changed:
        return None
    first, last = changed[0], changed[-1]
    region = body[first : last + 1]
    inner_context = sum(1 for line in region if line[0] == " ")
    if len(changed) > MAX_CHANGED_LINES or inner_context > MAX_INNER_CONTEXT:
        return None
    return _Hunk(
        lead=tuple(line[1:] for line in body[:first]),
        before=tuple(line[1:] for line in region if line[0] != "+"),
        after=tuple(line[1:] for line in region if line[0] != "-"),
        trail=tuple(line[1:] for line in body[last + 1 :]),
    )


def _locate(lines: list[str], hunk: _Hunk) -> int | None:
    """The line index where the fixed region starts in the released file, if its context makes it unique."""
    block = [*hunk.lead, *hunk.after, *hunk.trail]
    bare = [line.rstrip("\r\n") for line in lines]
    found = [i for i in range(len(bare) - len(block) + 1) if bare[i : i + len(block)] == block]
    return found[0] + len(hunk.lead) if len(found) == 1 else None


def _enclosing_function(tree: ast.Module, line: int) -> str:
    best = "<module>"

    def visit(node: ast.AST, prefix: str) -> None:
        nonlocal best
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if child.lineno <= line <= (child.end_lineno or child.lineno):
                    if not isinstance(child, ast.ClassDef):
                        best = name
                    visit(child, name + ".")

    visit(tree, "")
    return best


def revert_in_file(path: str, data: bytes, hunk: _Hunk) -> tuple[MutationSite, str, str] | None:
    """The site that puts ``hunk``'s code from before the fix back into ``data`` (the released file), its
    original text and diff; None when the fixed code is not there once, or undoing it changes no behaviour."""
    text = data.decode("utf-8")
    lines = text.splitlines(keepends=True)
    at = _locate(lines, hunk)
    if at is None:
        return None
    start = sum(len(line.encode("utf-8")) for line in lines[:at])
    end = start + sum(len(line.encode("utf-8")) for line in lines[at : at + len(hunk.after)])
    replacement = "".join(line + "\n" for line in hunk.before)
    if hunk.before and hunk.after and data[end - 1 : end] == b"\n":
        end, replacement = end - 1, replacement[:-1]  # keep the last line's newline out of the span
    mutated = data[:start] + replacement.encode("utf-8") + data[end:]
    try:
        released, reverted = pyast.parse(data), pyast.parse(mutated)
    except SyntaxError:
        return None
    if ast.dump(released) == ast.dump(reverted):  # a comment or layout change: no behaviour to restore
        return None
    original = data[start:end].decode("utf-8")
    site = MutationSite(file=path, function=_enclosing_function(released, at + 1), operator=OPERATOR,
                        lineno=at + 1, col=0, start=start, end=end, original_sha256=text_sha256(original),
                        replacement=replacement, engine_version=ENGINE, seed=0, index=0)
    return site, original, _diff(path, data, (start, end, replacement))


def _changes(git_dir: Path, tag: str) -> list[tuple[str, str]]:
    """(commit, subject) of every change before ``tag``, newest first: each commit, and each merge as the change
    it brought to its first parent, named by its pull request's title when its subject is git's "Merge pull
    request #N from ..." (projects that merge pull requests fix in merges, not in commits named "fix")."""
    changes = []
    for record in _git(git_dir, "log", "--format=%H%x09%P%x09%s%x09%b%x1e", tag).split("\x1e"):
        commit, parents, subject, body = (record.strip("\n").split("\t", 3) + ["", "", ""])[:4]
        if not commit or not parents:
            continue
        if len(parents.split()) > 1 and subject.startswith("Merge pull request"):
            subject = next((line.strip() for line in body.splitlines() if line.strip()), subject)
        changes.append((commit, subject))
    return changes


def _released_path(path: str, library: set[str]) -> str | None:
    """Where a file of the history sits in the release: the same path, or the one library file ending in it (a
    project that moved its package under ``src/`` after the fix)."""
    if path in library:
        return path
    moved = [name for name in library if name.endswith("/" + path)]
    return moved[0] if len(moved) == 1 else None


def reverted_fixes(tree: Path, git_dir: Path, tag: str) -> tuple[RevertedFix, ...]:
    """Every fix before ``tag`` that changed one library file of ``tree`` in one small hunk, undone in the
    released file: sorted by (file, start), numbered, one per site (the newest fix of a span wins)."""
    library = set(file_selection.list_library_files(tree))
    found: dict[tuple[str, int, int], RevertedFix] = {}
    for commit, subject in _changes(git_dir, tag):
        if not is_fix_subject(subject):
            continue
        touched = [name for name in _git(git_dir, "diff", "--name-only", "--no-renames", f"{commit}^", commit)
                   .splitlines() if name.endswith(".py") and not file_selection.matches(name, file_selection.DEFAULT_EXCLUDE)]
        released = _released_path(touched[0], library) if len(touched) == 1 else None
        if released is None:
            continue
        hunk = _single_hunk(_git(git_dir, "diff", "-U3", "--no-color", "--no-ext-diff", f"{commit}^", commit,
                                 "--", touched[0]))
        if hunk is None:
            continue
        made = revert_in_file(released, (tree / released).read_bytes(), hunk)
        if made is not None:
            site, original, diff = made
            found.setdefault((site.file, site.start, site.end), RevertedFix(MutationCandidate(site, original, diff), commit))
    ordered = sorted(found.values(), key=lambda fix: (fix.candidate.site.file, fix.candidate.site.start))
    return tuple(_numbered(fix, index) for index, fix in enumerate(ordered))


def _numbered(fix: RevertedFix, index: int) -> RevertedFix:
    from dataclasses import replace

    candidate = fix.candidate
    return RevertedFix(MutationCandidate(replace(candidate.site, index=index), candidate.original, candidate.diff),
                       fix.commit)
