import pytest

import nested


def test_deeply_nested_lists():
    assert nested.flatten([1, [2, [3, [4, [5]]]]]) == [1, 2, 3, 4, 5]


def test_tuples_are_flattened_too():
    assert nested.flatten([1, (2, [3, (4,)])]) == [1, 2, 3, 4]


def test_strings_and_dicts_are_atoms():
    assert nested.flatten(["ab", [b"cd", {"k": 1}]]) == ["ab", b"cd", {"k": 1}]


def test_depth_one_opens_one_level():
    assert nested.flatten([1, [2, [3, [4]]]], depth=1) == [1, 2, [3, [4]]]


def test_depth_zero_is_a_copy():
    data = [1, [2]]
    result = nested.flatten(data, depth=0)
    assert result == [1, [2]] and result is not data


def test_empty_nested_lists_vanish():
    assert nested.flatten([[], [[]], [[], [1]]]) == [1]


def test_negative_depth_rejected():
    with pytest.raises(ValueError):
        nested.flatten([1], depth=-1)


def test_non_sequence_rejected():
    with pytest.raises(TypeError):
        nested.flatten("abc")
