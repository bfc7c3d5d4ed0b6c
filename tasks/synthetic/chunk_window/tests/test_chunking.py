import pytest

import chunking


def test_chunk_exact_multiple():
    assert chunking.chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]


def test_chunk_keeps_short_last_chunk():
    assert chunking.chunk([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]


def test_chunk_size_larger_than_sequence():
    assert chunking.chunk("ab", 5) == [["a", "b"]]


def test_chunk_empty_sequence():
    assert chunking.chunk([], 3) == []


def test_chunk_rejects_bad_size():
    with pytest.raises(ValueError):
        chunking.chunk([1, 2], 0)


def test_windows_step_one():
    assert chunking.windows("abcde", 3) == [("a", "b", "c"), ("b", "c", "d"), ("c", "d", "e")]


def test_windows_with_step():
    assert chunking.windows(range(7), 2, step=3) == [(0, 1), (3, 4)]


def test_window_as_long_as_sequence():
    assert chunking.windows([1, 2, 3], 3) == [(1, 2, 3)]


def test_windows_sequence_too_short():
    assert chunking.windows([1, 2], 3) == []


def test_windows_reject_bad_step():
    with pytest.raises(ValueError):
        chunking.windows([1, 2, 3], 2, step=0)
