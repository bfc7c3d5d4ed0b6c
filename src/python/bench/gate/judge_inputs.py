"""What :mod:`bench.gate.judgement` reads of a PR task, taken from its repository (base..fix): the title and
message, every changed path, the changelog files' added lines, and the task's source and test files on both
sides. Only git objects are read; nothing of the repository runs."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from bench.gate.judgement import NOTES_FILE, FixChange, Judgement, NotesChange, judge
from bench.source.git import ensure_cache, read_blob
from bench.source.git_command import git
from bench.spec.model import TaskSpec

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def judge_spec(spec: TaskSpec, *, mirror: Path | None = None, fix_side_failing: tuple[str, ...] = ()) -> Judgement:
    return judge(fix_change(spec, mirror=mirror, fix_side_failing=fix_side_failing))


def fix_change(spec: TaskSpec, *, mirror: Path | None = None, fix_side_failing: tuple[str, ...] = ()) -> FixChange:
    git_dir = ensure_cache(spec, mirror=mirror).cache
    base, fix = spec.base_sha, spec.fix_sha
    message = git(["log", "-1", "--format=%B", fix], git_dir=git_dir).decode("utf-8", "replace")
    changed = tuple(p for p in git(["diff", "--name-only", "-z", "--no-renames", base, fix], git_dir=git_dir)
                    .decode("utf-8", "replace").split("\0") if p)
    notes = tuple(_notes(git_dir, base, fix, path) for path in changed if is_notes_file(path))
    return FixChange(
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
    )


def is_notes_file(path: str) -> bool:
    name = PurePosixPath(path).name
    return bool(NOTES_FILE.match(name)) and PurePosixPath(path).suffix.lower() in ("", ".md", ".rst", ".txt")


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
