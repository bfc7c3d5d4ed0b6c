import pytest

import sizes


def test_plain_bytes_and_binary_units():
    assert sizes.parse_size("512 B") == 512
    assert sizes.parse_size("1.5 KiB") == 1536
    assert sizes.parse_size(" 2GiB ") == 2 * 1024**3


def test_decimal_units():
    assert sizes.parse_size("1 kB") == 1000
    assert sizes.parse_size("1 KB") == 1000
    assert sizes.parse_size("3 MB") == 3_000_000


def test_exact_decimal_arithmetic():
    assert sizes.parse_size("1.005 kB") == 1005
    assert sizes.parse_size("0.1 TB") == 100_000_000_000


def test_rounding_ties_to_even():
    assert sizes.parse_size("0.5 B") == 0
    assert sizes.parse_size("2.5 B") == 2
    assert sizes.parse_size("2.0005 kB") == 2000


def test_invalid_sizes():
    for bad in ("12", "1 kb", "1 XB", "-1 B", "1e3 B", ". B", ""):
        with pytest.raises(ValueError):
            sizes.parse_size(bad)


def test_format_binary():
    assert sizes.format_size(1023) == "1023 B"
    assert sizes.format_size(1536) == "1.5 KiB"
    assert sizes.format_size(5 * 1024**5) == "5120.0 TiB"


def test_format_rounding_moves_to_next_unit():
    assert sizes.format_size(1048575) == "1.0 MiB"
    assert sizes.format_size(999_999, binary=False) == "1.0 MB"


def test_format_decimal_and_negative():
    assert sizes.format_size(1500, binary=False) == "1.5 kB"
    with pytest.raises(ValueError):
        sizes.format_size(-1)
