import pytest

import spiral


def test_square_matrix():
    assert spiral.spiral_order([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == [1, 2, 3, 6, 9, 8, 7, 4, 5]


def test_wide_matrix():
    m = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    assert spiral.spiral_order(m) == [1, 2, 3, 4, 8, 12, 11, 10, 9, 5, 6, 7]


def test_two_rows():
    assert spiral.spiral_order([[1, 2, 3], [4, 5, 6]]) == [1, 2, 3, 6, 5, 4]


def test_single_row_and_single_column():
    assert spiral.spiral_order([[1, 2, 3]]) == [1, 2, 3]
    assert spiral.spiral_order([[1], [2], [3]]) == [1, 2, 3]


def test_empty_matrices():
    assert spiral.spiral_order([]) == []
    assert spiral.spiral_order([[]]) == []


def test_ragged_rejected():
    with pytest.raises(ValueError):
        spiral.spiral_order([[1, 2], [3]])


def test_fill_square():
    assert spiral.spiral_fill(3, 3) == [[1, 2, 3], [8, 9, 4], [7, 6, 5]]


def test_fill_tall():
    assert spiral.spiral_fill(4, 2) == [[1, 2], [8, 3], [7, 4], [6, 5]]
