import math

import pytest

import bucket


def test_starts_full_then_denies():
    b = bucket.TokenBucket(3, 1.0)
    assert [b.allow(0.0) for _ in range(4)] == [True, True, True, False]


def test_refills_over_time():
    b = bucket.TokenBucket(2, 0.5)
    assert b.allow(0.0, cost=2)
    assert b.allow(1.0) is False
    assert b.tokens(1.0) == 0.5
    assert b.allow(2.0) is True


def test_never_exceeds_capacity():
    b = bucket.TokenBucket(2, 1.0)
    assert b.tokens(100.0) == 2.0
    assert [b.allow(100.0) for _ in range(3)] == [True, True, False]


def test_denied_request_takes_nothing():
    b = bucket.TokenBucket(4, 1.0)
    b.allow(0.0, cost=3)
    assert b.allow(0.0, cost=2) is False
    assert b.tokens(0.0) == 1.0


def test_time_going_backwards_rejected():
    b = bucket.TokenBucket(2, 1.0, now=10.0)
    with pytest.raises(ValueError):
        b.allow(9.0)
    assert b.tokens(10.0) == 2.0


def test_invalid_costs():
    b = bucket.TokenBucket(2, 1.0)
    for cost in (0, -1, 2.5):
        with pytest.raises(ValueError):
            b.allow(0.0, cost=cost)


def test_wait_time():
    b = bucket.TokenBucket(4, 0.5)
    b.allow(0.0, cost=4)
    assert b.wait_time(0.0) == 2.0
    assert b.wait_time(100.0, cost=4) == 0.0
    assert bucket.TokenBucket(1, 0.0).wait_time(0.0) == 0.0


def test_wait_time_without_refill():
    b = bucket.TokenBucket(1, 0.0)
    b.allow(0.0)
    assert b.wait_time(5.0) == math.inf
