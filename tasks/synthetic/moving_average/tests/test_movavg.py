import pytest

import movavg


def close(a, b):
    return all(abs(x - y) < 1e-9 for x, y in zip(a, b)) and len(a) == len(b)


def test_full_window_average():
    m = movavg.MovingAverage(2)
    m.add(1)
    m.add(3)
    assert m.add(5) == 4.0


def test_average_before_window_fills():
    m = movavg.MovingAverage(4)
    assert m.add(2) == 2.0
    assert m.add(4) == 3.0


def test_average_property():
    m = movavg.MovingAverage(3)
    assert m.average is None
    for v in (1, 2, 3, 10):
        m.add(v)
    assert m.average == 5.0


def test_bad_size():
    with pytest.raises(ValueError):
        movavg.MovingAverage(0)


def test_ema_values():
    assert close(movavg.ema([10, 20, 20], 0.25), [10, 12.5, 14.375])


def test_ema_alpha_one_copies_input():
    assert movavg.ema([3, 1, 4, 1], 1.0) == [3, 1, 4, 1]


def test_ema_empty():
    assert movavg.ema([], 0.5) == []


def test_ema_rejects_bad_alpha():
    for alpha in (0, -0.1, 1.5):
        with pytest.raises(ValueError):
            movavg.ema([1, 2], alpha)
