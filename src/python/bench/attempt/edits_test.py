from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from bench.attempt.edits import Edit, apply_edits, parse_edits
from bench.errors import EditError

BLOCK = "src/pkg/mod.py\n<<<<<<< SEARCH\nold = 1\n=======\nnew = 2\n>>>>>>> REPLACE\n"
EXPECTED = (Edit("src/pkg/mod.py", "old = 1\n", "new = 2\n"),)


def reason_of(call) -> str:
    with pytest.raises(EditError) as info:
        call()
    return info.value.reason


# --- parsing -------------------------------------------------------------------------------------------


def test_parse_plain_block():
    assert parse_edits(BLOCK) == EXPECTED


def test_parse_block_inside_python_fence_with_path_before_fence():
    text = (
        "Here is the fix:\n\nsrc/pkg/mod.py\n```python\n<<<<<<< SEARCH\nold = 1\n=======\nnew = 2\n"
        ">>>>>>> REPLACE\n```\nDone."
    )
    assert parse_edits(text) == EXPECTED


def test_parse_path_inside_fence_before_marker():
    text = "```python\nsrc/pkg/mod.py\n<<<<<<< SEARCH\nold = 1\n=======\nnew = 2\n>>>>>>> REPLACE\n```\n"
    assert parse_edits(text) == EXPECTED


def test_parse_path_on_fence_line():
    text = "```python src/pkg/mod.py\n<<<<<<< SEARCH\nold = 1\n=======\nnew = 2\n>>>>>>> REPLACE\n```\n"
    assert parse_edits(text) == EXPECTED


def test_parse_path_after_search_marker():
    text = "<<<<<<< SEARCH src/pkg/mod.py\nold = 1\n=======\nnew = 2\n>>>>>>> REPLACE\n"
    assert parse_edits(text) == EXPECTED


def test_parse_decorated_path_line():
    text = "**`src/pkg/mod.py`**:\n<<<<<<< SEARCH\nold = 1\n=======\nnew = 2\n>>>>>>> REPLACE\n"
    assert parse_edits(text) == EXPECTED


def test_parse_crlf_and_trailing_whitespace_on_markers():
    text = BLOCK.replace("SEARCH\n", "SEARCH  \n").replace("=======\n", "=======\t\n").replace("\n", "\r\n")
    assert parse_edits(text) == EXPECTED


def test_parse_several_blocks_second_reuses_previous_path():
    text = (
        BLOCK + "\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\nother.py\n<<<<<<< SEARCH\nc\n=======\n"
        ">>>>>>> REPLACE\n"
    )
    assert parse_edits(text) == EXPECTED + (Edit("src/pkg/mod.py", "a\n", "b\n"), Edit("other.py", "c\n", ""))


def test_parse_empty_search_and_multiline_content_kept_verbatim():
    text = "a.py\n<<<<<<< SEARCH\n=======\n    x = 1\n\n    y = 2  \n>>>>>>> REPLACE\n"
    assert parse_edits(text) == (Edit("a.py", "", "    x = 1\n\n    y = 2  \n"),)


def test_parse_divider_line_inside_replacement_is_content():
    text = "a.py\n<<<<<<< SEARCH\nTitle\n=======\nTitle\n=======\n>>>>>>> REPLACE\n"
    assert parse_edits(text) == (Edit("a.py", "Title\n", "Title\n=======\n"),)


def test_parse_no_blocks_is_no_edits():
    assert reason_of(lambda: parse_edits("I think the bug is in mod.py but I am not sure.")) == "no_edits"


def test_parse_unclosed_block_is_unparsable():
    assert reason_of(lambda: parse_edits("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n")) == "unparsable"


def test_parse_replace_before_divider_is_unparsable():
    assert reason_of(lambda: parse_edits("a.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n")) == "unparsable"


def test_parse_stray_replace_marker_is_unparsable():
    assert reason_of(lambda: parse_edits("text\n>>>>>>> REPLACE\n")) == "unparsable"


