import pytest

import digits


def test_digit_sum_positive():
    assert digits.digit_sum(9045) == 18


def test_digit_sum_negative():
    assert digits.digit_sum(-123) == 6


def test_digital_root():
    assert [digits.digital_root(n) for n in (0, 9, 38, 99999)] == [0, 9, 2, 9]
    with pytest.raises(ValueError):
        digits.digital_root(-1)


def test_luhn_odd_length_number():
    assert digits.luhn_valid("79927398713") is True
    assert digits.luhn_valid("79927398710") is False


def test_luhn_even_length_number_with_spaces():
    assert digits.luhn_valid("4539 3195 0343 6467") is True
    assert digits.luhn_valid("4539 3195 0343 6468") is False


def test_luhn_rejects_short_and_non_digits():
    assert digits.luhn_valid("0") is False
    assert digits.luhn_valid("79a27398713") is False


def test_check_digit_odd_total_length():
    assert digits.luhn_check_digit("7992739871") == "3"


def test_check_digit_even_total_length():
    assert digits.luhn_check_digit("453931950343646") == "7"
