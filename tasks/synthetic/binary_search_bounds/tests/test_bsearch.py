import bsearch

DUPS = [1, 2, 2, 2, 2, 3, 5, 5, 8]


def test_unique_elements():
    seq = [1, 3, 5, 7, 9]
    assert bsearch.find_first(seq, 7) == 3
    assert bsearch.find_last(seq, 1) == 0


def test_missing_value():
    assert bsearch.find_first(DUPS, 4) == -1
    assert bsearch.find_last(DUPS, 9) == -1
    assert bsearch.count(DUPS, 0) == 0


def test_empty_sequence():
    assert bsearch.find_first([], 1) == -1
    assert bsearch.lower_bound([], 1) == 0


def test_first_of_duplicates():
    assert bsearch.find_first(DUPS, 2) == 1
    assert bsearch.find_first(DUPS, 5) == 6


def test_last_of_duplicates():
    assert bsearch.find_last(DUPS, 2) == 4
    assert bsearch.find_last(DUPS, 5) == 7


def test_count_duplicates():
    assert [bsearch.count(DUPS, v) for v in (1, 2, 3, 5, 8)] == [1, 4, 1, 2, 1]


def test_lower_bound_positions():
    assert [bsearch.lower_bound(DUPS, v) for v in (0, 2, 4, 9)] == [0, 1, 6, 9]


def test_all_equal_sequence():
    seq = [7] * 10
    assert (bsearch.find_first(seq, 7), bsearch.find_last(seq, 7)) == (0, 9)
