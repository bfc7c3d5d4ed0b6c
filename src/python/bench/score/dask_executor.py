"""Units on a Dask distributed cluster: ``bench score --cluster tcp://HOST:8786``.

Each unit is one Dask task running :func:`bench.score.remote_unit.run_remote_unit` on a worker started as
``dask worker tcp://HOST:8786 --nthreads 1 --resources sandbox=1`` (each unit asks for one ``sandbox``). The
client submits every unit not yet recorded, preferring the workers that already hold the unit's environment
(``workers=`` with ``allow_other_workers=True``), and writes each record as its result arrives.

Faults. A worker that dies under a unit (killed, out of memory) makes the scheduler run the unit again on
another worker, up to its ``distributed.scheduler.allowed-failures`` (default 3); after that the unit is
recorded ``infrastructure_error`` with the reason, and ``--retry-errors`` runs it again later. A unit's
result reaches the client once, so nothing is recorded twice. On Ctrl-C (or SIGTERM) the client cancels every
unit of its run and disconnects: units not started never start, a running one finishes on its worker
(bounded by the sandbox's wall limit) and its result is dropped, and the run resumes like a local one.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from bench.cluster.client import (
    CONNECT_SECONDS, RESOURCE, WORKERS_WAIT_SECONDS, cancel, check_workers, connect, release_as_completed, worker_info,
)
from bench.errors import ClusterError
from bench.score.executor import Deliver, ExecutionStats, Job, UnitDone
from bench.score.units import Unit, failed_record


def make_executor(address: str) -> "DaskExecutor":
    return DaskExecutor(address)


class DaskExecutor:
    name = "dask"

    def __init__(self, address: str, *, connect_seconds: float = CONNECT_SECONDS,
                 workers_wait_seconds: float = WORKERS_WAIT_SECONDS) -> None:
        self.address = address
        self.connect_seconds, self.workers_wait_seconds = connect_seconds, workers_wait_seconds

    def run(self, job: Job, units: Sequence[Unit], deliver: Deliver) -> ExecutionStats:
        if job.plan.mirror is not None:
            from bench.errors import UsageError

            raise UsageError("--mirror names a folder on this machine; with --cluster, set BENCH_MIRROR_DIR on "
                             "each worker host instead")
        client = connect(self.address, self.connect_seconds)
        futures: dict = {}
        try:
            if units:
                check_workers(client, self.address, harness_module="bench.score.remote_unit",
                              seconds=self.workers_wait_seconds)
            futures = self._submit(client, job, units)
            per_worker: Counter = Counter()
            lost = 0
            for future, unit in release_as_completed(client, futures):
                finished = _finished(future, unit, job)
                lost += finished.worker == "lost"
                per_worker[finished.worker] += 1
                deliver(finished)
            retries = _retries(client, job.run_id)
        except BaseException:
            # Units not started must not start; a running unit's result is dropped (the run resumes without it).
            cancel(client, futures)
            raise
        finally:
            client.close()
        return ExecutionStats(f"dask {self.address}", tuple(sorted(per_worker.items())), retries, lost)

    def _submit(self, client, job: Job, units: Sequence[Unit]) -> dict:
        from bench.score.remote_unit import held_environments, pins_for, run_remote_unit

        held = client.run(held_environments, on_error="ignore")  # a worker that cannot say is not preferred
        workers = sorted(worker_info(client))
        pins: dict = {}
        slots: dict[str, int] = {}
        futures = {}
        for index, unit in enumerate(units):
            expected = pins.get(unit.spec.task_id) or pins.setdefault(unit.spec.task_id,
                                                                        pins_for(unit.spec, job.plan.root))
            holders = sorted(a for a, environments in held.items() if expected.environment in environments)
            preferred = prefer(holders or workers, slots.setdefault(unit.spec.task_id, len(slots)))
            placement = {"workers": preferred, "allow_other_workers": True} if preferred else {}
            future = client.submit(run_remote_unit, job, unit, expected, key=f"bench-unit-{job.run_id}-{index}",
                                   pure=False, resources={RESOURCE: 1}, **placement)
            futures[future] = unit
        return futures


def prefer(candidates: Sequence[str], slot: int) -> list[str]:
    """The worker a task's units go to first: among those holding its environment (else all), one per task in
    turn, so a task is laid out once rather than on every worker its units land on. Only a preference: an idle
    worker still takes (steals) queued units."""
    return [candidates[slot % len(candidates)]] if candidates else []


def _finished(future, unit: Unit, job: Job) -> UnitDone:
    """The unit's result; a unit whose workers all died is recorded as an infrastructure error."""
    from distributed.scheduler import KilledWorker

    from bench.errors import BenchError

    try:
        return future.result()
    except KilledWorker as exc:
        return UnitDone(unit, failed_record(unit, job.benchmark, f"KilledWorker: {exc}"), {"unit": list(unit.key)},
                        "lost")
    except BenchError:
        raise  # as from a local thread (a bad model id is a usage error wherever it is found)
    except Exception as exc:  # noqa: BLE001  e.g. a worker that cannot import the harness, a cancelled unit
        raise ClusterError(f"{unit.spec.task_id} ({unit.condition}, sample {unit.sample}) failed on the cluster: "
                           f"{type(exc).__name__}: {exc}"[:800]) from exc


def _retries(client, run_id: str) -> int:
    """Starts beyond the first of each unit, from the start events workers log on the scheduler."""
    try:
        events = client.get_events(f"bench-start-{run_id}")
    except Exception:  # noqa: BLE001  only a statistic: a scheduler that cannot say is not a failed run
        return 0
    starts = Counter(tuple(message["unit"]) for _, message in events)
    return sum(count - 1 for count in starts.values())
