"""What a cluster worker runs for one unit: exactly what a local thread runs (``_UnitContext.run_unit``).

The worker builds what it lacks from the same pins into its own cache (image, venv, certificate) and lays
each task out once under its own scratch folder, kept for the worker's life so later units and later runs
reuse it. Its checkout (``BENCH_ROOT``, else the one around its working directory) supplies the lockfiles,
image pins and task data; before a unit is scored, the worker's pins must equal the client's
(:class:`Pins`), or the unit is recorded ``infrastructure_error`` (:class:`~bench.errors.EnvironmentMismatch`).
PR tasks' sources come from the worker's ``BENCH_MIRROR_DIR``, else its clone cache
(``BENCH_CACHE_DIR/git``, filled from the task's URL).

Nothing here imports dask at module level: the worker is found through ``distributed.get_worker`` only
inside :func:`run_remote_unit`.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import threading
from pathlib import Path

from bench.cluster.pins import Pins, environment_pins
from bench.errors import EnvironmentMismatch
from bench.score.executor import Job, UnitDone
from bench.score.units import Unit


def pins_for(spec, root: Path) -> Pins:
    """The client's pins of a scored task: its environment and this harness's runner version."""
    from bench.score.units import RUNNER_VERSION

    return environment_pins(spec, root, runner_version=RUNNER_VERSION)


def check_pins(task, expected: Pins) -> None:
    """Raise EnvironmentMismatch naming every pin of the prepared task that differs from the client's."""
    from bench.score.units import RUNNER_VERSION

    seen = {"lock_sha256": task.integrity.get("lock_sha256", ""), "image_digest": task.image_digest,
            "runner_version": RUNNER_VERSION}
    differ = [f"{name} {getattr(expected, name)} on the client, {value} here"
              for name, value in seen.items() if getattr(expected, name) != value]
    if differ:
        raise EnvironmentMismatch(f"{task.spec.task_id}: " + "; ".join(differ))


class WorkerTasks:
    """A worker's prepared tasks, by task id and spec hash (a changed spec is laid out again), each prepared
    once however many threads ask. Failures are not kept: the next unit of the task tries again."""

    def __init__(self, root: Path, scratch: Path, sandbox_name: str) -> None:
        self.root, self.scratch, self.sandbox_name = root, scratch, sandbox_name
        self._guard = threading.Lock()
        self._locks: dict[tuple, threading.Lock] = {}
        self._ready: dict[tuple, object] = {}
        self.environments: set[str] = set()

    def get(self, spec, expected: Pins):
        from bench.score.task_env import prepare_task
        from bench.spec.load import spec_sha256

        key = (spec.task_id, spec_sha256(spec))
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            task = self._ready.get(key)
            if task is None:
                folder = self.scratch / hashlib.sha256(repr(key).encode()).hexdigest()[:16]
                task = prepare_task(spec, self.root, folder, sandbox_name=self.sandbox_name)
                self._ready[key] = task
        check_pins(task, expected)
        with self._guard:
            self.environments.add(expected.environment)
        return task


class _CheckedPool:
    """The pool a unit's context asks (``pool.get(spec)``), checking the client's pins on the way."""

    def __init__(self, tasks: WorkerTasks, expected: Pins) -> None:
        self.tasks, self.expected = tasks, expected

    def get(self, spec):
        return self.tasks.get(spec, self.expected)


_state_lock = threading.Lock()
_tasks: dict[tuple, WorkerTasks] = {}
_models: dict[tuple, object] = {}


def run_remote_unit(job: Job, unit: Unit, expected: Pins) -> UnitDone:
    """Score one unit on this worker and hand back its record; the client writes it."""
    from distributed import get_worker

    from bench.score.runner import _UnitContext

    worker = get_worker()
    worker.log_event(f"bench-start-{job.run_id}", {"unit": list(unit.key)})
    tasks = _worker_tasks(Path(worker.local_directory), job.plan.sandbox_name)
    model, controller, cache = _run_models(job.plan)
    store = Path(tempfile.mkdtemp(prefix="bench-store-", dir=worker.local_directory))
    try:
        context = _UnitContext(job.plan, model, controller, cache, _CheckedPool(tasks, expected), job.benchmark,
                               store)
        record, timing, detail = context.run_unit(unit)
        files = tuple((str(p.relative_to(store)), p.read_bytes()) for p in sorted(store.rglob("*")) if p.is_file())
    finally:
        shutil.rmtree(store, ignore_errors=True)
    return UnitDone(unit, record, {**timing, "worker": worker.address}, worker.address, files, detail)


def held_environments(dask_worker=None) -> list[str]:
    """The environments this worker process has prepared a task in (``client.run`` calls it on each)."""
    with _state_lock:
        pools = list(_tasks.values())
    return sorted(set().union(*(p.environments for p in pools))) if pools else []


def _worker_tasks(local_directory: Path, sandbox_name: str) -> WorkerTasks:
    from bench.variables import find_root

    root = find_root()
    with _state_lock:
        key = (str(root), sandbox_name)
        if key not in _tasks:
            scratch = local_directory / "bench-tasks" / sandbox_name
            scratch.mkdir(parents=True, exist_ok=True)
            _tasks[key] = WorkerTasks(root, scratch, sandbox_name)
        return _tasks[key]


def _run_models(plan) -> tuple:
    """The model, controller and verdict cache for a run's settings, built once per worker process."""
    from bench.model.registry import get_model
    from bench.store.action_cache import ActionCache

    key = (plan.model_id, plan.controller_id, plan.params, plan.use_cache)
    with _state_lock:
        if key not in _models:
            model = get_model(plan.model_id, plan.params) if plan.model_id else None  # none for predictions
            controller = get_model(plan.controller_id, plan.params) if plan.controller_id else None
            _models[key] = (model, controller, ActionCache("verdicts") if plan.use_cache else None)
        return _models[key]
