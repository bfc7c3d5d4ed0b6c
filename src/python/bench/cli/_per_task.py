"""What the per-task measuring verbs (`bench adequacy`, `bench probes`) share: the selected tasks, one line each,
one task's trouble stopping no other, and a failure at the end naming how many could not be measured."""

from __future__ import annotations

import sys
import time
from typing import Callable


def selected(selector: str):
    """The checkout's root and the tasks ``selector`` picks (a usage error when none)."""
    from bench.errors import UsageError
    from bench.spec.load import discover, load_all, select
    from bench.variables import find_root

    root = find_root()
    specs = select(load_all(discover(root)), selector)
    if not specs:
        raise UsageError(f"no task matches {selector!r}")
    return root, specs


def each_task(specs, measure: Callable, describe: Callable[[object], str], *, what: str) -> int:
    """``measure(spec)`` for every task and print ``task_id<TAB>describe(result)<TAB>seconds``; a BenchError
    prints an error line and the loop goes on; CheckFailed at the end when any task failed."""
    from bench.errors import BenchError, CheckFailed

    failed = 0
    for spec in specs:
        started = time.monotonic()
        try:
            result = measure(spec)
        except BenchError as exc:  # one task's trouble (a workspace that cannot be made) stops no other
            failed += 1
            print(f"{spec.task_id}\terror\t{exc}")
        else:
            print(f"{spec.task_id}\t{describe(result)}\t{time.monotonic() - started:.1f} s")
        sys.stdout.flush()
    if failed:
        raise CheckFailed(f"{failed} of {len(specs)} task(s) could not be {what}")
    return 0
