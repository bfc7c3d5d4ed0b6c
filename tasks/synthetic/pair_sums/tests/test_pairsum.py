import pairsum


def test_distinct_value_pairs():
    assert pairsum.pairs_with_sum([1, 5, 3, 3, 2, 4], 6) == [(1, 5), (2, 4), (3, 3)]


def test_single_value_cannot_pair_with_itself():
    assert pairsum.pairs_with_sum([3, 1, 5], 6) == [(1, 5)]


def test_negative_numbers_and_zero_target():
    assert pairsum.pairs_with_sum([-2, 2, 0, 0, -1, 3], 0) == [(-2, 2), (0, 0)]


def test_no_pairs():
    assert pairsum.pairs_with_sum([], 4) == []
    assert pairsum.pairs_with_sum([1, 2], 10) == []


def test_count_distinct_values():
    assert pairsum.count_pairs_with_sum([1, 5, 2, 4], 6) == 2


def test_count_repeated_values():
    assert pairsum.count_pairs_with_sum([1, 1, 1], 2) == 3
    assert pairsum.count_pairs_with_sum([3, 3, 4, 2], 6) == 2


def test_count_does_not_pair_element_with_itself():
    assert pairsum.count_pairs_with_sum([3], 6) == 0
