"""What :mod:`bench.gate.judgement` reads of a PR task, taken from its repository (base..fix): the title and
message, every changed path, the changelog files' added lines, the documentation files the change edits, and the
task's source and test files on both sides; and, from the mirror's history (:mod:`bench.gate.judge_history`),
the changelog entries about the change, regressions and later reversals. Only git objects are read; nothing of
the repository runs."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path, PurePosixPath

from bench.gate import judge_history
from bench.gate.change_shapes import changed_expectations, grown_expectations
from bench.gate.contract_changes import all_test_ids, inverted_tests
from bench.gate.judgement import NOTES_FILE, FixChange, Judgement, NotesChange, judge
from bench.gate.change_text import test_functions
from bench.source.git import ensure_cache, mirror_for, read_blob
from bench.source.git_command import git
from bench.spec.model import TaskSpec

_VERSIONS_FILE = re.compile(r"^versions?\.(rst|md)$", re.IGNORECASE)
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def judge_spec(spec: TaskSpec, *, mirror: Path | None = None, fix_side_failing: tuple[str, ...] = ()) -> Judgement:
    change = fix_change(spec, mirror=mirror, fix_side_failing=fix_side_failing)
    return judge(replace(change, read_as_bug=read_as_bug(spec.task_id)))


def read_as_bug(task_id: str) -> bool:
    """Two independent hand readings of the task found a real bug (tasks/_readings/pr.json)."""
    from bench.gate import pr_readings
    from bench.variables import find_root

    found = pr_readings.load(find_root()).get(task_id)
    return bool(found and found.bug_confirmed)


def fix_change(spec: TaskSpec, *, mirror: Path | None = None, fix_side_failing: tuple[str, ...] = ()) -> FixChange:
    git_dir = ensure_cache(spec, mirror=mirror).cache
    base, fix = spec.base_sha, spec.fix_sha
    message = git(["log", "-1", "--format=%B", fix], git_dir=git_dir).decode("utf-8", "replace")
    changed = tuple(p for p in git(["diff", "--name-only", "-z", "--no-renames", base, fix], git_dir=git_dir)
                    .decode("utf-8", "replace").split("\0") if p)
    notes = tuple(_notes(git_dir, base, fix, path) for path in changed if is_notes_file(path))
    change = FixChange(
        title=spec.provenance.title or (message.splitlines() or [""])[0],
        message=message,
        changed_paths=changed,
        notes=tuple(n for n in notes if n is not None),
        source_before=_texts(git_dir, base, spec.source_files),
        source_after=_texts(git_dir, fix, spec.source_files),
        tests_before=_texts(git_dir, base, spec.test_files),
        tests_after=_texts(git_dir, fix, spec.test_files),
        fail_to_pass=spec.fail_to_pass,
        observed=tuple(sorted({*spec.fail_to_pass, *spec.pass_to_pass, *fix_side_failing})),
        fix_side_failing=fix_side_failing,
        docs_after=_texts(git_dir, fix, tuple(p for p in changed if is_docs_file(p))),
    )
    history = mirror_for(spec.repo, mirror) or git_dir
    return with_history(change, history, base, fix, spec.provenance.pr_number, spec.source_files)


def with_history(change: FixChange, git_dir: Path, base: str, fix: str, pr_number: int | None,
                 source_files: tuple[str, ...]) -> FixChange:
    """``change`` with what the history says: changelog entries about it, regressions, later reversals."""
    numbers = judge_history.change_numbers(pr_number, change.title, change.message)
    names = judge_history.edited_names(change.source_before, change.source_after)
    everything = tuple(sorted({*change.fail_to_pass, *all_test_ids(change.tests_after)}))
    old, new = test_functions(change.tests_before, everything), test_functions(change.tests_after, everything)
    rewritten = tuple(sorted({*changed_expectations(old, new), *grown_expectations(old, new),
                              *inverted_tests(old, new)}))
    own = tuple(t for t in change.fail_to_pass if t in new and old.get(t) != new[t])
    reversed_, repinned = judge_history.later_changes(git_dir, fix, judge_history.head(git_dir, fix), own, old, new)
    return replace(change, entries=judge_history.project_word(git_dir, fix, numbers, names),
                   regressions=judge_history.regressions(git_dir, base, fix, rewritten, source_files, old),
                   reversed_later=reversed_, repinned_later=repinned)


def is_docs_file(path: str) -> bool:
    """Documentation the change edits (not a changelog): ``docs/**.rst|md``, ``README*``."""
    pure = PurePosixPath(path)
    return pure.suffix.lower() in (".rst", ".md", ".txt") and not is_notes_file(path) and (
        pure.parts[0] in ("docs", "doc") or pure.name.lower().startswith("readme"))


def is_notes_file(path: str) -> bool:
    name, suffix = PurePosixPath(path).name, PurePosixPath(path).suffix.lower()
    return bool(NOTES_FILE.match(name)) and suffix in ("", ".md", ".rst", ".txt") or bool(
        _VERSIONS_FILE.match(name))  # more-itertools' docs/versions.rst


def _texts(git_dir: Path, sha: str, paths: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return tuple((path, (read_blob(git_dir, sha, path) or b"").decode("utf-8", "replace")) for path in paths)


def _notes(git_dir: Path, base: str, fix: str, path: str) -> NotesChange | None:
    text = read_blob(git_dir, fix, path)
    if text is None:
        return None
    diff = git(["diff", "-U0", "--no-renames", base, fix, "--", path], git_dir=git_dir).decode("utf-8", "replace")
    added = []
    for match in _HUNK.finditer(diff):
        start, count = int(match.group(1)), int(match.group(2) or "1")
        added.extend(range(start, start + count))
    return NotesChange(path, text.decode("utf-8", "replace"), tuple(added))
