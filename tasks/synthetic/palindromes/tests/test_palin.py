import pytest

import palin


def test_plain_palindrome():
    assert palin.is_palindrome("racecar") is True
    assert palin.is_palindrome("racecars") is False


def test_ignores_case_and_punctuation():
    assert palin.is_palindrome("A man, a plan, a canal: Panama!") is True


def test_empty_and_symbol_only_strings():
    assert palin.is_palindrome("") is True
    assert palin.is_palindrome("?!") is True


def test_next_palindrome_simple():
    assert palin.next_palindrome(123) == 131
    assert palin.next_palindrome(0) == 1


def test_next_palindrome_is_strictly_greater():
    assert palin.next_palindrome(131) == 141
    assert palin.next_palindrome(9) == 11


def test_next_palindrome_carries():
    assert palin.next_palindrome(99) == 101
    assert palin.next_palindrome(1991) == 2002


def test_next_palindrome_large():
    assert palin.next_palindrome(10**15) == 10**15 + 1
    assert palin.next_palindrome(123456789) == 123464321


def test_negative_rejected():
    with pytest.raises(ValueError):
        palin.next_palindrome(-5)
