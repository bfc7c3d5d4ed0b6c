"""Mining candidate tasks from a repository's history: merged pull requests that fix a bug in Python code.

Walk: the first-parent line of the mirror's default branch, **newest first** (git's order), so `--limit` and
the per-library cap keep the most recent changes — they install best on the current interpreter. A commit is
a pull request when it is a merge whose subject reads "Merge pull request #N …" or a commit whose subject ends
with "(#N)" (a squash merge). base_sha = its first parent, fix_sha = the commit itself.

Filters, in the order applied (the first that fails is the commit's recorded reason): a PR merge; not older
than `since`; a title that is not docs/CI/refactor/release chores; not a revert (whatever its quoted title
says); at least one changed non-test Python source file (renames without edits do not count) and one changed
test file; size bounds; no changelog fragment of its own calling it a feature or breaking change without one
calling it a fix; a bug-fix keyword only when `bugfix_only`; not a task the pool already admitted or dropped.
Candidates that pass are ordered: titles that read as a feature or refactoring last; before them a strong
bug-fix word first, a weak one ("issue") next, none last; history order (newest first) within each group. The
cap and the limit cut that ordered list. Duplicates (the same fix twice) are left to admission, which sees the
certified targets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from bench.gate.judgement import fragment_categories, is_revert, title_category
from bench.mine._history import Commit, FileChange, changed_files, default_branch, existing_paths, \
    first_parent_log, resolve
from bench.mine.pull_requests import PullRequest, is_branch_merge, opened_merge, \
    parse_pull_request  # noqa: F401 (re-exported)

# Conventional-commit prefixes that mean "no behaviour change"; always skipped.
CHORE_PREFIX = re.compile(r"^\s*(docs?|ci|chore|build|style|test|tests)(\([^)]*\))?!?\s*:", re.IGNORECASE)
# Words that usually mean "no behaviour change"; skipped unless the title also names a bug.
CHORE_WORDS = re.compile(r"\b(refactor\w*|bump\w*|release[sd]?|releasing)\b", re.IGNORECASE)
# Typo fixes say "fix" but change no behaviour: always skipped.
TYPO_WORDS = re.compile(r"\b(typos?|spelling|codespell)\b", re.IGNORECASE)
BUGFIX_WORDS = re.compile(r"\b(fix\w*|bug\w*|issue\w*|regression\w*|error\w*|crash\w*|incorrect\w*|wrong\w*)",
                          re.IGNORECASE)
# "issue" often names a feature request ("Issue 12: add foo"): a weaker hint than the others, ordered after them.
WEAK_BUGFIX_WORDS = ("issue",)
COMMIT = "commit"  # the style of a direct commit's stand-in PullRequest (number 0)
TEST_DIRS = frozenset({"test", "tests", "testing"})
# Python that is not the library: documentation, examples, packaging and tooling scripts.
NON_SOURCE_DIRS = frozenset({"docs", "doc", "examples", "example", "benchmarks", "benchmark", "scripts", "tools",
                             ".github", "ci", "tasks", "bench"})
NON_SOURCE_NAMES = frozenset({"setup.py", "noxfile.py", "fabfile.py", "conftest.py", "tasks.py", "dodo.py"})


@dataclass(frozen=True)
class Bounds:
    max_source_files: int = 6
    max_source_lines: int = 300
    max_files: int = 10


@dataclass(frozen=True)
class MineOptions:
    since: str = ""  # ISO date; commits merged before it are skipped
    limit: int | None = None  # at most this many candidates
    cap: int = 25  # per-library cap on candidates (admission applies it to admitted tasks)
    already_admitted: int = 0  # tasks of this library already in the pool: they count against the cap
    bugfix_only: bool = False
    bounds: Bounds = field(default_factory=Bounds)
    known_task_ids: frozenset[str] = frozenset()  # admitted or dropped before: not candidates again
    maintenance_merges: bool = True  # look inside merges of maintenance/release branches for their PRs
    direct_commits: bool = False  # also commits that land a fix without a PR (a strong bug-fix word required)


@dataclass(frozen=True)
class Candidate:
    task_id: str
    commit: Commit
    pr: PullRequest
    source_files: tuple[str, ...]
    test_files: tuple[str, ...]
    source_lines: int
    files_changed: int
    bugfix_keyword: str  # the first bug-fix word in title/body, "" when none
    title_hint: str = ""  # what the title says the change is (bench.gate.judgement.title_category)
    via: str = ""  # the branch merge that brought it to the main line ("" when it is on it)


@dataclass(frozen=True)
class Filtered:
    sha: str
    subject: str
    reason: str
    task_id: str = ""  # a known task's id (reason known_task): which of the pool's decisions it met


@dataclass(frozen=True)
class MineResult:
    repo: str
    branch: str
    head: str
    scanned: int
    pr_merges: int
    candidates: tuple[Candidate, ...]
    filtered: tuple[Filtered, ...]


# ---------------------------------------------------------------------------------------------- classification

def is_test_file(path: str) -> bool:
    parts = PurePosixPath(path).parts
    name = parts[-1]
    return (any(p in TEST_DIRS for p in parts[:-1]) or name == "conftest.py"
            or (name.startswith("test_") and name.endswith(".py")) or name.endswith("_test.py"))


def is_source_file(path: str) -> bool:
    """A Python file of the library itself (not a test, doc, example or packaging script)."""
    parts = PurePosixPath(path).parts
    if not path.endswith(".py") or is_test_file(path) or parts[-1] in NON_SOURCE_NAMES:
        return False
    return not any(p in NON_SOURCE_DIRS for p in parts[:-1])


def is_target_test(path: str) -> bool:
    """A test file the gate runs: a test module, never conftest.py or test data."""
    return path.endswith(".py") and is_test_file(path) and PurePosixPath(path).name != "conftest.py"


def bugfix_keyword(*texts: str) -> str:
    """The first strong bug-fix word in `texts` (searched in order), else the first weak one, else ""."""
    found = [m.group(1).lower() for text in texts for m in BUGFIX_WORDS.finditer(text)]
    strong = [word for word in found if not word.startswith(WEAK_BUGFIX_WORDS)]
    return (strong or found or [""])[0]


def bugfix_rank(keyword: str) -> int:
    """0 for a strong bug-fix word, 1 for a weak one, 2 for none: the candidates' sort key."""
    if not keyword:
        return 2
    return 1 if keyword.startswith(WEAK_BUGFIX_WORDS) else 0


