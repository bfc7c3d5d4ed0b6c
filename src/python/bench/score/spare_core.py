"""Whether a core is spare for a speculative replay of the verified tier.

Scoring starts a candidate's probe replay beside its test run (``bench.score.probe_sets.begin_verification``),
before it knows whether the verdict is resolved: on a spare core the replay's time hides behind the run's. Most
turns are not resolved (524 test runs, 34 resolved units in the scripted study), and a replay started for
them is dropped. Where every core is already running a test (``bench score --workers 2`` on two cores) those
replays only take CPU from the runs that decide; so a replay is started beside the run only when it and the run
leave no sandbox waiting for a core, and otherwise made after the verdict, for a resolved one only. Either way
the check's answer is the same: only when it is computed changes.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_busy = 0  # sandboxed runs of this process that decide a verdict or replay probes, now


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@contextmanager
def busy():
    """Count one sandboxed run (a verdict's test run, a replay) while it lasts."""
    global _busy
    with _lock:
        _busy += 1
    try:
        yield
    finally:
        with _lock:
            _busy -= 1


def spare_for(runs: int) -> bool:
    """Whether ``runs`` more sandboxed runs fit on the cores beside those running now."""
    with _lock:
        return _busy + runs <= cores()
