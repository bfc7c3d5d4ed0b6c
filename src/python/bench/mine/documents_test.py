"""The spec a mined candidate becomes, on constructed histories."""

from __future__ import annotations

from bench.mine.documents import candidate_document
from bench.mine.miner import mine
from bench.testing.git_history import bare_repository, fast_import_commit as commit

REPO = "acme/widgets"


def _merged_prs(tmp_path):
    """main: initial → PR #5 merged with a title in its message → PR #6 merged with no body."""
    s = [commit("main", day=1, message="initial", files={"pkg/core.py": "X = 0\n", "tests/test_core.py": "\n"})]
    s.append(commit("topic", day=2, message="fix the total", parents=(":1",), files={
        "pkg/core.py": "X = 1\n", "tests/test_core.py": "def test_x():\n    pass\n"}))
    s.append(commit("main", day=3, message="Merge pull request #5 from dev/total\n\nFix the total of an empty cart\n",
                    parents=(":1", ":2"), files={"pkg/core.py": "X = 1\n",
                                                 "tests/test_core.py": "def test_x():\n    pass\n"}))
    s.append(commit("other", day=4, message="fix the bug", parents=(":3",), files={
        "pkg/core.py": "X = 2\n", "tests/test_core.py": "def test_y():\n    pass\n"}))
    s.append(commit("main", day=5, message="Merge pull request #6 from dev/bug", parents=(":3", ":4"), files={
        "pkg/core.py": "X = 2\n", "tests/test_core.py": "def test_y():\n    pass\n"}))
    return bare_repository(tmp_path / "widgets.git", s)


def test_a_merge_style_prs_spec_records_the_prs_own_title(tmp_path):
    by_id = {c.task_id: c for c in mine(_merged_prs(tmp_path), REPO).candidates}
    titled = candidate_document(by_id["widgets-5"], REPO)["provenance"]
    assert titled["title"] == "Fix the total of an empty cart"
    untitled = candidate_document(by_id["widgets-6"], REPO)["provenance"]  # no body: the subject is all there is
    assert untitled["title"] == "Merge pull request #6 from dev/bug"
