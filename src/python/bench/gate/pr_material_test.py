"""What a reader of a PR task is given, read from a constructed repository: the fix, its tests, the changelog
near it, and a later commit that changes a target test's expected value back."""

import pytest

from bench.gate import pr_material
from bench.source.git_command import git
from bench.spec.model import Judgement, Provenance, TaskSpec
from bench.testing.git_history import bare_repository, fast_import_commit

SOURCE_BASE = "def size(items):\n    return len(items) - 1\n"
SOURCE_FIX = "def size(items):\n    return len(items)\n"
TESTS_BASE = "def test_other():\n    assert True\n"
TESTS_FIX = ("import pytest\n\n\nclass Base:\n    def test_inherited(self):\n        assert True\n\n\n"
             "class TestSize(Base):\n    @pytest.mark.parametrize('n', [1, 2])\n    def test_size(self, n):\n"
             "        assert size([0] * n) == n\n\n\ndef test_other():\n    assert True\n")
TESTS_LATER = TESTS_FIX.replace("== n\n", "== n - 1\n")
CHANGELOG = "Changelog\n=========\n\n1.0 (2023-11-01)\n----------------\n\n- First release.\n"
CHANGELOG_FIX = CHANGELOG.replace("- First release.", "- [FIX] size counted one short (#12).\n- First release.")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    commits = [
        fast_import_commit("main", day=1, message="first\n", files={
            "pkg/size.py": SOURCE_BASE, "tests/test_size.py": TESTS_BASE, "CHANGELOG.rst": CHANGELOG,
            "docs/versions.rst": "Versions\n\n1.0: first\n", ".github/release.yml": "x: 1\n"}),
        fast_import_commit("main", day=2, message="Fix size counting one short (#12)\n\nCloses #7.\n",
                           parents=(":1",), files={
                               "pkg/size.py": SOURCE_FIX, "tests/test_size.py": TESTS_FIX,
                               "changelog.d/12.bugfix.rst": "size counted one short.\n", "README": "hi\n"}),
        fast_import_commit("main", day=3, message="Revert the size change\n", parents=(":2",),
                           files={"tests/test_size.py": TESTS_LATER, "pkg/size.py": SOURCE_BASE,
                                  "CHANGELOG.rst": CHANGELOG_FIX}),
        fast_import_commit("main", day=4, message="Tidy\n", parents=(":3",), files={"pkg/size.py": SOURCE_FIX}),
    ]
    git_dir = bare_repository(tmp_path_factory.mktemp("m") / "repo.git", commits)
    shas = git(["rev-list", "--reverse", "main"], git_dir=git_dir).decode().split()
    return git_dir, shas


def _spec(shas, fail_to_pass):
    return TaskSpec(
        task_id="lib-12", kind="pr", repo="example/lib", source_files=("pkg/size.py",),
        test_files=("tests/test_size.py",), fail_to_pass=fail_to_pass, pass_to_pass=(), image="img",
        lockfile="lock", base_sha=shas[0], fix_sha=shas[1],
        provenance=Provenance("pull-request", pr_number=12, url="https://example.invalid/pull/12",
                              title="Fix size counting one short (#12)",
                              judgement=Judgement("bugfix", ("title:bugfix",))))


@pytest.mark.parametrize("path, notes, fragment", [
    ("CHANGELOG.rst", True, False), ("CHANGES.md", True, False), ("HISTORY.md", True, False), ("NEWS", True, False),
    ("docs/changelog.rst", True, False), ("docs/versions.rst", True, False), ("docs/source/changes.rst", True, False),
    ("docs/releases.rst", True, False), ("docs/community/release-process.rst", False, False),
    (".github/release.yml", False, False), ("tests/test_changes.py", False, False), ("newsfragments/README.rst", False, False),
    ("changelog.d/1424.bugfix.rst", False, True), ("docs/changelog/705.bugfix.1.rst", False, True),
    ("releasenotes/notes/add-x-6a4c.yaml", False, True), ("docs/change_log/release-3.2.md", False, True),
    ("changelog.d/.gitignore", False, False), ("docs/changelog/template.jinja2", False, False),
])
def test_changelog_files_and_fragments_are_told_apart(path, notes, fragment):
    assert (pr_material.is_notes_file(path), pr_material.is_fragment(path)) == (notes, fragment)


