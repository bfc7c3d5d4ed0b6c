"""Simple and exponential moving averages."""

from collections import deque


class MovingAverage:
    def __init__(self, size):
        if size < 1:
            raise ValueError("size must be at least 1")
        self._window = deque(maxlen=size)
        self._sum = 0.0

    def add(self, value):
        if len(self._window) == self._window.maxlen:
            self._sum -= self._window[0]
        self._window.append(value)
        self._sum += value
        return self.average

    @property
    def average(self):
        if not self._window:
            return None
        return self._sum / len(self._window)


def ema(values, alpha):
    if not 0 < alpha <= 1:
        raise ValueError("alpha must be in (0, 1]")
    out = []
    for value in values:
        out.append(value if not out else alpha * value + (1 - alpha) * out[-1])
    return out
