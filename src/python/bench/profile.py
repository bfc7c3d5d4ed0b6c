"""Where a process's time goes, for ``BENCH_PROFILE=path``: the time spent in each phase of the work (image
builds, locks, environment builds, certification, scoring, probe replays) and, inside each, the sandboxed runs'
own wall time — the part no harness change can remove, the limit a fresh machine's main job is measured against.

Phases are marked with :func:`timed` on the functions that do them; a sandboxed run counts towards the innermost
phase around it. Busy seconds add up over threads, so with several workers they exceed the elapsed time.
`bench` writes :func:`snapshot` to the file ``BENCH_PROFILE`` names when a command ends (bench.cli.main); the
counters cost a clock read per call.
"""

from __future__ import annotations

import contextvars
import functools
import threading
import time
from collections import defaultdict

OTHER = "other"  # a sandboxed run outside every marked phase
_phase: contextvars.ContextVar[str] = contextvars.ContextVar("bench_profile_phase", default=OTHER)
_lock = threading.Lock()
_busy: dict[str, float] = defaultdict(float)  # phase → seconds inside it (nested phases included)
_calls: dict[str, int] = defaultdict(int)
_runs: dict[str, int] = defaultdict(int)  # phase → sandboxed runs
_run_seconds: dict[str, float] = defaultdict(float)


def timed(name: str):
    """Decorator: calls of the function are phase ``name`` (its own sandboxed runs count there)."""
    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            token = _phase.set(name)
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - started
                _phase.reset(token)
                with _lock:
                    _busy[name] += elapsed
                    _calls[name] += 1
        return wrapper
    return decorate


def sandbox_run(seconds: float) -> None:
    """A sandboxed run took ``seconds`` of wall time (called by the backends)."""
    name = _phase.get()
    with _lock:
        _runs[name] += 1
        _run_seconds[name] += seconds


def snapshot() -> dict:
    with _lock:
        phases = sorted(set(_busy) | set(_runs))
        return {"phases": {name: {"calls": _calls.get(name, 0), "busy_seconds": round(_busy.get(name, 0.0), 3),
                                  "sandbox_runs": _runs.get(name, 0),
                                  "sandbox_seconds": round(_run_seconds.get(name, 0.0), 3)} for name in phases},
                "sandbox_seconds": round(sum(_run_seconds.values()), 3), "sandbox_runs": sum(_runs.values())}

