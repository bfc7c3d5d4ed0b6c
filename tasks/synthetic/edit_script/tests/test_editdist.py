import pytest

import editdist

PAIRS = [("kitten", "sitting"), ("flaw", "lawn"), ("", "abc"), ("abc", ""), ("intention", "execution"),
         ("same", "same"), ("ab", "ba")]


def test_distance_classic():
    assert editdist.distance("kitten", "sitting") == 3
    assert editdist.distance("flaw", "lawn") == 2


def test_distance_against_empty():
    assert editdist.distance("", "abc") == 3
    assert editdist.distance("abcd", "") == 4
    assert editdist.distance("", "") == 0


def test_script_is_minimal_and_correct():
    for a, b in PAIRS:
        script = editdist.edit_script(a, b)
        assert editdist.apply_script(a, script) == b
        assert sum(op[0] != "keep" for op in script) == editdist.distance(a, b)


def test_canonical_script_prefers_substitution():
    assert editdist.edit_script("ab", "ba") == [("sub", "a", "b"), ("sub", "b", "a")]
    assert editdist.edit_script("kitten", "sitting") == [
        ("sub", "k", "s"), ("keep", "i"), ("keep", "t"), ("keep", "t"),
        ("sub", "e", "i"), ("keep", "n"), ("ins", "g")]


def test_canonical_script_deletion_position():
    assert editdist.edit_script("aab", "ab") == [("del", "a"), ("keep", "a"), ("keep", "b")]


def test_scripts_from_and_to_empty():
    assert editdist.edit_script("", "ab") == [("ins", "a"), ("ins", "b")]
    assert editdist.edit_script("ab", "") == [("del", "a"), ("del", "b")]


def test_apply_rejects_mismatch_and_leftover():
    with pytest.raises(ValueError):
        editdist.apply_script("abc", [("keep", "x")])
    with pytest.raises(ValueError):
        editdist.apply_script("abc", [("keep", "a")])
    with pytest.raises(ValueError):
        editdist.apply_script("a", [("swap", "a")])
