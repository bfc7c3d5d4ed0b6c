"""A mined candidate as the documents `bench mine` writes: a task spec (kind pr) for `bench admit`, and the mine
report that records the run's settings, every candidate and every filtered commit's reason."""

from __future__ import annotations

from bench.mine.miner import COMMIT, Candidate, MineOptions, MineResult

# Candidates are scored on the default image unless their code needs an older interpreter (`bench mine --image`).
DEFAULT_IMAGE = "trixie-py313"


def candidate_document(candidate: Candidate, repo: str, *, image: str = DEFAULT_IMAGE) -> dict:
    """The candidate as a task spec document (kind pr) for `bench admit`."""
    commit = candidate.commit
    return {
        "schema_version": 1,
        "task_id": candidate.task_id,
        "kind": "pr",
        "repo": repo,
        "base_sha": commit.parents[0],
        "fix_sha": commit.sha,
        "source_files": list(candidate.source_files),
        "test_files": list(candidate.test_files),
        "fail_to_pass": [],
        "pass_to_pass": [],
        "image": image,
        "lockfile": f"lockfiles/tasks/{candidate.task_id}.lock",
        "provenance": provenance_of(candidate, repo),
    }


def provenance_of(candidate: Candidate, repo: str) -> dict:
    commit = candidate.commit
    if candidate.pr.style == COMMIT:  # a fix committed directly: the commit is its only record
        return {"source": "commit", "url": f"https://github.com/{repo}/commit/{commit.sha}",
                "merged_at": commit.committed_at, "title": commit.subject}
    # A merge button's subject is "Merge pull request #N from …": the PR's title is its message's first body line.
    title = candidate.pr.title if candidate.pr.style == "merge" else commit.subject
    return {"source": "pull-request", "pr_number": candidate.pr.number,
            "url": f"https://github.com/{repo}/pull/{candidate.pr.number}", "merged_at": commit.committed_at,
            "title": title}


def report_document(result: MineResult, options: MineOptions, metadata: dict | None = None) -> dict:
    """The mine report: counts, every candidate with why it looks like a fix, every filtered commit's reason."""
    reasons: dict[str, int] = {}
    for item in result.filtered:
        reasons[item.reason] = reasons.get(item.reason, 0) + 1
    return {
        "repo": result.repo,
        "branch": result.branch,
        "head": result.head,
        "options": {"since": options.since, "limit": options.limit, "cap": options.cap,
                    "already_admitted": options.already_admitted, "bugfix_only": options.bugfix_only,
                    "maintenance_merges": options.maintenance_merges, "direct_commits": options.direct_commits,
                    "bounds": vars(options.bounds)},
        "counts": {"commits_scanned": result.scanned, "pr_merges": result.pr_merges,
                   "candidates": len(result.candidates), "filtered": dict(sorted(reasons.items()))},
        "candidates": [
            {"task_id": c.task_id, "fix_sha": c.commit.sha, "pr_number": c.pr.number, "style": c.pr.style,
             "pr_title": c.pr.title, "bugfix_keyword": c.bugfix_keyword, "title_hint": c.title_hint,
             "source_lines": c.source_lines,
             "files_changed": c.files_changed, "via": c.via, "metadata": (metadata or {}).get(c.task_id, {"status": "not_requested"})}
            for c in result.candidates
        ],
        "filtered": [{"sha": f.sha, "subject": f.subject, "reason": f.reason} for f in result.filtered],
    }
