"""The miner inside branch merges, PR numbers from trailers, and direct fix commits, on constructed histories."""

from __future__ import annotations

from bench.mine.documents import candidate_document
from bench.mine.miner import MineOptions, mine
from bench.mine.pull_requests import is_branch_merge, parse_pull_request
from bench.mine._history import Commit, first_parent_log
from bench.spec.load import spec_from_document
from bench.testing.git_history import bare_repository, fast_import_commit as commit

REPO = "acme/widgets"


def _code(n: int) -> str:
    return "".join(f"def f{i}():\n    return {i + n}\n\n\n" for i in range(3))


def _test(name: str) -> str:
    return f"def test_{name}():\n    pass\n"


def _initial() -> str:
    return commit("main", day=1, message="initial", files={"pkg/core.py": _code(0), "tests/test_core.py": _test("a")})


def _stable_history(tmp_path):
    """main: initial → a PR → Merge branch 'stable'; stable (from initial): a PR merged into it, a squash."""
    s = [_initial()]
    s.append(commit("stable", day=2, message="Fix rounding of totals (#30)", parents=(":1",), files={
        "pkg/core.py": _code(1), "tests/test_core.py": _test("b")}))
    s.append(commit("topic", day=3, message="fix the parser", parents=(":2",), files={
        "pkg/parse.py": _code(2), "tests/test_parse.py": _test("c")}))
    s.append(commit("stable", day=4, message="Merge pull request #31 from dev/parser\n\nFix the parser on empty input",
                    parents=(":2", ":3"), files={"pkg/parse.py": _code(2), "tests/test_parse.py": _test("c")}))
    s.append(commit("stable", day=5, message="Release 1.0.1", parents=(":4",), files={"CHANGES.md": "1.0.1\n"}))
    s.append(commit("main", day=6, message="Fix crash on None (#32)", parents=(":1",), files={
        "pkg/core.py": _code(3), "tests/test_core.py": _test("d")}))
    s.append(commit("main", day=7, message="Merge branch 'stable'", parents=(":6", ":5"), files={
        "pkg/parse.py": _code(2), "tests/test_parse.py": _test("c"), "CHANGES.md": "1.0.1\n"}))
    return bare_repository(tmp_path / "widgets.git", s)


def test_prs_merged_into_a_maintenance_branch_are_proposed_with_the_parent_they_were_made_on(tmp_path):
    git_dir = _stable_history(tmp_path)
    result = mine(git_dir, REPO)
    by_id = {c.task_id: c for c in result.candidates}
    assert sorted(by_id) == ["widgets-30", "widgets-31", "widgets-32"]
    squash, merged, direct = by_id["widgets-30"], by_id["widgets-31"], by_id["widgets-32"]
    merge_sha = next(f.sha for f in result.filtered if f.subject == "Merge branch 'stable'")
    # each PR's base is the commit it was made on, on the stable branch; both reached main via the merge
    initial = first_parent_log(git_dir, "refs/heads/main")[-1].sha
    assert (squash.pr.style, squash.commit.parents[0], squash.via) == ("squash", initial, merge_sha)
    assert (merged.pr.style, merged.commit.parents[0], merged.via) == ("merge", squash.commit.sha, merge_sha)
    assert merged.pr.title == "Fix the parser on empty input" and direct.via == ""
    assert {f.subject: f.reason for f in result.filtered}["Merge branch 'stable'"] == "branch_merge"
    assert candidate_document(merged, REPO)["base_sha"] == squash.commit.sha
    without = mine(git_dir, REPO, MineOptions(maintenance_merges=False))
    assert [c.task_id for c in without.candidates] == ["widgets-32"]


def _c(subject: str, body: str = "", parents=("a" * 40,)) -> Commit:
    return Commit("f" * 40, parents, "2024-01-01T00:00:00Z", subject, body)


def test_a_pr_is_recognised_by_its_subject_its_merge_message_or_its_trailer():
    two = ("a" * 40, "b" * 40)
    assert parse_pull_request(_c("Merge pull request #7 from x/y", "Fix z", two)).number == 7
    assert parse_pull_request(_c("Fix z (#8)")).style == "squash"
    for trailer in ("PR: #9", "Pull-Request: #9", "PR-URL: https://github.com/acme/widgets/pull/9"):
        found = parse_pull_request(_c("Fix z", f"Longer text.\n\n{trailer}"))
        assert (found.number, found.style, found.title) == (9, "trailer", "Fix z"), trailer
    assert parse_pull_request(_c("Fix z", "See #9 for the story")) is None  # a mention is not a trailer
    # a merge of a maintenance branch carries a number for its own merge PR, but brings many PRs: not one PR
    stable = _c("Merge stable into main (#3521)", parents=two)
    assert is_branch_merge(stable) and parse_pull_request(stable) is None
    assert is_branch_merge(_c("Merge branch 'stable'", parents=two))
    assert not is_branch_merge(_c("Merge branch 'stable'"))  # one parent: a squashed merge is a commit


