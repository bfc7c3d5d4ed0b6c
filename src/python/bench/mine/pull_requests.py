"""Which commits of a history bring in a pull request, and which merges the miner opens for the PRs inside.

A commit is a pull request when

* it is a merge whose subject reads ``Merge pull request #N from …`` (GitHub's merge button; the PR title is the
  message's first body line) — style ``merge``;
* its subject ends in ``(#N)`` and it is not a merge of a branch (GitHub's squash and rebase buttons) —
  style ``squash``;
* its message carries a trailer naming the PR (``PR: #N``, ``Pull-Request: #N``, ``PR-URL: …/pull/N``), as
  projects that land PRs by hand or by a bot write it — style ``trailer``.

A merge that is not a pull request but brings a branch in — ``Merge branch 'stable'``, ``Merge stable into main
(#3521)``, ``Merge tag '1.2.3'``, ``Merge remote-tracking branch …`` — is a **branch merge**: the fixes merged
into that branch (a maintenance or release branch) reach the main line only inside it, so the miner looks at
the commits it brings in, each with its own base. So it does inside a pull request whose branch holds merges
of pull requests of its own (a release branch merged by the button: "Merge pull request #943 from
org/release-2025", titled "Changes for release 10.6.0"): the PRs merged into it are opened like a branch
merge's (:func:`opened_merge`), and the PR itself is screened as any PR is. Only a branch of the repository
itself is opened: the merges on a fork's
branch number the fork's PRs ("Merge pull request #1 from mitsuhiko/master" inside a contributor's PR to
pallets/click). A PR squashed or rebased onto such a branch is not told from a commit that names an issue
("Fix x (#12)"), so only merge-button PRs open it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bench.mine._history import Commit, brought_in

MERGE_SUBJECT = re.compile(r"^Merge pull request #(\d+)\b")
HEAD_OWNER = re.compile(r"^Merge pull request #\d+ from ([^/\s]+)/")  # whose branch the button merged
SQUASH_SUBJECT = re.compile(r"\(#(\d+)\)\s*$")
TRAILER = re.compile(r"^(?:PR|Pull[- ]Request|PR-URL|Pull-Request-URL)\s*:\s*(?:\S*/pulls?/|#)(\d+)\s*$",
                     re.IGNORECASE | re.MULTILINE)
BRANCH_MERGE_SUBJECT = re.compile(
    r"^Merge (?:remote-tracking )?(?:branch|branches|tag) |^Merge [\w./-]+ (?:into|to) [\w./-]+|^Merge [\w./-]+$",
    re.IGNORECASE)


@dataclass(frozen=True)
class PullRequest:
    number: int
    style: str  # "merge" | "squash" | "trailer"
    title: str  # the PR title: the merge commit's first body line, else the subject without "(#N)"


def parse_pull_request(commit: Commit) -> PullRequest | None:
    """The PR a commit brings in, from its subject or its trailer; None for a direct commit or a branch merge."""
    merge = MERGE_SUBJECT.match(commit.subject)
    if merge and _merge_button(commit):
        title = commit.body.splitlines()[0].strip() if commit.body else commit.subject
        return PullRequest(int(merge.group(1)), "merge", title)
    if is_branch_merge(commit) or not commit.parents:
        return None
    squash = SQUASH_SUBJECT.search(commit.subject)
    if squash:
        return PullRequest(int(squash.group(1)), "squash", commit.subject[:squash.start()].strip())
    trailer = TRAILER.search(commit.body)
    if trailer:
        return PullRequest(int(trailer.group(1)), "trailer", commit.subject.strip())
    return None


def is_branch_merge(commit: Commit) -> bool:
    """A merge of a branch (a maintenance or release branch, a tag) rather than of one pull request."""
    return len(commit.parents) > 1 and not MERGE_SUBJECT.match(commit.subject) \
        and bool(BRANCH_MERGE_SUBJECT.match(commit.subject))


def opened_merge(git_dir: Path, commit: Commit, repo: str) -> tuple[Commit, ...]:
    """The commits the miner looks at inside ``commit``: those a branch merge brings in, and those of a PR merge
    of a branch of ``repo`` (owner/name) that holds merge-button PRs of its own; () for every other commit (an
    ordinary PR is one change)."""
    if is_branch_merge(commit):
        return brought_in(git_dir, commit)
    owner = HEAD_OWNER.match(commit.subject)
    if not _merge_button(commit) or not owner or owner.group(1).lower() != repo.split("/")[0].lower():
        return ()
    inner = brought_in(git_dir, commit)
    return inner if any(_merge_button(each) for each in inner) else ()


def _merge_button(commit: Commit) -> bool:
    return len(commit.parents) > 1 and bool(MERGE_SUBJECT.match(commit.subject))
