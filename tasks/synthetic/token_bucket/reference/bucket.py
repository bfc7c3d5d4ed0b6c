"""A token-bucket rate limiter driven by explicit timestamps."""

import math


class TokenBucket:
    def __init__(self, capacity, rate, now=0.0):
        if capacity <= 0 or rate < 0:
            raise ValueError("capacity must be positive and rate not negative")
        self.capacity = capacity
        self.rate = rate
        self._tokens = float(capacity)
        self._last = now

    def _refill(self, now):
        if now < self._last:
            raise ValueError("time went backwards")
        self._tokens = min(float(self.capacity), self._tokens + (now - self._last) * self.rate)
        self._last = now

    def tokens(self, now):
        self._refill(now)
        return self._tokens

    def _check_cost(self, cost):
        if cost <= 0 or cost > self.capacity:
            raise ValueError(f"cost must be in (0, {self.capacity}]")

    def allow(self, now, cost=1.0):
        self._check_cost(cost)
        self._refill(now)
        if self._tokens >= cost:
            self._tokens -= cost
            return True
        return False

    def wait_time(self, now, cost=1.0):
        self._check_cost(cost)
        self._refill(now)
        missing = cost - self._tokens
        if missing <= 0:
            return 0.0
        if self.rate == 0:
            return math.inf
        return missing / self.rate
