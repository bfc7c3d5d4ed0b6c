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


# --- limits and the cost of applying -----------------------------------------------------------------------


def growing_reply(blocks: int, block_bytes: int, path: str = "src/pkg/other.py") -> str:
    """Blocks that each find the file's last line and put ``block_bytes`` of new lines before it: every
    block's SEARCH is unique only in the whole, grown file (the red team's quadratic reply)."""
    line = "x = 'hostile padding'\n"
    payload = line * max(1, block_bytes // len(line))
    block = f"{path}\n<<<<<<< SEARCH\nb = 2\n=======\n{payload}b = 2\n>>>>>>> REPLACE\n"
    return block * blocks


def test_reply_over_the_size_limit_is_reply_too_large():
    from bench.attempt.edits import MAX_REPLY_BYTES

    at_limit = BLOCK + "#" * (MAX_REPLY_BYTES - len(BLOCK))
    assert parse_edits(at_limit) == EXPECTED
    over = BLOCK + "é" * ((MAX_REPLY_BYTES - len(BLOCK)) // 2 + 1)  # counted in bytes, not characters
    assert reason_of(lambda: parse_edits(over)) == "reply_too_large"
    assert parse_edits(over, max_reply_bytes=None) == EXPECTED


def test_reply_with_more_blocks_than_the_limit_is_too_many_blocks():
    from bench.attempt.edits import MAX_BLOCKS

    assert len(parse_edits(BLOCK * MAX_BLOCKS)) == MAX_BLOCKS
    with pytest.raises(EditError) as info:
        parse_edits(BLOCK * (MAX_BLOCKS + 1))
    assert info.value.reason == "too_many_blocks" and str(MAX_BLOCKS) in str(info.value)
    assert len(parse_edits(BLOCK * (MAX_BLOCKS + 1), max_blocks=None)) == MAX_BLOCKS + 1


def test_largest_allowed_growing_reply_applies_quickly(workspace: Path):
    import time

    from bench.attempt.edits import MAX_BLOCKS, MAX_REPLY_BYTES

    reply = growing_reply(MAX_BLOCKS, MAX_REPLY_BYTES // MAX_BLOCKS - 200)
    assert len(reply) <= MAX_REPLY_BYTES
    started = time.monotonic()
    apply_edits(workspace, parse_edits(reply), ALLOWED)
    seconds = time.monotonic() - started
    assert (workspace / "src/pkg/other.py").stat().st_size > MAX_REPLY_BYTES * 0.9
    assert seconds < 5.0, f"{seconds:.2f} s for the largest reply the limits allow"


def test_apply_counts_occurrences_without_overlap_as_before(workspace: Path):
    (workspace / "src/pkg/other.py").write_text("aaa\n")
    apply_edits(workspace, (Edit("src/pkg/other.py", "aa", "b"),), ALLOWED)  # "aaa" holds "aa" once, not twice
    assert (workspace / "src/pkg/other.py").read_text() == "ba\n"


def _reference_replaced(content, edit):
    """The per-block algorithm before the CRLF state was kept between blocks: the semantics to preserve."""
    if edit.search == "":
        if content:
            raise EditError("", reason="search_ambiguous")
        return edit.replace
    if content is None:
        raise EditError("", reason="search_not_found")
    crlf = "\r\n" in content and content.count("\r\n") == content.count("\n")
    text = content.replace("\r\n", "\n") if crlf else content
    search, replace = edit.search, edit.replace
    count = text.count(search)
    if count == 0 and not text.endswith("\n") and search.endswith("\n") and text.endswith(search[:-1]):
        if text.count(search[:-1]) == 1:
            result = text[: len(text) - len(search) + 1] + (replace[:-1] if replace.endswith("\n") else replace)
            return result.replace("\n", "\r\n") if crlf else result
    if count != 1:
        raise EditError("", reason="search_not_found" if count == 0 else "search_ambiguous")
    result = text.replace(search, replace, 1)
    return result.replace("\n", "\r\n") if crlf else result


def _search_for(rng, content, pieces) -> str:
    """Mostly a piece of the file (so blocks apply), else random text; never a carriage return (parsing
    removes them from blocks)."""
    text = (content or "").replace("\r\n", "\n").replace("\r", "")
    if text and rng.random() < 0.7:
        start = rng.randrange(len(text))
        return text[start:start + rng.randint(1, 4)]
    return "".join(rng.choice(pieces[:3] + pieces[5:]) for _ in range(rng.randint(0, 3)))


def test_apply_gives_what_the_per_block_algorithm_gave(tmp_path: Path):
    import random

    rng = random.Random(0)
    pieces = ("a", "b", "\n", "\r\n", "\r", "ab\n", "")
    checked = 0
    for case in range(1000):
        content = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))) if case % 9 else None
        edits = tuple(Edit("f.py", _search_for(rng, content, pieces),
                           "".join(rng.choice(("a", "b", "\n", "")) for _ in range(rng.randint(0, 3))))
                      for _ in range(rng.randint(1, 4)))
        expected = content
        try:
            for edit in edits:
                expected = _reference_replaced(expected, edit)
        except EditError as exc:
            expected = exc.reason
        root = tmp_path / str(case)
        root.mkdir()
        if content is not None:
            (root / "f.py").write_bytes(content.encode())
        try:
            apply_edits(root, edits, ("f.py",))
            got = (root / "f.py").read_bytes().decode() if (root / "f.py").exists() else None
        except EditError as exc:
            got = exc.reason
        assert got == expected, (content, edits)
        checked += got not in ("search_not_found", "search_ambiguous")
    assert checked > 100  # enough cases where the edits applied, not only refusals
