"""Stopping every sandbox run of this process at once, from any thread, when the harness is told to stop.

A run registers how to kill its process tree while it runs. :func:`stop_all` (the CLI calls it on SIGTERM and
SIGINT) marks the process as stopping and kills every registered tree, so runs in worker threads end within
moments instead of at their wall limit; each run then tears down as on any way out (cgroups removed, work dir
handed back) and raises :class:`Stopped`, so a run cut short never reads as a result. A run asked for after
that raises at once.
"""

from __future__ import annotations

import itertools
import threading
from typing import Callable

_stopping = threading.Event()
_lock = threading.Lock()
_killers: dict[int, Callable[[], None]] = {}
_tokens = itertools.count()


class Stopped(KeyboardInterrupt):
    """The run was cut short (or never started) because the harness is stopping.

    A KeyboardInterrupt, not a BenchError: library code that turns errors into records must not record it."""


def stopping() -> bool:
    return _stopping.is_set()


def check() -> None:
    if _stopping.is_set():
        raise Stopped("the harness is stopping")


def register(kill: Callable[[], None]) -> int:
    with _lock:
        token = next(_tokens)
        _killers[token] = kill
    return token


def unregister(token: int) -> None:
    with _lock:
        _killers.pop(token, None)


def stop_all() -> int:
    """Mark the process as stopping and kill every run in progress; returns how many were killed."""
    _stopping.set()
    with _lock:
        killers = list(_killers.values())
    for kill in killers:
        try:
            kill()
        except Exception:  # noqa: BLE001  one run that cannot be killed must not spare the others
            pass
    return len(killers)