def chore_title(title: str) -> bool:
    if CHORE_PREFIX.match(title) or TYPO_WORDS.search(title):
        return True
    return bool(CHORE_WORDS.search(title)) and not bugfix_keyword(title)


def library_name(repo: str) -> str:
    """The library name used in task ids and pool folders (the repo's name, as TaskSpec.library has it)."""
    name = repo.rstrip("/").split("/")[-1].removesuffix(".git").lower()
    return re.sub(r"[^a-z0-9_.-]+", "-", name).strip("-.") or "repo"


# ------------------------------------------------------------------------------------------------------ filters

def screen_changes(changes: tuple[FileChange, ...], bounds: Bounds) -> str:
    """The reason a change set is not a candidate, or "" when it is one (before existence checks)."""
    edited = [c for c in changes if c.status != "R100" and c.status != "C100"]
    source = [c for c in edited if is_source_file(c.path) and c.status != "D"]
    tests = [c for c in edited if is_target_test(c.path) and c.status != "D"]
    if not source:
        return "no_source_change"
    if not tests:
        return "no_test_change"
    if len(source) > bounds.max_source_files:
        return "too_many_source_files"
    if sum(c.added + c.deleted for c in source) > bounds.max_source_lines:
        return "too_many_source_lines"
    if len(changes) > bounds.max_files:
        return "too_many_files"
    return ""


def build_candidate(git_dir: Path, repo: str, commit: Commit, pr: PullRequest,
                    changes: tuple[FileChange, ...]) -> Candidate | str:
    """A candidate for `commit`, or the reason it is not one (its files must exist at fix)."""
    edited = [c for c in changes if c.status not in ("R100", "C100", "D")]
    wanted = tuple(c.path for c in edited if is_source_file(c.path) or is_target_test(c.path))
    present = existing_paths(git_dir, commit.sha, wanted)
    source = tuple(c.path for c in edited if is_source_file(c.path) and c.path in present)
    tests = tuple(c.path for c in edited if is_target_test(c.path) and c.path in present)
    if not source:
        return "no_source_change"
    if not tests:
        return "no_test_change"
    lines = sum(c.added + c.deleted for c in edited if c.path in source)
    keyword = bugfix_keyword(pr.title, commit.subject, commit.body)
    return Candidate(task_id_of(repo, commit, pr), commit, pr, source, tests, lines, len(changes), keyword,
                     title_category(pr.title))


def task_id_of(repo: str, commit: Commit, pr: PullRequest) -> str:
    """``<library>-<PR number>``; a direct commit has no number: ``<library>-c<first 10 hex of its sha>``."""
    return f"{library_name(repo)}-{pr.number}" if pr.style != COMMIT else f"{library_name(repo)}-c{commit.sha[:10]}"


def project_says_not_a_fix(changes: tuple[FileChange, ...]) -> str:
    """The drop reason when the change's own changelog fragments call it a feature, a breaking change or something
    filed apart from fixes (misc, docs) and none calls it a fix ("" otherwise): admission would drop it as not a
    bug fix after certifying it."""
    categories = fragment_categories(tuple(c.path for c in changes))
    if not categories or "bugfix" in categories:
        return ""
    return next(f"{kind}_fragment" for kind in ("breaking", "feature", "change") if kind in categories)


