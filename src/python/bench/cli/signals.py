"""SIGTERM (and SIGINT) stop the harness the way Ctrl-C does, and stop its sandboxes first.

Python's default for SIGTERM ends the process at once: no ``finally`` block, no context manager, no sandbox
teardown, so temp dirs and cgroups stay behind. Here the first SIGTERM or SIGINT raises KeyboardInterrupt in
the main thread (so every clean-up on the way out runs) after starting a thread that kills every sandbox run
in progress, in any thread, and keeps killing runs that start later (``bench.sandbox.shutdown``): a worker
thread's run ends now instead of at its wall limit, and is not taken for a result. A second SIGTERM is
ignored so it cannot cut the clean-up short; a second SIGINT interrupts it (an impatient user's way out).
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from typing import Iterator

from bench.sandbox import shutdown

KILL_INTERVAL_SECONDS = 0.2
_received: list[int] = []


@contextmanager
def handled() -> Iterator[None]:
    """The handlers, for the duration of one command (main thread only, as Python requires; elsewhere, and
    for a caller such as a test that runs ``main`` in a thread, nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    previous = {number: signal.signal(number, _handle) for number in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def received() -> int | None:
    """The first stopping signal this process got, if any."""
    return _received[0] if _received else None


def _handle(number: int, frame) -> None:
    if _received:
        if number == signal.SIGTERM:
            return
        raise KeyboardInterrupt
    _received.append(number)
    threading.Thread(target=_keep_killing, name="bench-stop", daemon=True).start()
    raise KeyboardInterrupt


def _keep_killing() -> None:
    while True:  # a daemon thread: it ends with the process
        shutdown.stop_all()
        time.sleep(KILL_INTERVAL_SECONDS)