def test_direct_fix_commits_are_candidates_only_when_asked_and_only_when_their_subject_names_a_fix(tmp_path):
    s = [_initial()]
    s.append(commit("main", day=2, message="Fix issue 12: totals off by one", parents=(":1",), files={
        "pkg/core.py": _code(1), "tests/test_core.py": _test("b")}))
    s.append(commit("main", day=3, message="Tidy core", parents=(":2",), files={
        "pkg/core.py": _code(2), "tests/test_core.py": _test("c")}))
    git_dir = bare_repository(tmp_path / "direct.git", s)
    assert mine(git_dir, REPO).candidates == ()
    result = mine(git_dir, REPO, MineOptions(direct_commits=True))
    (fix,) = result.candidates
    assert fix.task_id == f"widgets-c{fix.commit.sha[:10]}" and fix.pr.style == "commit"
    assert {f.subject: f.reason for f in result.filtered}["Tidy core"] == "direct_commit_not_a_fix"
    doc = candidate_document(fix, REPO)
    assert doc["provenance"]["source"] == "commit" and "pr_number" not in doc["provenance"]
    spec_from_document(doc)  # a valid pr spec


def test_mining_warns_when_the_mirrors_head_names_a_branch_long_behind_another(tmp_path, capsys):
    from bench.cli.mine import _warn_if_head_is_stale

    s = [_initial(), commit("develop", day=200, message="Fix late (#9)", parents=(":1",), files={
        "pkg/core.py": _code(9), "tests/test_core.py": _test("z")})]
    git_dir = bare_repository(tmp_path / "stale.git", s)
    _warn_if_head_is_stale(git_dir, None)
    assert capsys.readouterr().err.startswith("warning: refs/heads/main ends 2023-11-15, refs/heads/develop")
    _warn_if_head_is_stale(git_dir, "develop")
    assert capsys.readouterr().err == ""


def _release_pr_history(tmp_path):
    """main: initial → PR #45 from a contributor's fork, whose branch merged the fork's own PR #1 → PR #41, a fix
    with a follow-up PR #42 merged into its branch → PR #43 from the release branch, "Changes for release 2.0";
    the release branch (from initial): PR #44 merged into it, then the release's own commit."""
    s = [_initial()]
    s.append(commit("strict", day=2, message="handle counts in strict mode", parents=(":1",), files={
        "pkg/sample.py": _code(4), "tests/test_sample.py": _test("strict")}))
    s.append(commit("release", day=3, message="Merge pull request #44 from dev/strict\n\nFix bug in sample() with "
                    "the strict option", parents=(":1", ":2"), files={
                        "pkg/sample.py": _code(4), "tests/test_sample.py": _test("strict")}))
    s.append(commit("release", day=4, message="Changes for release 2.0", parents=(":3",), files={
        "docs/changes.md": "2.0\n"}))
    s.append(commit("fork", day=5, message="fix the totals", parents=(":1",), files={
        "pkg/core.py": _code(5), "tests/test_core.py": _test("totals")}))
    s.append(commit("fork", day=6, message="Merge pull request #1 from dev/master\n\nSync", parents=(":5", ":1"),
                    files={"tests/test_core.py": _test("totals2")}))
    s.append(commit("main", day=7, message="Merge pull request #45 from dev/totals\n\nFix the totals",
                    parents=(":1", ":6"), files={"pkg/core.py": _code(5), "tests/test_core.py": _test("totals2")}))
    s.append(commit("fix", day=8, message="fix the parser", parents=(":7",), files={
        "pkg/parse.py": _code(8), "tests/test_parse.py": _test("parse")}))
    s.append(commit("follow-up", day=9, message="and its corner case", parents=(":8",), files={
        "pkg/parse.py": _code(9), "tests/test_parse.py": _test("corner")}))
    s.append(commit("fix", day=10, message="Merge pull request #42 from dev/follow-up\n\nFix the parser's corner "
                    "case", parents=(":8", ":9"), files={"pkg/parse.py": _code(9),
                                                         "tests/test_parse.py": _test("corner")}))
    s.append(commit("main", day=11, message="Merge pull request #41 from acme/parser\n\nFix the parser",
                    parents=(":7", ":10"), files={"pkg/parse.py": _code(9), "tests/test_parse.py": _test("corner")}))
    s.append(commit("main", day=12, message="Merge pull request #43 from acme/release\n\nChanges for release 2.0",
                    parents=(":11", ":4"), files={"pkg/sample.py": _code(4), "tests/test_sample.py": _test("strict"),
                                                  "docs/changes.md": "2.0\n"}))
    return bare_repository(tmp_path / "release.git", s)


def test_a_pr_merged_into_a_release_branch_that_reached_main_as_a_pr_of_its_own_is_proposed(tmp_path):
    git_dir = _release_pr_history(tmp_path)
    result = mine(git_dir, REPO)
    by_id = {c.task_id: c for c in result.candidates}
    # a fork's PR is not opened: its #1 is the fork's; a fix with a follow-up PR stays a candidate itself
    assert sorted(by_id) == ["widgets-41", "widgets-42", "widgets-44", "widgets-45"]
    release = next(f for f in result.filtered if f.subject.startswith("Merge pull request #43"))
    assert release.reason == "chore_title"  # the release PR is screened as any PR is
    inner = by_id["widgets-44"]
    assert (inner.via, inner.pr.title) == (release.sha, "Fix bug in sample() with the strict option")
    initial = first_parent_log(git_dir, "refs/heads/main")[-1].sha
    assert candidate_document(inner, REPO)["base_sha"] == initial  # the release branch's commit it was made on
    assert by_id["widgets-42"].via == by_id["widgets-41"].commit.sha and by_id["widgets-45"].via == ""
    without = mine(git_dir, REPO, MineOptions(maintenance_merges=False))
    assert sorted(c.task_id for c in without.candidates) == ["widgets-41", "widgets-45"]
