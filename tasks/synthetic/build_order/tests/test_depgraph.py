import pytest

import depgraph


def test_basic_file():
    text = "app: lib util\nlib: core\n\ncore:\n"
    assert depgraph.parse_deps(text) == {"app": ["lib", "util"], "lib": ["core"], "core": []}


def test_full_line_comments():
    assert depgraph.parse_deps("# header\n  # indented\na: b\n") == {"a": ["b"]}


def test_trailing_comments():
    text = "app: lib  # the library\nlib: core#no space\n"
    assert depgraph.parse_deps(text) == {"app": ["lib"], "lib": ["core"]}


def test_repeated_targets_merge_without_duplicates():
    text = "app: lib util\napp: util core lib\n"
    assert depgraph.parse_deps(text) == {"app": ["lib", "util", "core"]}


def test_invalid_lines_report_line_number():
    with pytest.raises(ValueError, match="line 2"):
        depgraph.parse_deps("a: b\nno colon here\n")
    with pytest.raises(ValueError, match="line 1"):
        depgraph.parse_deps("a: b$c\n")
