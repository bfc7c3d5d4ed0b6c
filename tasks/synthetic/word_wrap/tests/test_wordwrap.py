import pytest

import wordwrap


def test_basic_wrapping():
    assert wordwrap.wrap("the quick brown fox", 10) == ["the quick", "brown fox"]


def test_line_may_be_exactly_width():
    assert wordwrap.wrap("aaa bbb ccc", 7) == ["aaa bbb", "ccc"]


def test_whitespace_runs_collapse():
    assert wordwrap.wrap("  a \n\n b\t c  ", 80) == ["a b c"]


def test_empty_text():
    assert wordwrap.wrap("   \n ", 5) == []


def test_long_word_is_broken():
    assert wordwrap.wrap("ab abcdefghij xy", 4) == ["ab", "abcd", "efgh", "ij", "xy"]


def test_long_word_remainder_joins_next_word():
    assert wordwrap.wrap("abcdefg hi", 5) == ["abcde", "fg hi"]


def test_bad_width():
    with pytest.raises(ValueError):
        wordwrap.wrap("x", 0)


def test_fill_joins_lines():
    assert wordwrap.fill("one two three four", 9) == "one two\nthree\nfour"
