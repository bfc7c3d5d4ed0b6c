import pytest

from sparsevec import SparseVector


def test_get_and_set():
    v = SparseVector(5, {1: 2.0})
    v[3] = 4
    assert v.to_dense() == [0, 2.0, 0, 4, 0]
    assert v.nnz == 2


def test_assigning_zero_removes_entry():
    v = SparseVector(3, {0: 1})
    v[0] = 0
    assert v.nnz == 0 and v.items() == []


def test_constructor_drops_zeros_and_checks_bounds():
    assert SparseVector(3, {0: 0, 2: 5}).items() == [(2, 5)]
    with pytest.raises(IndexError):
        SparseVector(3, {3: 1})


def test_index_errors():
    v = SparseVector(2)
    with pytest.raises(IndexError):
        v[2]
    with pytest.raises(IndexError):
        v[-1] = 1


def test_dot_product():
    a = SparseVector(4, {0: 1, 2: 3})
    b = SparseVector(4, {2: 2, 3: 7})
    assert a.dot(b) == 6
    with pytest.raises(ValueError):
        a.dot(SparseVector(5))


def test_addition_cancelling_entries():
    a = SparseVector(3, {0: 1, 1: 2})
    b = SparseVector(3, {0: -1, 2: 5})
    total = a + b
    assert total.items() == [(1, 2), (2, 5)]
    assert total == SparseVector(3, {1: 2, 2: 5})


def test_scale_by_zero_is_empty():
    v = SparseVector(3, {1: 4}).scale(0)
    assert v.nnz == 0
    assert v == SparseVector(3)


def test_equality_depends_on_dim():
    assert SparseVector(3) != SparseVector(4)