def test_parse_nested_search_is_unparsable():
    text = "a.py\n<<<<<<< SEARCH\nx\n<<<<<<< SEARCH\n=======\ny\n>>>>>>> REPLACE\n"
    assert reason_of(lambda: parse_edits(text)) == "unparsable"


def test_parse_block_without_any_path_is_unparsable():
    assert reason_of(lambda: parse_edits("<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n")) == "unparsable"


# --- applying ------------------------------------------------------------------------------------------


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "src/pkg").mkdir(parents=True)
    (tmp_path / "src/pkg/mod.py").write_text("import os\n\nold = 1\nkeep = 3\n")
    (tmp_path / "src/pkg/other.py").write_text("a = 1\nb = 2\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_mod.py").write_text("def test_x():\n    assert True\n")
    return tmp_path


ALLOWED = ("src/pkg/mod.py", "src/pkg/other.py", "src/pkg/new.py", "tests/test_mod.py")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_apply_replaces_and_reports_hashes_and_diff(workspace: Path):
    before = (workspace / "src/pkg/mod.py").read_bytes()
    applied = apply_edits(workspace, EXPECTED, ALLOWED)
    after = (workspace / "src/pkg/mod.py").read_bytes()
    assert after == b"import os\n\nnew = 2\nkeep = 3\n"
    assert applied.files == (("src/pkg/mod.py", sha(before), sha(after)),)
    assert applied.diff == (
        "--- a/src/pkg/mod.py\n+++ b/src/pkg/mod.py\n@@ -1,4 +1,4 @@\n import os\n \n-old = 1\n+new = 2\n keep = 3\n"
    )


def test_apply_blocks_in_order_on_evolving_content(workspace: Path):
    edits = (
        Edit("src/pkg/other.py", "a = 1\n", "a = 10\n"),
        Edit("./src/pkg/other.py", "a = 10\nb", "a = 11\nb"),
    )
    apply_edits(workspace, edits, ALLOWED)
    assert (workspace / "src/pkg/other.py").read_text() == "a = 11\nb = 2\n"


def test_apply_is_all_or_nothing(workspace: Path):
    edits = (Edit("src/pkg/mod.py", "old = 1\n", "new = 2\n"), Edit("src/pkg/other.py", "missing\n", "x\n"))
    snapshot = {p: (workspace / p).read_bytes() for p in ("src/pkg/mod.py", "src/pkg/other.py")}
    assert reason_of(lambda: apply_edits(workspace, edits, ALLOWED)) == "search_not_found"
    assert {p: (workspace / p).read_bytes() for p in snapshot} == snapshot
    assert sorted(os.listdir(workspace / "src/pkg")) == ["mod.py", "other.py"]  # no temp files left


def test_apply_ambiguous_search(workspace: Path):
    (workspace / "src/pkg/other.py").write_text("x = 1\nx = 1\n")
    assert (
        reason_of(lambda: apply_edits(workspace, (Edit("src/pkg/other.py", "x = 1\n", "y\n"),), ALLOWED))
        == "search_ambiguous"
    )


@pytest.mark.parametrize(
    "path", ["src/pkg/unlisted.py", "/etc/passwd", "src/../src/pkg/mod.py", "../outside.py"]
)
def test_apply_path_outside_allowlist_absolute_or_dotdot(workspace: Path, path: str):
    edit = (Edit(path, "old = 1\n", "x\n"),)
    assert reason_of(lambda: apply_edits(workspace, edit, ALLOWED)) == "path_not_allowed"


def test_apply_refuses_test_files_even_if_listed(workspace: Path):
    edit = (Edit("tests/test_mod.py", "    assert True\n", "    assert 1\n"),)
    assert reason_of(lambda: apply_edits(workspace, edit, ALLOWED)) == "path_not_allowed"


