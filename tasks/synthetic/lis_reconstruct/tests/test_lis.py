import lis


def pseudo_random(n, seed=12345, modulo=50):
    values = []
    for _ in range(n):
        seed = (1103515245 * seed + 12345) % 2**31
        values.append(seed % modulo)
    return values


def is_subsequence(sub, seq):
    it = iter(seq)
    return all(any(x == y for y in it) for x in sub)


def test_empty_and_single():
    assert lis.lis([]) == []
    assert lis.lis([7]) == [7]


def test_classic_example():
    assert lis.lis([10, 9, 2, 5, 3, 7, 101, 18]) == [2, 3, 7, 18]


def test_result_is_a_real_subsequence():
    assert lis.lis([1, 5, 6, 2]) == [1, 5, 6]


def test_lexicographically_smallest_among_longest():
    assert lis.lis([3, 4, 1, 2, 0]) == [1, 2]
    assert lis.lis([5, 1, 6, 2, 7]) == [1, 2, 7]


def test_strictness():
    assert lis.lis([2, 2, 2]) == [2]
    assert lis.lis_length([2, 2, 2]) == 1


def test_non_decreasing():
    assert lis.longest_non_decreasing([2, 2, 1, 2]) == [2, 2, 2]
    assert lis.longest_non_decreasing([3, 1, 1, 2, 1]) == [1, 1, 1]


def test_length_is_fast_on_long_input():
    assert lis.lis_length(range(30000)) == 30000
    assert lis.lis_length(list(range(30000, 0, -1))) == 1


def test_pseudo_random_sequence():
    values = pseudo_random(300)
    result = lis.lis(values)
    assert len(result) == lis.lis_length(values)
    assert all(a < b for a, b in zip(result, result[1:]))
    assert is_subsequence(result, values)