def since_ok(commit: Commit, since: str) -> bool:
    return not since or commit.committed_at >= _normal_since(since)


def _normal_since(since: str) -> str:
    return since if "T" in since else since + "T00:00:00Z"


# --------------------------------------------------------------------------------------------------------- mine

def mine(git_dir: Path, repo: str, options: MineOptions = MineOptions(), *, ref: str | None = None) -> MineResult:
    """Scan `git_dir`'s first-parent history (and, inside merges of maintenance branches and PRs of PRs, the
    commits they bring in) and return the ordered candidates and every filtered commit. A PR of PRs is screened
    as a PR too: a release's ("Changes for release 2.0") falls to its title, a fix with a follow-up PR merged
    into its branch stays a candidate."""
    branch = ref or default_branch(git_dir)
    commits = first_parent_log(git_dir, branch)
    filtered: list[Filtered] = []
    passed: list[Candidate] = []
    pr_merges = 0
    seen_numbers: set[int] = set()
    for commit, via in _walk(git_dir, repo, commits, options):
        reason, candidate = _screen(git_dir, repo, commit, options, seen_numbers)
        pr_merges += reason not in ("not_a_pr_merge", "branch_merge")
        if reason:
            filtered.append(Filtered(commit.sha, commit.subject, reason, candidate.task_id if candidate else ""))
        else:
            if candidate.pr.style != COMMIT:
                seen_numbers.add(candidate.pr.number)
            passed.append(replace(candidate, via=via))
    kept, cut = cap_candidates(order_candidates(passed), options)
    filtered.extend(cut)
    return MineResult(repo, branch, resolve(git_dir, branch), len(commits), pr_merges, tuple(kept),
                      tuple(filtered))


def _walk(git_dir: Path, repo: str, commits: tuple[Commit, ...], options: MineOptions):
    """Each first-parent commit, newest first; after a merge the miner opens (a branch merge, a PR of PRs:
    :func:`opened_merge`), the commits it brings in (``via`` it)."""
    for commit in commits:
        yield commit, ""
        for inner in opened_merge(git_dir, commit, repo) if options.maintenance_merges else ():
            yield inner, commit.sha


def _screen(git_dir, repo, commit, options, seen_numbers) -> tuple[str, Candidate | None]:
    if is_branch_merge(commit):
        return "branch_merge", None
    pr = parse_pull_request(commit)
    if pr is None:
        if not (options.direct_commits and len(commit.parents) == 1):
            return "not_a_pr_merge", None
        pr = PullRequest(0, COMMIT, commit.subject.strip())
    if pr.style != COMMIT and pr.number in seen_numbers:  # a later revert/re-land naming the same PR: newest
        return "pr_number_seen", None
    if not since_ok(commit, options.since):
        return "before_since", None
    if chore_title(pr.title) or chore_title(commit.subject):
        return "chore_title", None
    if is_revert(pr.title, f"{commit.subject}\n{commit.body}"):
        return "revert", None
    if pr.style == COMMIT and bugfix_rank(bugfix_keyword(commit.subject)) != 0:
        return "direct_commit_not_a_fix", None  # without a PR's review, only a subject that names a fix
    changes = changed_files(git_dir, commit.parents[0], commit.sha)
    reason = screen_changes(changes, options.bounds) or project_says_not_a_fix(changes)
    if reason:
        return reason, None
    built = build_candidate(git_dir, repo, commit, pr, changes)
    if isinstance(built, str):
        return built, None
    if options.bugfix_only and not built.bugfix_keyword:
        return "no_bugfix_keyword", None
    if built.task_id in options.known_task_ids:
        return "known_task", built  # filtered, with the id that says which decision of the pool it met
    return "", built


def order_candidates(candidates: list[Candidate]) -> list[Candidate]:
    """Titles that read as a feature or a refactoring last; before them strong bug-fix words first, then weak
    ones, then none; history order (newest first) within each group (`sorted` is stable)."""
    return sorted(candidates, key=lambda c: (c.title_hint in ("feature", "refactor"), bugfix_rank(c.bugfix_keyword)))


def cap_candidates(candidates: list[Candidate], options: MineOptions) -> tuple[list[Candidate], list[Filtered]]:
    room = max(0, options.cap - options.already_admitted)
    if options.limit is not None:
        room = min(room, options.limit)
    kept = candidates[:room]
    reason = "over_limit" if options.limit is not None and room == options.limit else "over_library_cap"
    cut = [Filtered(c.commit.sha, c.commit.subject, reason) for c in candidates[room:]]
    return kept, cut