def test_apply_refuses_symlinked_file(workspace: Path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.py"
    outside.write_text("old = 1\n")
    (workspace / "src/pkg/other.py").unlink()
    (workspace / "src/pkg/other.py").symlink_to(outside)
    edit = (Edit("src/pkg/other.py", "old = 1\n", "pwned = 1\n"),)
    assert reason_of(lambda: apply_edits(workspace, edit, ALLOWED)) == "symlink"
    assert outside.read_text() == "old = 1\n"


def test_apply_refuses_file_under_symlinked_directory(workspace: Path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "mod.py").write_text("old = 1\n")
    os.rename(workspace / "src/pkg", workspace / "src/real")
    (workspace / "src/pkg").symlink_to(outside, target_is_directory=True)
    assert reason_of(lambda: apply_edits(workspace, EXPECTED, ALLOWED)) == "symlink"
    assert (outside / "mod.py").read_text() == "old = 1\n"


def test_apply_empty_search_creates_missing_file(workspace: Path):
    applied = apply_edits(workspace, (Edit("src/pkg/new.py", "", "x = 1\n"),), ALLOWED)
    assert (workspace / "src/pkg/new.py").read_text() == "x = 1\n"
    assert applied.files == (("src/pkg/new.py", "", sha(b"x = 1\n")),)
    assert applied.diff.startswith("--- /dev/null\n+++ b/src/pkg/new.py\n@@ -0,0 +1 @@\n+x = 1\n")


def test_apply_empty_search_on_nonempty_file_is_ambiguous(workspace: Path):
    assert reason_of(lambda: apply_edits(workspace, (Edit("src/pkg/mod.py", "", "x\n"),), ALLOWED)) == (
        "search_ambiguous"
    )


def test_apply_search_on_missing_file_is_not_found(workspace: Path):
    assert reason_of(lambda: apply_edits(workspace, (Edit("src/pkg/new.py", "x\n", "y\n"),), ALLOWED)) == (
        "search_not_found"
    )


def test_apply_keeps_crlf_line_ends_and_file_mode(workspace: Path):
    target = workspace / "src/pkg/other.py"
    target.write_bytes(b"a = 1\r\nb = 2\r\n")
    target.chmod(0o755)
    apply_edits(workspace, (Edit("src/pkg/other.py", "a = 1\n", "a = 5\n"),), ALLOWED)
    assert target.read_bytes() == b"a = 5\r\nb = 2\r\n"
    assert target.stat().st_mode & 0o777 == 0o755


def test_apply_matches_last_line_without_newline(workspace: Path):
    target = workspace / "src/pkg/other.py"
    target.write_bytes(b"a = 1\nb = 2")
    applied = apply_edits(workspace, (Edit("src/pkg/other.py", "b = 2\n", "b = 3\n"),), ALLOWED)
    assert target.read_bytes() == b"a = 1\nb = 3"
    assert applied.diff.endswith(
        "-b = 2\n\\ No newline at end of file\n+b = 3\n\\ No newline at end of file\n"
    )


def test_apply_preserves_bytes_that_are_not_utf8(workspace: Path):
    target = workspace / "src/pkg/other.py"
    target.write_bytes(b"s = '\xff'\na = 1\n")
    apply_edits(workspace, (Edit("src/pkg/other.py", "a = 1\n", "a = 2\n"),), ALLOWED)
    assert target.read_bytes() == b"s = '\xff'\na = 2\n"


def test_apply_replaces_hardlinked_file_without_touching_the_other_link(workspace: Path, tmp_path_factory):
    other = tmp_path_factory.mktemp("outside") / "linked.py"
    os.link(workspace / "src/pkg/mod.py", other)
    apply_edits(workspace, EXPECTED, ALLOWED)
    assert other.read_text() == "import os\n\nold = 1\nkeep = 3\n"


def test_parse_then_apply_round_trip(workspace: Path):
    reply = "```python\nsrc/pkg/mod.py\n<<<<<<< SEARCH\nold = 1\n=======\nnew = 2\n>>>>>>> REPLACE\n```\n"
    apply_edits(workspace, parse_edits(reply), ALLOWED)
    assert "new = 2\n" in (workspace / "src/pkg/mod.py").read_text()
