import json
from pathlib import Path

import pytest

from bench.mine import miner
from bench.mine._history import Commit, FileChange, changed_files, first_parent_log
from bench.mine.documents import candidate_document, report_document
from bench.mine.miner import Bounds, MineOptions, mine
from bench.source.git_command import git
from bench.spec.load import spec_from_document
from bench.testing.git_history import fast_import_commit

REPO = "acme/widgets"


_commit = fast_import_commit


def _source(n: int) -> str:
    return "\n".join(f"def f{i}():\n    return {i + n}\n" for i in range(5))


def build_history(root: Path) -> Path:
    """A small repository whose first-parent line exercises every filter; identical shas on every run."""
    git_dir = root / "widgets.git"
    git(["init", "--bare", "-q", str(git_dir)])
    s = []
    s.append(_commit("main", day=1, message="initial", files={
        "pkg/__init__.py": "", "pkg/core.py": _source(0), "tests/test_core.py": "def test_a():\n    pass\n",
        "docs/index.md": "docs\n", "README.md": "readme\n"}))
    s.append(_commit("main", day=2, message="Fix crash in old code (#2)", parents=(":1",), files={
        "pkg/core.py": _source(1), "tests/test_core.py": "def test_b():\n    pass\n"}))
    s.append(_commit("main", day=3, message="Tweak readme", parents=(":2",), files={"README.md": "more\n"}))
    s.append(_commit("main", day=4, message="Fix off-by-one in core (#4)", parents=(":3",), files={
        "pkg/core.py": _source(2), "tests/test_core.py": "def test_c():\n    pass\n"}))
    s.append(_commit("topic", day=5, message="add helper", parents=(":4",), files={
        "pkg/helper.py": "X = 1\n", "tests/test_helper.py": "def test_h():\n    pass\n"}))
    s.append(_commit("main", day=6, message="Merge pull request #5 from dev/helper\n\nAdd helper module",
                     parents=(":4", ":5"), files={  # fast-import merges take the tree given here
        "pkg/helper.py": "X = 1\n", "tests/test_helper.py": "def test_h():\n    pass\n"}))
    s.append(_commit("main", day=7, message="docs: fix the guide (#7)", parents=(":6",), files={
        "pkg/core.py": _source(3), "tests/test_core.py": "def test_d():\n    pass\n"}))
    s.append(_commit("main", day=8, message="Speed up core (#8)", parents=(":7",), files={"pkg/core.py": _source(4)}))
    s.append(_commit("main", day=9, message="Fix flaky tests (#9)", parents=(":8",), files={
        "tests/test_core.py": "def test_e():\n    pass\n"}))
    s.append(_commit("main", day=10, message="Fix everything (#10)", parents=(":9",), files={
        **{f"pkg/m{i}.py": _source(i) for i in range(7)}, "tests/test_core.py": "def test_f():\n    pass\n"}))
    s.append(_commit("main", day=11, message="Fix wrong result with conftest only (#11)", parents=(":10",), files={
        "pkg/core.py": _source(5), "tests/conftest.py": "X = 2\n"}))
    s.append(_commit("main", day=12, message="Move helper (#12)", parents=(":11",), renames=(
        ("pkg/helper.py", "pkg/helpers.py"),), files={"tests/test_helper.py": "def test_i():\n    pass\n"}))
    s.append(_commit("main", day=13, message="Handle empty input (#13)", parents=(":12",), files={
        "pkg/core.py": _source(6), "tests/test_core.py": "def test_g():\n    pass\n"}))
    git(["fast-import", "--quiet"], git_dir=git_dir, input="".join(s).encode())
    git(["symbolic-ref", "HEAD", "refs/heads/main"], git_dir=git_dir)
    return git_dir


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> Path:
    return build_history(tmp_path_factory.mktemp("mine"))


def _c(subject, body="", parents=("a" * 40,)):
    return Commit("f" * 40, parents, "2024-01-01T00:00:00Z", subject, body)