@pytest.mark.parametrize("test_id, expected", [
    ("tests/t.py::TestX::test_y[a-b::c]", ("tests/t.py", ("TestX", "test_y"))),
    ("tests/t.py::test_y", ("tests/t.py", ("test_y",))),
    ("weird", ("weird", ())),
])
def test_a_test_id_splits_into_its_file_and_names(test_id, expected):
    assert pr_material.split_test_id(test_id) == expected


def test_a_test_is_found_with_its_decorators_and_an_inherited_one_in_its_base_class():
    found = pr_material.find_test("t.py", TESTS_FIX, ("TestSize", "test_size"))
    assert (found.qualname, found.start, found.end) == ("TestSize.test_size", 10, 12)
    assert found.text.startswith("    @pytest.mark.parametrize")
    inherited = pr_material.find_test("t.py", TESTS_FIX, ("TestSize", "test_inherited"))
    assert (inherited.qualname, inherited.start) == ("Base.test_inherited", 5)
    assert pr_material.find_test("t.py", TESTS_FIX, ("TestSize", "test_gone")) is None
    assert pr_material.find_test("t.py", "def (", ("x",)) is None


def test_a_fence_is_longer_than_any_backtick_run_inside():
    assert pr_material.fenced("a ```` b", "md") == "`````md\na ```` b\n`````\n"
    assert pr_material.fenced("plain\n") == "```\nplain\n```\n"


def test_material_holds_the_fix_its_tests_the_changelog_and_a_later_reversal(repo):
    git_dir, shas = repo
    spec = _spec(shas, ("tests/test_size.py::TestSize::test_size[1]", "tests/test_size.py::TestSize::test_size[2]",
                        "tests/test_size.py::test_generated_elsewhere"))
    text = pr_material.material(spec, git_dir, "===== user =====\nFix it.")
    assert "- PR title: Fix size counting one short (#12)" in text
    assert "(1 commit in base..fix)" in text
    assert "-    return len(items) - 1\n+    return len(items)\n" in text
    assert "+class TestSize(Base):" in text
    assert "A\tREADME\nA\tchangelog.d/12.bugfix.rst\n" in text  # the other files, with their status
    assert text.count("### tests/test_size.py::TestSize.test_size (lines 10-12)") == 1  # once for both params
    assert "Not found as a function in the test file at the fix" in text and "test_generated_elsewhere" in text
    assert "### changelog.d/12.bugfix.rst (changed by the fix)" in text and "+size counted one short." in text
    assert "### CHANGELOG.rst at the fix: its first 30 lines (nothing names the PR)" in text
    assert "### docs/versions.rst at the fix" in text and ".github/release.yml at the fix" not in text
    assert "`TestSize.test_size`: changed after the fix by 1 commit:" in text
    assert "Revert the size change" in text and "+        assert size([0] * n) == n - 1" in text
    assert text.endswith("```\n===== user =====\nFix it.\n```\n")
    assert "judgement" not in text and "title:bugfix" not in text  # the reader decides first


def test_changelog_lines_naming_the_pr_are_shown_where_the_fix_left_the_file_alone(repo):
    git_dir, shas = repo
    spec = _spec(shas[2:], ("tests/test_size.py::test_other",))  # the changelog names #12, the diff leaves it
    text = pr_material.material(spec, git_dir, "")
    assert "### CHANGELOG.rst at the fix: lines naming #12\n" in text
    assert "    7  - [FIX] size counted one short (#12).\n" in text
    assert "`test_other`: unchanged at the tip." in text
    assert "## Fix diff: test files\n\n```diff\n(no change)\n```" in text
    spec = _spec(shas[1:3], ("tests/test_size.py::test_other",))
    assert "### CHANGELOG.rst (changed by the fix)" in pr_material.material(spec, git_dir, "")
