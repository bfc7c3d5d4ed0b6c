"""Constructed git histories for tests: commits written with ``git fast-import`` (no work tree), dates fixed,
so the same script gives the same shas on every machine."""

from __future__ import annotations

from pathlib import Path

from bench.source.git_command import git

BASE_EPOCH = 1_700_000_000  # 2023-11-14; one day per commit


def fast_import_commit(branch: str, *, day: int, message: str, files: dict, parents=(), deletes=(),
                       renames=()) -> str:
    """One fast-import commit on ``branch`` marked ``:day`` (parents are marks like ``":3"`` or shas)."""
    when = f"{BASE_EPOCH + day * 86400} +0000"
    data = message.encode()
    lines = [f"commit refs/heads/{branch}", f"mark :{day}", f"author Dev <dev@example.invalid> {when}",
             f"committer Dev <dev@example.invalid> {when}", f"data {len(data)}", message]
    for index, parent in enumerate(parents):
        lines.append(("from " if index == 0 else "merge ") + parent)
    for old, new in renames:
        lines.append(f"R {old} {new}")
    for path in deletes:
        lines.append(f"D {path}")
    for path, text in files.items():
        blob = text.encode()
        lines += [f"M 100644 inline {path}", f"data {len(blob)}", text]
    return "\n".join(lines) + "\n"


def bare_repository(git_dir: Path, commits: list[str], head: str = "main") -> Path:
    """A bare repository holding ``commits`` (fast-import text), its HEAD on ``head``."""
    git(["init", "--bare", "-q", str(git_dir)])
    git(["fast-import", "--quiet"], git_dir=git_dir, input="".join(commits).encode())
    git(["symbolic-ref", "HEAD", f"refs/heads/{head}"], git_dir=git_dir)
    return git_dir
