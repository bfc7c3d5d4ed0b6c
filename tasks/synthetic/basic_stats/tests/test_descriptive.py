import pytest

import descriptive


def test_mean():
    assert descriptive.mean([1, 2, 3, 4]) == 2.5


def test_median_of_sorted_odd_count():
    assert descriptive.median([1, 3, 8]) == 3


def test_median_of_unsorted_data():
    assert descriptive.median([9, 1, 5]) == 5
    assert descriptive.median([4, 1, 3, 2]) == 2.5


def test_median_does_not_modify_input():
    data = [3, 1, 2]
    descriptive.median(data)
    assert data == [3, 1, 2]


def test_mode_unique():
    assert descriptive.mode([1, 2, 2, 3]) == 2


def test_mode_tie_takes_smallest():
    assert descriptive.mode([5, 5, 1, 1, 3]) == 1


def test_variance():
    assert descriptive.variance([2, 4, 4, 4, 5, 5, 7, 9]) == 4.0


def test_empty_input_rejected():
    for function in (descriptive.mean, descriptive.median, descriptive.mode, descriptive.variance):
        with pytest.raises(ValueError):
            function([])
