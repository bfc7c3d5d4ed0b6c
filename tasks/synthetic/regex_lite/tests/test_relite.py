import pytest

import relite


def test_literals_and_dot():
    assert relite.fullmatch("abc", "abc") is True
    assert relite.fullmatch("a.c", "axc") is True
    assert relite.fullmatch("abc", "abcd") is False


def test_star_and_question_mark():
    assert relite.fullmatch("ab*c", "ac") is True
    assert relite.fullmatch("ab*c", "abbbc") is True
    assert relite.fullmatch("colou?r", "color") is True
    assert relite.fullmatch("colou?r", "colouur") is False


def test_plus_needs_at_least_one():
    assert relite.fullmatch("ab+c", "abbc") is True
    assert relite.fullmatch("ab+c", "ac") is False


def test_escapes():
    assert relite.fullmatch(r"a\.b", "a.b") is True
    assert relite.fullmatch(r"a\.b", "axb") is False
    assert relite.fullmatch(r"\*+", "***") is True


def test_character_class_ranges():
    assert relite.fullmatch("[a-c]+", "abcab") is True
    assert relite.fullmatch("[a-c]+", "abd") is False
    assert relite.fullmatch("[0-9a-fA-F]+", "C0ffee") is True
    assert relite.fullmatch("[a-]+", "a-a") is True


def test_negated_class_and_escape_inside_class():
    assert relite.fullmatch("[^0-9]+", "abc") is True
    assert relite.fullmatch("[^0-9]+", "ab1") is False
    assert relite.fullmatch(r"[\]x]+", "]x]") is True


def test_invalid_patterns():
    for bad in ("*a", "a**", "[abc", "[]", "[^]", "a\\", "[z-a]"):
        with pytest.raises(ValueError):
            relite.fullmatch(bad, "a")


def test_search_leftmost_longest():
    assert relite.search("b+", "aabbbcb") == (2, 5)
    assert relite.search("[0-9]+", "ab12c345") == (2, 4)
    assert relite.search("x", "abc") is None


def test_search_empty_match():
    assert relite.search("a*", "bbb") == (0, 0)


def test_no_exponential_blowup():
    assert relite.fullmatch("a*a*a*a*a*a*a*a*b", "a" * 30) is False
    assert relite.fullmatch("a*a*a*a*a*a*a*a*", "a" * 30) is True
