"""One bug, one item: a reverted-fix mutation task (operator ``reverted_fix``, ``provenance.reverted_commit``)
re-plants a fix of the project's history in a released file; when that fix is also a PR task of the pool, the
two items are one bug counted twice.

A mutation task and a PR task are **twins** when the reverted commit is the PR task's fix commit, or lies in its
``base..fix`` range (a commit of the merged pull request: reachable from the fix, not from the base), read from
the PR task's repository mirror; or, where no mirror of the PR task's repository is at hand, when they share a fail_to_pass test id and the mutated file
is one of the PR task's source files. The PR task is the one kept: it is the real history, with the
maintainers' own test and the base the bug lived in; the mutation re-plays the same fix in a later release.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.source.git_command import git_try

REVERTED_FIX = "reverted_fix"


@dataclass(frozen=True)
class Twin:
    mutation: str  # task id of the reverted-fix mutation task
    pr: str  # task id of the PR task whose fix it re-plants
    how: str  # "fix-commit", "pr-commit" or "same-test"


def reverted_fixes(specs) -> list:
    # a task's own data says what it is (a mutation record; a PR's fix commit): kinds stay behind their seam
    return [s for s in specs if s.mutation is not None
            and s.mutation.operator == REVERTED_FIX and s.provenance.reverted_commit]


def _in_range(git_dir: Path, commit: str, base: str, fix: str) -> bool:
    def ancestor(a: str, b: str) -> bool:
        return git_try(["merge-base", "--is-ancestor", a, b], git_dir=git_dir) is not None
    return ancestor(commit, fix) and not ancestor(commit, base)


def find_twins(specs, mirror_of=None) -> tuple[Twin, ...]:
    """Every (mutation, PR task) pair of ``specs`` that is one bug. ``mirror_of(repo) -> git dir | None``
    gives the PR tasks' history (default: ``BENCH_MIRROR_DIR``'s mirrors)."""
    if mirror_of is None:
        from bench.source.git import mirror_for

        mirror_of = mirror_for
    by_repo: dict[str, list] = {}
    for spec in specs:
        if spec.mutation is None and spec.fix_sha:
            by_repo.setdefault(spec.repo, []).append(spec)
    mirrors = {repo: mirror_of(repo) for repo in by_repo}
    found = []
    for mutation in reverted_fixes(specs):
        commit = mutation.provenance.reverted_commit
        for repo, prs in by_repo.items():
            git_dir = mirrors[repo]
            held = git_dir is not None and git_try(["cat-file", "-e", f"{commit}^{{commit}}"], git_dir=git_dir) \
                is not None
            for pr in prs:
                how = _match(mutation, pr, commit, git_dir if held else None, git_dir is not None)
                if how:
                    found.append(Twin(mutation.task_id, pr.task_id, how))
    return tuple(sorted(found, key=lambda t: (t.mutation, t.pr)))


def _match(mutation, pr, commit: str, git_dir: Path | None, mirrored: bool) -> str:
    if pr.fix_sha.startswith(commit) or commit.startswith(pr.fix_sha):
        return "fix-commit"
    if git_dir is not None and _in_range(git_dir, commit, pr.base_sha, pr.fix_sha):
        return "pr-commit"
    if not mirrored and set(mutation.fail_to_pass) & set(pr.fail_to_pass) and \
            mutation.mutation.file in pr.source_files:
        return "same-test"  # no history to read: the same failing test on the same file
    return ""


def distinct_bugs(specs, twins: tuple[Twin, ...]) -> dict:
    """``items``: the tasks; ``duplicates``: items that re-count a bug another item of the pool holds;
    ``distinct``: the bugs."""
    ids = {s.task_id for s in specs}
    duplicates = {t.mutation for t in twins if t.mutation in ids and t.pr in ids}
    return {"items": len(ids), "duplicates": len(duplicates), "distinct": len(ids) - len(duplicates)}


RECORD = Path("tasks") / "_retired" / "twins.json"


def recorded(root: Path) -> tuple[Twin, ...]:
    """The twins found with the mirrors and recorded when the mutation twin was retired (``RECORD``)."""
    import json

    path = root / RECORD
    if not path.exists():
        return ()
    return tuple(Twin(mutation, entry["pr"], entry["how"]) for mutation, entry in
                 sorted(json.loads(path.read_text(encoding="utf-8")).items()))


def pool_twins(specs, root: Path) -> tuple[Twin, ...]:
    """The twins a pool's statistics count without reading any history: the recorded ones, and a reverted
    commit that is a PR task's fix commit."""
    direct = tuple(t for t in find_twins(specs, mirror_of=lambda repo: None) if t.how == "fix-commit")
    return tuple(sorted(set(recorded(root)) | set(direct), key=lambda t: (t.mutation, t.pr)))


def distinct_bugs_line(specs, root: Path) -> str:
    counts = distinct_bugs(specs, pool_twins(specs, root))
    return (f"distinct bugs: {counts['distinct']} ({counts['items']} items; {counts['duplicates']} cross-kind "
            f"duplicates)")
