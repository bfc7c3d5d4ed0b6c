import pytest

import bittricks


def test_popcount():
    assert [bittricks.popcount(n) for n in (0, 1, 7, 255, 1 << 40)] == [0, 1, 3, 8, 1]
    with pytest.raises(ValueError):
        bittricks.popcount(-1)


def test_powers_of_two_recognised():
    assert all(bittricks.is_power_of_two(1 << k) is True for k in range(0, 70, 7))


def test_non_powers_rejected():
    assert [bittricks.is_power_of_two(n) for n in (0, 3, 6, 12, -4)] == [False] * 5


def test_next_power_of_two_between_powers():
    assert bittricks.next_power_of_two(5) == 8
    assert bittricks.next_power_of_two(0) == 1


def test_next_power_of_two_exact_power():
    assert bittricks.next_power_of_two(8) == 8
    assert bittricks.next_power_of_two(1024) == 1024


def test_reverse_bits():
    assert bittricks.reverse_bits(0b1011, 4) == 0b1101
    assert bittricks.reverse_bits(1, 8) == 128


def test_reverse_bits_rejects_too_wide_value():
    with pytest.raises(ValueError):
        bittricks.reverse_bits(0b10000, 4)
