"""Bounded retries for HTTP model endpoints, inside one deadline.

One :meth:`Model.complete` call has one budget (``ModelParams.timeout_seconds``) covering every attempt.
Transient failures (429, 5xx, dropped connections, a 200 without choices) are retried with exponential
backoff, honouring ``Retry-After`` up to a cap. When the retries are spent — or the next wait would pass
the deadline — the last failure is raised: rate limits and server errors as EndpointError (infrastructure),
an endpoint that never produced a usable answer as EndpointTimeout (the model's budget).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, TypeVar

from bench.errors import EndpointError, EndpointTimeout

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 4  # tries in all, the first included
    backoff_seconds: float = 1.0  # first wait; doubles per retry
    backoff_cap_seconds: float = 16.0
    retry_after_cap_seconds: float = 30.0  # a server asking for longer is waited on only this long

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")

    def wait_seconds(self, retry_number: int, retry_after: float | None) -> float:
        """Wait before retry ``retry_number`` (1-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.retry_after_cap_seconds)
        return min(self.backoff_seconds * 2 ** (retry_number - 1), self.backoff_cap_seconds)


class Retry(Exception):
    """Raised by an attempt to ask for another try; ``error`` is raised if no try is left."""

    def __init__(self, error: EndpointError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


def call_with_retries(
    attempt: Callable[[float], T],
    policy: RetryPolicy,
    deadline: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Call ``attempt(remaining_seconds)`` until it returns, raises a non-Retry error, or tries run out."""
    for number in range(1, policy.max_attempts + 1):
        remaining = deadline - clock()
        if remaining <= 0:
            raise EndpointTimeout("the time budget ran out before the endpoint gave a usable answer")
        try:
            return attempt(remaining)
        except Retry as retry:
            if number == policy.max_attempts:
                raise retry.error from retry
            wait = policy.wait_seconds(number, retry.retry_after)
            if clock() + wait >= deadline:
                raise retry.error from retry
            sleep(wait)
    raise AssertionError("unreachable: the loop returns or raises")


DEFAULT_RETRY = RetryPolicy()


MAX_RESPONSE_BYTES = 16 << 20


def read_capped_body(response, deadline: float, clock, *, what: str = "response") -> bytes:
    """Read a streamed HTTP body, refusing more than MAX_RESPONSE_BYTES or reading past `deadline`."""
    from bench.errors import EndpointError, EndpointTimeout

    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise EndpointError(f"{what} larger than {MAX_RESPONSE_BYTES} bytes")
        chunks.append(chunk)
        if clock() > deadline:
            raise EndpointTimeout("the response was still arriving when the time budget ran out")
    return b"".join(chunks)
