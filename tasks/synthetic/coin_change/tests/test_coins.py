import pytest

import coins


def test_canonical_coin_system():
    assert coins.min_coins(63, [1, 5, 10, 25]) == [25, 25, 10, 1, 1, 1]


def test_non_canonical_coin_system():
    assert coins.min_coins(6, [1, 3, 4]) == [3, 3]
    assert coins.min_coins(10, [2, 5, 6]) == [5, 5]


def test_greedy_dead_end_is_avoided():
    assert coins.min_coins(9, [3, 5]) == [3, 3, 3]


def test_impossible_amount():
    assert coins.min_coins(3, [5, 10]) is None


def test_zero_amount():
    assert coins.min_coins(0, [7]) == []


def test_tie_prefers_larger_coins_first():
    assert coins.min_coins(4, [1, 2, 3]) == [3, 1]


def test_count_ways():
    assert coins.count_ways(5, [1, 2, 5]) == 4
    assert coins.count_ways(10, [2, 5, 3, 6]) == 5


def test_count_ways_zero_amount():
    assert coins.count_ways(0, [3]) == 1


def test_invalid_input():
    for amount, bad in ((5, []), (5, [0, 1]), (5, [-2]), (-1, [1])):
        with pytest.raises(ValueError):
            coins.min_coins(amount, bad)
