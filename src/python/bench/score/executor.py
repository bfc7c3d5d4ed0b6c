"""Where scored units run: a thread pool in this process (the default) or a cluster (``--cluster ADDRESS``).

An executor runs the same work for a unit wherever it runs — prepare the task's environment, run the model in
the sandbox, grade (``_UnitContext.run_unit`` in :mod:`bench.score.runner`) — and hands each finished unit
back to the caller's thread as a :class:`UnitDone`. Only the caller writes records, so resume, atomic
appends and byte-identical ``results.jsonl`` do not depend on where units ran.

Backends are found by the address's scheme; a backend module is imported only when asked for, so
``import bench`` never imports dask::

    (none)            LocalExecutor   threads in this process
    tcp:// tls://     bench.score.dask_executor.DaskExecutor   a Dask distributed scheduler
"""

from __future__ import annotations

import importlib
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol, Sequence

from bench.errors import UsageError
from bench.loop.records import UnitRecord
from bench.score.units import Unit

# scheme -> module defining ``make_executor(address)``
BACKEND_MODULES: dict[str, str] = {
    "tcp": "bench.score.dask_executor",
    "tls": "bench.score.dask_executor",
}


@dataclass(frozen=True)
class Job:
    """What every unit of one run shares, small enough to send with each unit (the plan without its specs)."""

    plan: object  # bench.score.runner.RunPlan with specs=()
    benchmark: dict  # benchmark commit and pool hash, computed once by the client
    run_id: str  # names the run's units on a cluster; never part of a record


@dataclass(frozen=True)
class UnitDone:
    unit: Unit
    record: UnitRecord
    timing: dict
    worker: str = "local"
    # Prompt and response texts a remote unit kept by hash, for the client to put in <out>/store.
    store_files: tuple[tuple[str, bytes], ...] = ()
    # What `bench view` shows beyond the record (each turn's diff and feedback), for <out>/units/; None: nothing.
    detail: dict | None = None


@dataclass(frozen=True)
class ExecutionStats:
    backend: str
    per_worker: tuple[tuple[str, int], ...] = ()
    retries: int = 0  # unit starts beyond the first (a worker died under the unit, it ran again elsewhere)
    lost: int = 0  # units recorded infrastructure_error because every worker that took them died

    def lines(self) -> list[str]:
        counts = ", ".join(f"{worker} {count}" for worker, count in self.per_worker) or "none"
        return [f"executor {self.backend}: units per worker: {counts}; retried {self.retries}; "
                f"lost to dead workers {self.lost}"]


Deliver = Callable[[UnitDone], None]


class UnitExecutor(Protocol):
    name: str

    def run(self, job: Job, units: Sequence[Unit], deliver: Deliver) -> ExecutionStats:
        """Run every unit; call ``deliver`` in the calling thread as each finishes. On any exception
        (including KeyboardInterrupt, or one raised by ``deliver``) units not started yet must not start."""
        ...


def get_executor(cluster: str | None, *, workers: int) -> UnitExecutor:
    """The local thread pool for no address, else the backend the address's scheme names."""
    if not cluster:
        return LocalExecutor(workers)
    scheme, sep, rest = cluster.partition("://")
    if not sep or not rest or scheme not in BACKEND_MODULES:
        raise UsageError(f"--cluster {cluster!r}: expected a scheduler address such as tcp://HOST:8786 "
                         f"(schemes: {', '.join(sorted(BACKEND_MODULES))})")
    return importlib.import_module(BACKEND_MODULES[scheme]).make_executor(cluster)


class LocalExecutor:
    """Threads in this process sharing one task pool (each task prepared once) — the default."""

    name = "local"

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)

    def run(self, job: Job, units: Sequence[Unit], deliver: Deliver) -> ExecutionStats:
        from bench.sandbox.cleanup import scratch_dir
        from bench.score.runner import open_context
        from bench.score.task_env import TaskPool

        plan = job.plan
        context = open_context(job, None, plan.out_dir / "store")  # the model first: a bad id fails here
        with scratch_dir(prefix="bench-score-") as scratch:
            context.pool = TaskPool(plan.root, Path(scratch), sandbox_name=plan.sandbox_name, mirror=plan.mirror)
            executor = ThreadPoolExecutor(max_workers=self.workers)
            try:
                futures = {executor.submit(context.run_unit, unit): unit for unit in units}
                for future in as_completed(futures):
                    record, timing, detail = future.result()
                    deliver(UnitDone(futures[future], record, timing, detail=detail))
            except BaseException:
                # Interrupted (SIGTERM/SIGINT) or failed: units not started yet must not start (they could
                # still call a model or prepare tasks); running ones end as their sandboxes are killed.
                executor.shutdown(wait=True, cancel_futures=True)
                raise
            executor.shutdown(wait=True)
        return ExecutionStats(self.name, (("local", len(units)),) if units else ())

