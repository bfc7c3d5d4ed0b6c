import pytest

import matrix


def test_identity():
    assert matrix.identity(3) == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert matrix.identity(0) == []


def test_transpose_square():
    assert matrix.transpose([[1, 2], [3, 4]]) == [[1, 3], [2, 4]]


def test_transpose_rectangular():
    assert matrix.transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]


def test_transpose_single_row():
    assert matrix.transpose([[1, 2, 3]]) == [[1], [2], [3]]


def test_matmul_square():
    assert matrix.matmul([[1, 2], [3, 4]], [[5, 6], [7, 8]]) == [[19, 22], [43, 50]]


def test_matmul_rectangular():
    a = [[1, 2, 3], [4, 5, 6]]
    b = [[7, 8], [9, 10], [11, 12]]
    assert matrix.matmul(a, b) == [[58, 64], [139, 154]]


def test_matmul_dimension_mismatch():
    with pytest.raises(ValueError):
        matrix.matmul([[1, 2, 3], [4, 5, 6]], [[1, 2, 3], [4, 5, 6]])


def test_matmul_ragged_rejected():
    with pytest.raises(ValueError):
        matrix.matmul([[1, 2], [3]], [[1], [2]])


def test_matmul_by_identity_keeps_matrix():
    m = [[2, -1, 0], [5, 3, 7]]
    assert matrix.matmul(m, matrix.identity(3)) == m