def test_merge_subject_takes_the_pr_number_and_the_title_from_the_body():
    pr = miner.parse_pull_request(_c("Merge pull request #123 from a/b", "Fix the thing\n\nmore", ("a", "b")))
    assert (pr.number, pr.style, pr.title) == (123, "merge", "Fix the thing")


def test_squash_subject_ends_with_the_pr_number():
    pr = miner.parse_pull_request(_c("Handle empty input (#77)"))
    assert (pr.number, pr.style, pr.title) == (77, "squash", "Handle empty input")


def test_direct_commits_and_single_parent_merge_subjects_are_not_prs():
    assert miner.parse_pull_request(_c("Tweak readme")) is None
    assert miner.parse_pull_request(_c("Mention #12 in the middle")) is None
    assert miner.parse_pull_request(_c("Merge pull request #5 from a/b")) is None  # one parent: not a merge


@pytest.mark.parametrize("path,test,source,target", [
    ("pkg/core.py", False, True, False),
    ("tests/test_core.py", True, False, True),
    ("testing/helpers.py", True, False, True),
    ("pkg/test_inline.py", True, False, True),
    ("pkg/core_test.py", True, False, True),
    ("tests/conftest.py", True, False, False),
    ("conftest.py", True, False, False),
    ("tests/data/sample.json", True, False, False),
    ("docs/conf.py", False, False, False),
    ("setup.py", False, False, False),
    ("src/pkg/a.py", False, True, False),
    ("README.md", False, False, False),
])
def test_file_classification(path, test, source, target):
    assert (miner.is_test_file(path), miner.is_source_file(path), miner.is_target_test(path)) == \
        (test, source, target)


def test_bugfix_keyword_prefers_strong_words_over_issue():
    assert miner.bugfix_keyword("Issue 12: fix last() crash") == "fix"
    assert miner.bugfix_keyword("Issue 1098: Add synchronized decorator") == "issue"
    assert miner.bugfix_keyword("Add loops recipe", "body mentions a Regression") == "regression"
    assert miner.bugfix_keyword("Add loops recipe") == ""
    assert [miner.bugfix_rank(k) for k in ("fix", "issue", "")] == [0, 1, 2]


def test_chore_titles_are_skipped_unless_they_name_a_bug():
    assert miner.chore_title("docs: explain options")
    assert miner.chore_title("ci(actions): pin runner")
    assert miner.chore_title("Bump version to 2.0")
    assert miner.chore_title("Refactor the parser")
    assert miner.chore_title("Fix typos discovered by codespell")
    assert not miner.chore_title("Fix a release-blocking crash")
    assert not miner.chore_title("Handle empty input")


def _change(path, added=1, deleted=0, status="M"):
    return FileChange(path, status, added, deleted)


def test_size_bounds_are_enforced():
    ok = (_change("pkg/a.py", 100, 100), _change("tests/test_a.py"))
    assert miner.screen_changes(ok, Bounds()) == ""
    assert miner.screen_changes((_change("pkg/a.py", 200, 101), _change("tests/test_a.py")), Bounds()) == \
        "too_many_source_lines"
    many = tuple(_change(f"pkg/m{i}.py") for i in range(7)) + (_change("tests/test_a.py"),)
    assert miner.screen_changes(many, Bounds()) == "too_many_source_files"
    docs = tuple(_change(f"docs/p{i}.md") for i in range(9)) + ok
    assert miner.screen_changes(docs, Bounds()) == "too_many_files"


def test_pure_renames_are_not_source_changes():
    changes = (FileChange("pkg/new.py", "R100", 0, 0, "pkg/old.py"), _change("tests/test_a.py"))
    assert miner.screen_changes(changes, Bounds()) == "no_source_change"


