import pytest

import bowling


def test_gutter_game():
    assert bowling.score([0] * 20) == 0


def test_all_ones():
    assert bowling.score([1] * 20) == 20


def test_one_spare():
    assert bowling.score([5, 5, 3] + [0] * 17) == 16


def test_one_strike():
    assert bowling.score([10, 3, 4] + [0] * 16) == 24


def test_perfect_game():
    assert bowling.score([10] * 12) == 300


def test_spare_in_tenth_frame():
    assert bowling.score([0] * 18 + [7, 3, 5]) == 15


def test_strike_in_tenth_frame():
    assert bowling.score([0] * 18 + [10, 10, 10]) == 30
    assert bowling.score([0] * 18 + [10, 4, 5]) == 19


def test_too_many_balls():
    with pytest.raises(ValueError):
        bowling.score([0] * 21)


def test_incomplete_games():
    for rolls in ([10] * 5, [0] * 19, [0] * 18 + [10, 10], [0] * 18 + [6, 4]):
        with pytest.raises(ValueError):
            bowling.score(rolls)


def test_too_many_pins():
    for rolls in ([5, 6] + [0] * 18, [11] + [0] * 19, [0] * 18 + [10, 6, 5]):
        with pytest.raises(ValueError):
            bowling.score(rolls)
