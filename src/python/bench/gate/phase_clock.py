"""Where an admission's wall time goes: the image (built on first use), locking, building the environment,
preparing workspaces, test runs.

Admission reports the split so certification throughput can be set against its physical limit, the task's own
2K test runs. The clock is informative only: nothing it measures is hashed or decides a verdict. It is a
context variable, so the gate's functions keep their signatures and a gate run on a remote worker simply
reports nothing.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

PHASES = ("image", "lock", "environment", "workspace", "tests")

_current: ContextVar[dict[str, float] | None] = ContextVar("bench_phase_clock", default=None)
_adding = threading.Lock()


@contextmanager
def measuring() -> Iterator[dict[str, float]]:
    """Collect the phases timed inside; the dict yielded is filled in as they finish."""
    totals: dict[str, float] = {}
    token = _current.set(totals)
    try:
        yield totals
    finally:
        _current.reset(token)


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Add the wall time of the block to ``name`` when a clock is running (a no-op otherwise)."""
    started = time.monotonic()
    try:
        yield
    finally:
        add(name, time.monotonic() - started)


def add(name: str, seconds: float) -> None:
    if name not in PHASES:
        raise ValueError(f"unknown phase {name!r}; known: {', '.join(PHASES)}")
    totals = _current.get()
    if totals is not None:
        with _adding:  # certification runs its two sides in threads that share the clock
            totals[name] = totals.get(name, 0.0) + seconds


def rounded(totals: dict[str, float]) -> dict[str, float]:
    return {name: round(totals[name], 1) for name in PHASES if name in totals}