def test_changed_files_reads_renames_and_line_counts(history):
    log = {c.subject: c for c in first_parent_log(history, "refs/heads/main")}
    moved = log["Move helper (#12)"]
    changes = changed_files(history, moved.parents[0], moved.sha)
    assert [(c.path, c.status, c.old_path) for c in changes] == [
        ("pkg/helpers.py", "R100", "pkg/helper.py"), ("tests/test_helper.py", "M", "")]
    fix = log["Fix off-by-one in core (#4)"]
    assert [(c.path, c.added, c.deleted) for c in changed_files(history, fix.parents[0], fix.sha)] == [
        ("pkg/core.py", 5, 5), ("tests/test_core.py", 1, 1)]


def test_mining_the_history_gives_the_expected_candidates_and_reasons(history):
    result = mine(history, REPO, MineOptions(since="2023-11-17"))
    assert [c.task_id for c in result.candidates] == ["widgets-4", "widgets-13", "widgets-5"]
    assert [c.bugfix_keyword for c in result.candidates] == ["fix", "", ""]
    merged = result.candidates[2]
    assert (merged.pr.style, merged.commit.parents[0], merged.source_files, merged.test_files) == (
        "merge", result.candidates[0].commit.sha, ("pkg/helper.py",), ("tests/test_helper.py",))
    reasons = {f.subject.split(" (#")[0]: f.reason for f in result.filtered}
    assert reasons == {
        "initial": "not_a_pr_merge", "Fix crash in old code": "before_since", "Tweak readme": "not_a_pr_merge",
        "docs: fix the guide": "chore_title", "Speed up core": "no_test_change", "Fix flaky tests": "no_source_change",
        "Fix everything": "too_many_source_files", "Fix wrong result with conftest only": "no_test_change",
        "Move helper": "no_source_change",
    }
    assert (result.scanned, result.pr_merges) == (12, 10)  # the branch commit of #5 is not on the first-parent line


def test_mining_is_deterministic_across_identical_histories(tmp_path, history):
    again = build_history(tmp_path)
    options = MineOptions(since="2023-11-17")
    first = report_document(mine(history, REPO, options), options)
    second = report_document(mine(again, REPO, options), options)
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    assert first["counts"] == {"commits_scanned": 12, "pr_merges": 10, "candidates": 3, "filtered": {
        "before_since": 1, "chore_title": 1, "no_source_change": 2, "no_test_change": 2, "not_a_pr_merge": 2,
        "too_many_source_files": 1}}


def test_cap_counts_admitted_tasks_and_limit_cuts_the_ordered_list(history):
    capped = mine(history, REPO, MineOptions(cap=3, already_admitted=1))
    assert [c.task_id for c in capped.candidates] == ["widgets-4", "widgets-2"]
    assert [f.reason for f in capped.filtered if f.reason.startswith("over")] == ["over_library_cap"] * 2
    limited = mine(history, REPO, MineOptions(limit=1))
    assert [c.task_id for c in limited.candidates] == ["widgets-4"]
    assert [f.reason for f in limited.filtered if f.reason.startswith("over")] == ["over_limit"] * 3


def test_bugfix_only_requires_a_keyword(history):
    result = mine(history, REPO, MineOptions(since="2023-11-17", bugfix_only=True))
    assert [c.task_id for c in result.candidates] == ["widgets-4"]
    assert sum(f.reason == "no_bugfix_keyword" for f in result.filtered) == 2


def test_candidate_document_is_a_valid_pr_spec(history):
    candidate = mine(history, REPO, MineOptions(since="2023-11-17")).candidates[0]
    doc = candidate_document(candidate, REPO)
    spec = spec_from_document(doc)
    assert (spec.kind, spec.task_id, spec.base_sha, spec.fix_sha) == (
        "pr", "widgets-4", candidate.commit.parents[0], candidate.commit.sha)
    assert doc["lockfile"] == "lockfiles/tasks/widgets-4.lock" and doc["image"] == "trixie-py313"
    assert doc["provenance"] == {"source": "pull-request", "pr_number": 4,
                                 "url": "https://github.com/acme/widgets/pull/4",
                                 "merged_at": "2023-11-18T22:13:20Z", "title": "Fix off-by-one in core (#4)"}


