import pytest

import pascal


def test_row_zero():
    assert pascal.pascal_row(0) == [1]


def test_small_rows():
    assert pascal.pascal_row(1) == [1, 1]
    assert pascal.pascal_row(4) == [1, 4, 6, 4, 1]


def test_negative_row_rejected():
    with pytest.raises(ValueError):
        pascal.pascal_row(-1)


def test_triangle():
    assert pascal.pascal_triangle(0) == []
    assert pascal.pascal_triangle(3) == [[1], [1, 1], [1, 2, 1]]


def test_binomial_values():
    assert pascal.binomial(5, 2) == 10
    assert pascal.binomial(30, 15) == 155117520


def test_binomial_out_of_range_k():
    assert pascal.binomial(3, 4) == 0
    assert pascal.binomial(3, -1) == 0


def test_binomial_negative_n_rejected():
    with pytest.raises(ValueError):
        pascal.binomial(-2, 1)
