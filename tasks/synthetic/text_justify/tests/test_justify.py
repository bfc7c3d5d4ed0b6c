import pytest

from textfmt import justify, split_into_lines


def test_split_greedy():
    assert split_into_lines(["aa", "bb", "cc", "d"], 5) == [["aa", "bb"], ["cc", "d"]]
    assert split_into_lines([], 5) == []


def test_split_rejects_long_word_and_bad_width():
    with pytest.raises(ValueError):
        split_into_lines(["toolong"], 3)
    with pytest.raises(ValueError):
        split_into_lines(["a"], 0)


def test_example_paragraph():
    assert justify("This is an example of text justification.", 16) == [
        "This    is    an",
        "example  of text",
        "justification.",
    ]


def test_extra_spaces_go_to_leftmost_gaps():
    assert justify("a b c d e f", 10) == ["a  b c d e", "f"]
    assert justify("aa b c dddddddd", 9) == ["aa   b  c", "dddddddd"]


def test_single_word_line_is_padded():
    assert justify("abcdef gh", 7) == ["abcdef ", "gh"]


def test_last_line_left_aligned():
    assert justify("What must be acknowledgment shall be", 16) == [
        "What   must   be",
        "acknowledgment  ",
        "shall be",
    ]


def test_single_line_text_is_not_padded():
    assert justify("  short  text ", 20) == ["short text"]


def test_empty_text():
    assert justify(" \n ", 10) == []