def test_source_files_deleted_by_the_fix_are_not_targets(tmp_path):
    git_dir = tmp_path / "r.git"
    git(["init", "--bare", "-q", str(git_dir)])
    stream = _commit("main", day=1, message="init", files={"pkg/a.py": "A = 1\n", "pkg/b.py": "B = 1\n",
                                                            "tests/test_a.py": "\n"}) + \
        _commit("main", day=2, message="Fix a, drop b (#2)", parents=(":1",), deletes=("pkg/b.py",),
                files={"pkg/a.py": "A = 2\n", "tests/test_a.py": "def test_a():\n    pass\n"})
    git(["fast-import", "--quiet"], git_dir=git_dir, input=stream.encode())
    git(["symbolic-ref", "HEAD", "refs/heads/main"], git_dir=git_dir)
    (candidate,) = mine(git_dir, REPO, MineOptions()).candidates
    assert candidate.source_files == ("pkg/a.py",)


def test_known_task_ids_are_not_candidates_again(history):
    result = mine(history, REPO, MineOptions(limit=1, known_task_ids=frozenset({"widgets-4"})))
    assert [c.task_id for c in result.candidates] == ["widgets-2"]
    assert [f.reason for f in result.filtered if f.subject.startswith("Fix off-by-one")] == ["known_task"]


def test_reverts_and_changes_their_project_calls_features_are_not_candidates_and_feature_titles_go_last(tmp_path):
    git_dir = tmp_path / "quality.git"
    git(["init", "--bare", "-q", str(git_dir)])
    test = "def test_{}():\n    pass\n"
    s = [_commit("main", day=1, message="initial", files={"pkg/core.py": _source(0), "tests/test_core.py": ""})]
    s.append(_commit("main", day=2, message="Add support for widgets (#2)", parents=(":1",), files={
        "pkg/core.py": _source(1), "tests/test_core.py": test.format("a")}))
    s.append(_commit("main", day=3, message="Correct the total (#3)", parents=(":2",), files={
        "pkg/core.py": _source(2), "tests/test_core.py": test.format("b")}))
    s.append(_commit("main", day=4, message='Revert "Fix the total" (#4)', parents=(":3",), files={
        "pkg/core.py": _source(3), "tests/test_core.py": test.format("c")}))
    s.append(_commit("main", day=5, message="Fix: nicer output (#5)", parents=(":4",), files={
        "pkg/core.py": _source(4), "tests/test_core.py": test.format("d"), "changes/5.feature.rst": "Nicer.\n"}))
    s.append(_commit("main", day=6, message="Handle empty input (#6)", parents=(":5",), files={
        "pkg/core.py": _source(5), "tests/test_core.py": test.format("e"), "changes/6.bugfix.rst": "Empty.\n",
        "changes/6.feature.rst": "Also.\n"}))
    s.append(_commit("main", day=7, message="Fix the message for bytes (#7)", parents=(":6",), files={
        "pkg/core.py": _source(6), "tests/test_core.py": test.format("f"), "changelog.d/7.misc.rst": "Msg.\n"}))
    git(["fast-import", "--quiet"], git_dir=git_dir, input="".join(s).encode())
    git(["symbolic-ref", "HEAD", "refs/heads/main"], git_dir=git_dir)
    result = mine(git_dir, REPO)
    reasons = {f.subject: f.reason for f in result.filtered}
    assert reasons['Revert "Fix the total" (#4)'] == "revert"  # "Fix" inside the quoted title is no fix
    assert reasons["Fix: nicer output (#5)"] == "feature_fragment"  # the project's fragment outweighs the title
    assert reasons["Fix the message for bytes (#7)"] == "change_fragment"  # filed as misc, not as a fix
    # a fix fragment beside a feature one keeps #6; the feature-titled #2 goes after the plain #3
    assert [(c.task_id, c.title_hint) for c in result.candidates] == [
        ("widgets-6", ""), ("widgets-3", ""), ("widgets-2", "feature")]
