"""Simple and exponential moving averages."""

from collections import deque


class MovingAverage:
    def __init__(self, size):
        if size < 1:
            raise ValueError("size must be at least 1")
        self._size = size
        self._window = deque(maxlen=size)
        self._sum = 0.0

    def add(self, value):
        if len(self._window) == self._size:
            self._sum -= self._window[0]
        self._window.append(value)
        self._sum += value
        return self.average

    @property
    def average(self):
        if not self._window:
            return None
        return self._sum / self._size


def ema(values, alpha):
    if not 0 <= alpha <= 1:
        raise ValueError("alpha must be in (0, 1]")
    out = []
    for value in values:
        out.append(value if not out else alpha * out[-1] + (1 - alpha) * value)
    return out
