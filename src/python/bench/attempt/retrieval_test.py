from __future__ import annotations

from pathlib import Path

import pytest

from bench.attempt.retrieval import MAX_FILE_BYTES, Chunk, chunks_of, corpus_files, rank, words


def test_words_split_snake_case_and_keep_the_whole_identifier():
    assert words("parse_date") == ["date", "parse", "parse_date"]


def test_words_split_camel_case_and_keep_the_whole_identifier_lower_cased():
    assert words("parseDate") == ["date", "parse", "parsedate"]
    assert words("DateParser") == ["date", "dateparser", "parser"]


def test_words_keep_digits_with_their_word():
    assert words("v2Parser") == ["parser", "v2", "v2parser"]


def test_words_split_an_acronym_from_the_word_after_it():
    # The `[A-Z]+(?![a-z])` alternative of the word pattern is meant for acronyms; "HTTPServer" and
    # "getURL" must give "http" and "url", like "parseDate" gives "parse" and "date".
    assert words("HTTPServer") == ["http", "httpserver", "server"]
    assert words("getURL") == ["get", "geturl", "url"]


def test_words_drop_keywords_self_cls_constants_and_single_letters():
    assert words("def f(self, cls, x): return None if True else False") == []
    assert words("If ELSE") == []


def test_words_keep_repeats_in_text_order_for_term_frequency():
    assert words("check(text); check") == ["check", "text", "check"]
    assert words("") == []


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for path in (
        "setup.py",
        "docs/conf.py",
        "pkg/__init__.py",
        "pkg/core.py",
        "pkg/sub/deep.py",
        "pkg/checks.py",  # a test file of the task
        "pkg/test_helpers.py",
        "pkg/core_test.py",
        "pkg/conftest.py",
        "pkg/testing/fixtures.py",
        "tests/helpers.py",
        "test/other.py",
        "pkg/tests/inner.py",
        ".hidden/x.py",
        "build/lib/pkg/core.py",
        "venv/lib/site.py",
        "pkg/__pycache__/core.py",
        "pkg/README.md",
    ):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x = 1\n")
    (tmp_path / "pkg/big.py").write_text("#" * (MAX_FILE_BYTES + 1))
    (tmp_path / "pkg/link.py").symlink_to(tmp_path / "pkg/core.py")
    return tmp_path


def test_corpus_files_are_the_sorted_python_files_outside_the_tests(tree: Path):
    assert corpus_files(tree, ("pkg/checks.py",)) == (
        "docs/conf.py",
        "pkg/__init__.py",
        "pkg/core.py",
        "pkg/sub/deep.py",
        "setup.py",
    )


def test_corpus_files_keep_a_file_the_task_does_not_call_a_test(tree: Path):
    assert "pkg/checks.py" in corpus_files(tree, ())


SOURCE = '''\
"""Doc."""
import re


def parse_date(text):
    return re.match(r"\\d+", text)


class Page:
    title = ""

    def render(self):
        return self.title
'''


def test_chunks_of_a_module_are_its_module_code_then_each_definitions_own_lines():
    assert chunks_of("pkg/core.py", SOURCE) == (
        Chunk("pkg/core.py", "", ((1, 1), (2, 2))),
        Chunk("pkg/core.py", "parse_date", ((5, 6),)),
        Chunk("pkg/core.py", "Page", ((9, 10),)),
        Chunk("pkg/core.py", "Page.render", ((12, 13),)),
    )


def test_chunks_of_a_file_without_module_code_has_no_module_chunk():
    assert chunks_of("a.py", "def f():\n    pass\n") == (Chunk("a.py", "f", ((1, 2),)),)


def test_a_file_that_does_not_parse_is_one_chunk():
    assert chunks_of("bad.py", "def f(:\n    pass\n\n") == (Chunk("bad.py", "", ((1, 3),)),)
    assert chunks_of("empty_bad.py", "(") == (Chunk("empty_bad.py", "", ((1, 1),)),)


CHUNKS = (
    Chunk("a.py", "render_page", ((1, 2),)),
    Chunk("a.py", "parse_date", ((3, 4),)),
    Chunk("b.py", "unrelated", ((1, 2),)),
    Chunk("b.py", "format_date", ((3, 4),)),
)
TEXTS = (
    "def render_page(page):\n    return page.html",
    "def parse_date(text):\n    return strptime(text)",
    "def unrelated(a):\n    return a",
    "def format_date(value):\n    return value.isoformat()",
)


def test_rank_puts_the_matching_chunk_first_and_leaves_out_chunks_without_a_shared_word():
    query = "def test_parse_date():\n    assert parse_date('2024-01-02') == DATE\n"
    result = rank(CHUNKS, TEXTS, query)
    assert [c.qualname for c in result] == ["parse_date", "format_date"]


def test_rank_is_deterministic():
    query = "parse_date page render"
    first = rank(CHUNKS, TEXTS, query)
    assert first == rank(CHUNKS, TEXTS, query)
    # render_page holds "render" once and "page" three times; parse_date three query words once each
    assert [c.qualname for c in first] == ["render_page", "parse_date", "format_date"]


def test_rank_ties_keep_the_chunks_order():
    chunks = (Chunk("a.py", "one", ((1, 1),)), Chunk("a.py", "two", ((2, 2),)), Chunk("a.py", "three", ((3, 3),)))
    texts = ("compute_total()", "nothing_here()", "compute_total()")
    assert [c.qualname for c in rank(chunks, texts, "compute_total")] == ["one", "three"]
    assert [c.qualname for c in rank(chunks[::-1], texts[::-1], "compute_total")] == ["three", "one"]


@pytest.mark.parametrize("query", ["", "   \n", "if return self None", "x y z"])
def test_a_query_without_words_ranks_nothing(query: str):
    assert rank(CHUNKS, TEXTS, query) == ()


def test_a_query_sharing_no_word_with_the_corpus_ranks_nothing():
    assert rank(CHUNKS, TEXTS, "completely_different vocabulary") == ()


def test_no_chunks_rank_nothing():
    assert rank((), (), "parse_date") == ()


def test_chunks_without_words_are_indexed_and_never_returned():
    chunks = (*CHUNKS, Chunk("c.py", "", ((1, 1),)))
    result = rank(chunks, (*TEXTS, "# ?"), "parse_date")
    assert [c.qualname for c in result] == ["parse_date", "format_date"]
