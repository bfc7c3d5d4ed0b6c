import pytest

import money


def test_whole_and_two_decimal_amounts():
    assert money.parse_amount("12") == 1200
    assert money.parse_amount(" 12.34 ") == 1234


def test_single_decimal_digit_means_tens_of_cents():
    assert money.parse_amount("12.3") == 1230


def test_negative_amounts():
    assert money.parse_amount("-0.50") == -50
    assert money.parse_amount("-1.25") == -125


def test_thousands_separators():
    assert money.parse_amount("1,234,567.89") == 123456789


def test_malformed_amounts():
    for bad in ("", "1.234", "12,34", "abc", "+5", "1.", "1,2345"):
        with pytest.raises(ValueError):
            money.parse_amount(bad)


def test_format_amount():
    assert [money.format_amount(c) for c in (123456, -50, 0, 7)] == ["1,234.56", "-0.50", "0.00", "0.07"]
