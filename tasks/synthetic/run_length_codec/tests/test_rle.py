import pytest

import rle


def test_encode_mixed_runs():
    assert rle.encode("aaabcc") == "3a1b2c"


def test_encode_empty_string():
    assert rle.encode("") == ""


def test_encode_single_character():
    assert rle.encode("x") == "1x"


def test_encode_rejects_digits():
    with pytest.raises(ValueError):
        rle.encode("ab1")


def test_decode_single_digit_counts():
    assert rle.decode("3a1b2c") == "aaabcc"


def test_decode_multi_digit_count():
    assert rle.decode("12a1b") == "a" * 12 + "b"


def test_decode_rejects_missing_count():
    with pytest.raises(ValueError):
        rle.decode("a")


def test_decode_rejects_zero_count():
    with pytest.raises(ValueError):
        rle.decode("0a")


def test_decode_rejects_trailing_count():
    with pytest.raises(ValueError):
        rle.decode("3a4")


def test_round_trip_long_runs():
    text = "z" * 25 + " " * 3 + "q" + "!!" * 1
    assert rle.decode(rle.encode(text)) == text
