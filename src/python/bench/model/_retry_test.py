from __future__ import annotations

import pytest

from bench.errors import EndpointError, EndpointTimeout
from bench.model._retry import Retry, RetryPolicy, call_with_retries


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def failing(errors: list[Retry], result: str = "ok"):
    calls: list[float] = []

    def attempt(remaining: float) -> str:
        calls.append(remaining)
        if errors:
            raise errors.pop(0)
        return result

    return attempt, calls


def test_backoff_doubles_and_is_capped():
    policy = RetryPolicy(max_attempts=6, backoff_seconds=1.0, backoff_cap_seconds=5.0)
    assert [policy.wait_seconds(n, None) for n in range(1, 6)] == [1.0, 2.0, 4.0, 5.0, 5.0]


def test_retry_after_is_honoured_and_capped():
    policy = RetryPolicy(retry_after_cap_seconds=30.0)
    assert policy.wait_seconds(1, 7.5) == 7.5
    assert policy.wait_seconds(1, 3600.0) == 30.0
    assert policy.wait_seconds(1, -1.0) == 0.0


def test_recovers_after_transient_failures_and_passes_remaining_budget():
    fake = FakeTime()
    attempt, calls = failing([Retry(EndpointError("429"), retry_after=2.0), Retry(EndpointError("503"))])
    result = call_with_retries(
        attempt, RetryPolicy(backoff_seconds=0.5), 100.0, clock=fake.clock, sleep=fake.sleep
    )
    assert result == "ok"
    assert fake.sleeps == [2.0, 1.0]
    assert calls == [100.0, 98.0, 97.0]


def test_gives_up_after_max_attempts_with_the_last_error():
    fake = FakeTime()
    last = EndpointError("still 500")
    attempt, calls = failing([Retry(EndpointError("500")), Retry(EndpointError("500")), Retry(last)])
    with pytest.raises(EndpointError) as info:
        call_with_retries(attempt, RetryPolicy(max_attempts=3), 100.0, clock=fake.clock, sleep=fake.sleep)
    assert info.value is last
    assert len(calls) == 3


def test_does_not_wait_past_the_deadline():
    fake = FakeTime()
    error = EndpointError("429")
    attempt, calls = failing([Retry(error, retry_after=20.0)])
    with pytest.raises(EndpointError) as info:
        call_with_retries(attempt, RetryPolicy(), 10.0, clock=fake.clock, sleep=fake.sleep)
    assert info.value is error and fake.sleeps == [] and len(calls) == 1


def test_spent_budget_is_a_timeout():
    fake = FakeTime()
    fake.now = 5.0
    attempt, calls = failing([])
    with pytest.raises(EndpointTimeout):
        call_with_retries(attempt, RetryPolicy(), 5.0, clock=fake.clock, sleep=fake.sleep)
    assert calls == []


def test_non_retry_errors_pass_straight_through():
    def attempt(remaining: float) -> str:
        raise EndpointTimeout("no answer")

    with pytest.raises(EndpointTimeout):
        call_with_retries(attempt, RetryPolicy(), 10.0)


def test_policy_needs_one_attempt():
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
