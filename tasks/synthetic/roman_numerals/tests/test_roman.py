import pytest

import roman


def test_small_numbers():
    assert [roman.to_roman(n) for n in (1, 3, 4, 9, 14, 40)] == ["I", "III", "IV", "IX", "XIV", "XL"]


def test_subtractive_hundreds():
    assert roman.to_roman(1994) == "MCMXCIV"
    assert roman.to_roman(900) == "CM"


def test_largest_value():
    assert roman.to_roman(3999) == "MMMCMXCIX"


def test_out_of_range_rejected():
    for bad in (0, -1, 4000):
        with pytest.raises(ValueError):
            roman.to_roman(bad)


def test_parse_canonical():
    assert roman.from_roman("MCMXCIV") == 1994
    assert roman.from_roman("XLII") == 42


def test_parse_rejects_non_canonical():
    for bad in ("IIII", "VV", "IC", "MMMM"):
        with pytest.raises(ValueError):
            roman.from_roman(bad)


def test_parse_rejects_lowercase_and_empty():
    for bad in ("xii", ""):
        with pytest.raises(ValueError):
            roman.from_roman(bad)


def test_round_trip_every_value():
    assert all(roman.from_roman(roman.to_roman(n)) == n for n in range(1, 4000))
