from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bench.attempt.edits import Edit, apply_edits
from bench.attempt.unified_diff import FilePatch, Hunk, apply_unified_diff, parse_unified_diff
from bench.errors import EditError

ORIGINAL = "".join(f"line {n}\n" for n in range(1, 21))
ALLOWED = ("pkg/mod.py", "pkg/new.py", "tests/test_mod.py")

GIT_PATCH = """\
diff --git a/pkg/mod.py b/pkg/mod.py
index 1111111..2222222 100644
--- a/pkg/mod.py
+++ b/pkg/mod.py
@@ -2,3 +2,3 @@ def f():
 line 2
-line 3
+LINE 3
 line 4
@@ -15,3 +15,4 @@
 line 15
 line 16
+inserted
 line 17
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/mod.py").write_text(ORIGINAL)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_mod.py").write_text("def test_x():\n    pass\n")
    return tmp_path


def reason_of(call) -> str:
    with pytest.raises(EditError) as info:
        call()
    return info.value.reason


def expected_after_git_patch() -> str:
    lines = ORIGINAL.splitlines(keepends=True)
    lines[2] = "LINE 3\n"
    lines.insert(16, "inserted\n")
    return "".join(lines)


def test_parse_git_patch_structure():
    (patch,) = parse_unified_diff(GIT_PATCH)
    assert patch.old_path == patch.new_path == "pkg/mod.py"
    assert patch.hunks[0] == Hunk(2, 3, 2, 3, (" line 2\n", "-line 3\n", "+LINE 3\n", " line 4\n"))
    assert (patch.hunks[1].old_start, patch.hunks[1].old_count, patch.hunks[1].new_count) == (15, 3, 4)


def test_apply_git_patch(workspace: Path):
    applied = apply_unified_diff(workspace, GIT_PATCH, ALLOWED)
    assert (workspace / "pkg/mod.py").read_text() == expected_after_git_patch()
    assert [change.path for change in applied.files] == ["pkg/mod.py"]


def test_apply_with_shifted_line_numbers_finds_nearest_exact_context(workspace: Path):
    (workspace / "pkg/mod.py").write_text("header\nheader\n" + ORIGINAL)
    apply_unified_diff(workspace, GIT_PATCH, ALLOWED)
    assert (workspace / "pkg/mod.py").read_text() == "header\nheader\n" + expected_after_git_patch()


def test_apply_context_mismatch_is_hunk_not_found_and_writes_nothing(workspace: Path):
    patch = GIT_PATCH.replace(" line 16\n", " line sixteen\n")
    assert reason_of(lambda: apply_unified_diff(workspace, patch, ALLOWED)) == "hunk_not_found"
    assert (workspace / "pkg/mod.py").read_text() == ORIGINAL


def test_apply_creates_new_file_from_dev_null(workspace: Path):
    patch = "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n"
    apply_unified_diff(workspace, patch, ALLOWED)
    assert (workspace / "pkg/new.py").read_text() == "a = 1\nb = 2\n"


def test_apply_creating_existing_file_is_refused(workspace: Path):
    patch = "--- /dev/null\n+++ b/pkg/mod.py\n@@ -0,0 +1 @@\n+a = 1\n"
    assert reason_of(lambda: apply_unified_diff(workspace, patch, ALLOWED)) == "hunk_not_found"


def test_apply_deletes_file_when_all_lines_removed(workspace: Path):
    (workspace / "pkg/mod.py").write_text("a\nb\n")
    apply_unified_diff(workspace, "--- a/pkg/mod.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", ALLOWED)
    assert not (workspace / "pkg/mod.py").exists()


def test_no_newline_at_end_of_file_markers(workspace: Path):
    (workspace / "pkg/mod.py").write_bytes(b"a\nb")
    patch = (
        "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
        "\\ No newline at end of file\n"
    )
    apply_unified_diff(workspace, patch, ALLOWED)
    assert (workspace / "pkg/mod.py").read_bytes() == b"a\nc"


def test_blank_context_line_without_its_space_is_accepted(workspace: Path):
    (workspace / "pkg/mod.py").write_text("a\n\nb\n")
    patch = "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n"
    apply_unified_diff(workspace, patch, ALLOWED)
    assert (workspace / "pkg/mod.py").read_text() == "a\n\nc\n"


def test_multi_file_patch_is_all_or_nothing(workspace: Path):
    patch = GIT_PATCH + "--- a/pkg/new.py\n+++ b/pkg/new.py\n@@ -1 +1 @@\n-x\n+y\n"
    assert reason_of(lambda: apply_unified_diff(workspace, patch, ALLOWED)) == "hunk_not_found"
    assert (workspace / "pkg/mod.py").read_text() == ORIGINAL


@pytest.mark.parametrize(
    "patch",
    [
        "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1,2 +1,2 @@\n line 1\n-line 2\n",  # ends inside the hunk
        "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ -1 +1 @@\n-line 1\n+a\n+b\n",  # counts disagree
        "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n@@ bad @@\n",
        "@@ -1 +1 @@\n-line 1\n+x\n",  # no file header
        "diff --git a/x b/y\nrename from x\nrename to y\n",
        "--- a/pkg/mod.py\n+++ b/pkg/mod.py\n",  # header without hunks
    ],
)
def test_malformed_patches_are_unparsable(patch: str):
    assert reason_of(lambda: parse_unified_diff(patch)) == "unparsable"


def test_patch_without_files_is_no_edits():
    assert reason_of(lambda: parse_unified_diff("just prose\n")) == "no_edits"


@pytest.mark.parametrize("path", ["tests/test_mod.py", "pkg/other.py", "../etc/passwd"])
def test_patch_paths_follow_the_allowlist(workspace: Path, path: str):
    patch = f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-x\n+y\n"
    assert reason_of(lambda: apply_unified_diff(workspace, patch, ALLOWED)) == "path_not_allowed"


def test_patch_through_symlink_is_refused(workspace: Path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "mod.py"
    outside.write_text(ORIGINAL)
    (workspace / "pkg/mod.py").unlink()
    (workspace / "pkg/mod.py").symlink_to(outside)
    assert reason_of(lambda: apply_unified_diff(workspace, GIT_PATCH, ALLOWED)) == "symlink"
    assert outside.read_text() == ORIGINAL


def test_rename_is_refused(workspace: Path):
    patch = "--- a/pkg/mod.py\n+++ b/pkg/new.py\n@@ -1 +1 @@\n-line 1\n+x\n"
    assert reason_of(lambda: apply_unified_diff(workspace, patch, ALLOWED)) == "unparsable"


def test_parsed_patches_can_be_applied_directly(workspace: Path):
    parsed: tuple[FilePatch, ...] = parse_unified_diff(GIT_PATCH)
    apply_unified_diff(workspace, parsed, ALLOWED)
    assert (workspace / "pkg/mod.py").read_text() == expected_after_git_patch()


def test_diff_of_applied_edits_replays_through_our_parser_and_git_apply(workspace: Path, tmp_path_factory):
    """The diff recorded for SEARCH/REPLACE edits is a real patch: it re-applies to the original."""
    pristine = tmp_path_factory.mktemp("pristine")
    shutil.copytree(workspace, pristine, dirs_exist_ok=True)
    (workspace / "pkg/mod.py").write_bytes(ORIGINAL.encode() + b"tail")
    (pristine / "pkg/mod.py").write_bytes(ORIGINAL.encode() + b"tail")
    edits = (
        Edit("pkg/mod.py", "line 3\n", "LINE 3\n"),
        Edit("pkg/mod.py", "tail\n", "end\n"),
        Edit("pkg/new.py", "", "new = 1\n"),
    )
    applied = apply_edits(workspace, edits, ALLOWED)
    twin = tmp_path_factory.mktemp("twin")
    shutil.copytree(pristine, twin, dirs_exist_ok=True)
    apply_unified_diff(twin, applied.diff, ALLOWED)
    subprocess.run(["git", "apply", "--check", "-"], cwd=pristine, input=applied.diff.encode(), check=True)
    for path in ("pkg/mod.py", "pkg/new.py"):
        assert (twin / path).read_bytes() == (workspace / path).read_bytes()
