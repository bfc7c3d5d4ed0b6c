import rotation


def test_rotate_right():
    assert rotation.rotate([1, 2, 3, 4, 5], 2) == [4, 5, 1, 2, 3]


def test_rotate_left_with_negative_k():
    assert rotation.rotate([1, 2, 3], -1) == [2, 3, 1]


def test_rotate_more_than_length():
    assert rotation.rotate("abc", 7) == ["c", "a", "b"]


def test_rotate_by_zero_and_full_turn():
    assert rotation.rotate([1, 2, 3], 0) == [1, 2, 3]
    assert rotation.rotate([1, 2, 3], 3) == [1, 2, 3]


def test_rotate_empty():
    assert rotation.rotate([], 4) == []


def test_is_rotation():
    assert rotation.is_rotation([1, 2, 3, 4], [3, 4, 1, 2]) is True
    assert rotation.is_rotation([1, 2, 3, 4], [4, 3, 2, 1]) is False


def test_is_rotation_lengths_and_empty():
    assert rotation.is_rotation([1, 2], [1, 2, 1]) is False
    assert rotation.is_rotation([], ()) is True
