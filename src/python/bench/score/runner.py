"""Running many units (task × condition × sample) in parallel, resumably, into one results folder.

``<out>/records.jsonl`` is the crash-safe append log (completion order); ``<out>/results.jsonl`` is written at
the end, sorted by unit, in canonical form, so two runs of a deterministic model give byte-identical files.
Durations go to ``<out>/timings.jsonl``, never into a record. A run resumes by skipping units already recorded
(infrastructure errors are retried only with ``retry_errors``). ``<out>/summary.json``
(``bench.report.run_summary``) is written when the run ends, and also when it is interrupted (Ctrl-C, SIGTERM),
for the units finished so far.
"""

from __future__ import annotations

import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench import profile
from bench.attempt import DEFAULT_EDIT_FORMAT
from bench.attempt.context import ContextSettings
from bench.errors import BenchError
from bench.loop.records import UnitRecord
from bench.model.protocol import ModelParams
from bench.score.units import Unit, failed_record, record_key, unit_record
from bench.store.canonical import canonical_json, sha256_of
from bench.store.records import RecordWriter, read_records


@dataclass(frozen=True)
class RunPlan:
    model_id: str
    specs: tuple
    out_dir: Path
    root: Path
    params: ModelParams = field(default_factory=ModelParams)
    samples: int = 1
    turns: int = 0  # 0: single attempts; K ≥ 1: repair loops of K turns
    conditions: tuple[str, ...] = ("full",)
    resample: bool = False  # best-of-K independent draws beside each loop
    workers: int = 2
    sandbox_name: str = "bwrap"
    mirror: Path | None = None
    controller_id: str | None = None
    controller_stateful: bool = False
    use_cache: bool = True
    retry_errors: bool = False
    cluster: str | None = None  # a scheduler address (bench.score.executor); None: threads in this process
    # The commit records name when the run is not made inside its checkout (`./pants score` merges in a
    # sandbox); None: ``git rev-parse HEAD`` of ``root``.
    commit: str | None = None
    edit_format: str = DEFAULT_EDIT_FORMAT  # how models are asked to answer (bench.attempt.formats)
    context: ContextSettings = field(default_factory=ContextSettings)  # what code prompts show, in what budget
    selection: str | None = None  # the task selector the specs were chosen by (None: the whole pool, or given)
    feed_divergences: bool = False  # loops feed a resolved turn's divergence back and go on (LoopConfig)


@dataclass(frozen=True)
class RunResult:
    results_path: Path
    records: tuple[dict, ...]  # as results.jsonl holds them (bench.loop.records.UnitRecord.to_json)
    ran: int
    skipped: int
    execution: object = None  # bench.score.executor.ExecutionStats
    selection: dict | None = None  # what summary.json says was selected: the selector and the tasks planned


def plan_units(plan: RunPlan) -> list[Unit]:
    units = []
    for spec in plan.specs:
        for sample in range(plan.samples):
            if plan.turns == 0:
                units.append(Unit(spec, plan.model_id, "attempt", "single", sample))
                continue
            units.extend(Unit(spec, plan.model_id, "loop", c, sample) for c in plan.conditions)
            if plan.resample:
                units.append(Unit(spec, plan.model_id, "resample", "resample", sample))
    return units


def benchmark_identity(root: Path, specs, commit: str | None = None) -> dict:
    if commit is None:
        found = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True)
        commit = found.stdout.strip() if found.returncode == 0 else ""
    return {
        "benchmark_commit": commit,
        "pool_sha256": sha256_of(sorted(s.task_id for s in specs)),
    }


def run(plan: RunPlan, *, on_done=None, executor=None, units=None, rerun=frozenset(), on_start=None) -> RunResult:
    """Run the plan's units (or ``units``: predictions, whose settings are their own lines; the results then
    hold those units only) not recorded yet, or recorded but keyed in ``rerun``, on ``executor`` (default: from
    ``plan.cluster``, else local threads); this process alone appends records, whichever executor ran them.
    ``on_start(resumed)`` is told how many of the units are recorded already (a progress bar starts there)."""
    plan.out_dir.mkdir(parents=True, exist_ok=True)
    with _writer_lock(plan.out_dir):
        return _run(plan, on_done, executor, units, frozenset(rerun), on_start)


def _writer_lock(out_dir: Path):
    """One run writes a results folder at a time: a second one on the same folder is refused, not interleaved
    (it would resume the same units and clean up what the first one writes). The lock lives in the cache, so
    a results folder holds nothing but results."""
    import hashlib

    from bench.store.locks import file_lock
    from bench.variables import cache_dir

    key = hashlib.sha256(str(out_dir.resolve()).encode()).hexdigest()[:24]
    return file_lock(cache_dir() / "locks" / f"run-{key}.lock", wait=False,
                     held_message=f"another bench score is writing to {out_dir}: wait for it, or use another --out")


def _run(plan: RunPlan, on_done, executor, units, rerun: frozenset, on_start) -> RunResult:
    import uuid
    from dataclasses import replace

    from bench.score.executor import Job, get_executor

    started = time.monotonic()
    log_path = plan.out_dir / "records.jsonl"
    if units is None:
        write_settings(plan, resuming=log_path.exists())
    done = {record_key(r) for r in read_records(log_path)
            if plan.retry_errors is False or r.get("outcome") != "infrastructure_error"} - rerun
    given = None if units is None else {u.key for u in units}
    planned = plan_units(plan) if units is None else list(units)
    chosen = {"selector": plan.selection, "tasks": len({unit.spec.task_id for unit in planned})}  # summary.json
    units = [u for u in planned if u.key not in done]
    if on_start is not None:
        on_start(len(planned) - len(units))
    executor = executor or get_executor(plan.cluster, workers=plan.workers)
    job = Job(replace(plan, specs=()), benchmark_identity(plan.root, plan.specs, plan.commit), uuid.uuid4().hex)
    store = plan.out_dir / "store"
    delivered: list = []  # the units recorded by this run so far
    with RecordWriter(log_path) as writer, RecordWriter(plan.out_dir / "timings.jsonl") as timings:
        def deliver(finished) -> None:
            _keep_store_files(store, finished.store_files)
            if finished.detail is not None:
                write_detail(plan.out_dir, finished.unit, finished.detail)
            writer.append(finished.record.to_json())
            delivered.append(finished.unit.key)
            timings.append(finished.timing)
            if on_done is not None:
                on_done(finished.record)

        try:
            stats = executor.run(job, units, deliver)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM (bench.cli.signals): the finished units' summary, then stop
            _write_summary(plan.out_dir, _recorded(log_path, given), chosen, ran=len(delivered),
                           resumed=len(planned) - len(units), started=started, interrupted=True)
            raise
    records = _recorded(log_path, given)
    results = plan.out_dir / "results.jsonl"
    from bench.store.action_cache import write_atomic

    write_atomic(results, b"".join(canonical_json(r) + b"\n" for r in records))
    skipped = len(planned) - len(units)
    _write_summary(plan.out_dir, records, chosen, ran=len(units), resumed=skipped, started=started)
    return RunResult(results, records, len(units), skipped, stats, selection=chosen)


def _recorded(log_path: Path, given: set | None) -> tuple[dict, ...]:
    """The latest record of each unit in the log (of the ``given`` units only, when given), sorted by unit."""
    latest = _latest(read_records(log_path))
    return tuple(sorted((r for key, r in latest.items() if given is None or key in given),
                        key=lambda r: _sort_key(record_key(r))))


def _write_summary(out_dir: Path, records, chosen: dict, *, ran: int, resumed: int, started: float,
                   interrupted: bool = False) -> None:
    """summary.json of the units recorded so far (the CLI rewrites it after a finished run); on an interrupt,
    never an error of its own in place of the interrupt."""
    from bench.report.run_summary import run_summary, write_summary

    summary = run_summary(records, ran=ran, resumed=resumed, wall_seconds=time.monotonic() - started,
                          selection=chosen, interrupted=interrupted)
    try:
        write_summary(out_dir, summary)
    except OSError:
        if not interrupted:
            raise


def open_context(job, pool, store_dir: Path) -> "_UnitContext":
    """The model, controller and verdict cache of a run, around ``pool`` (set later if None)."""
    from bench.model.registry import get_model
    from bench.store.action_cache import ActionCache

    plan = job.plan
    model = get_model(plan.model_id, plan.params) if plan.model_id else None  # none for predictions
    controller = get_model(plan.controller_id, plan.params) if plan.controller_id else None
    cache = ActionCache("verdicts") if plan.use_cache else None
    return _UnitContext(plan, model, controller, cache, pool, job.benchmark, store_dir)


def write_detail(out_dir: Path, unit: Unit, detail: dict) -> None:
    """``<out>/units/<task_id>/<model>.<condition>.<sample>.json``: each turn's diff and feedback, for `bench
    view`.
    Written before the record, so a recorded unit always has its detail; git ignores these files in committed
    results (a real-code task's diff quotes the library)."""
    from bench.store.atomic import write_atomic
    from bench.store.records import detail_path

    path = detail_path(out_dir, unit.spec.task_id, unit.model_id, unit.condition, unit.sample)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, canonical_json({"task_id": unit.spec.task_id, "model": unit.model_id,
                                       "condition": unit.condition, "sample": unit.sample, **detail}) + b"\n")


def _keep_store_files(store: Path, files) -> None:
    """Texts a remote unit kept by hash (``<sha[:2]>/<sha>``), written here as a local unit would have."""
    from bench.store.atomic import write_atomic

    for relative, data in files:
        path = store / relative
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, data)


def run_settings(plan: RunPlan) -> dict:
    """What decides the records of a run besides the tasks: recorded beside them in ``<out>/run.json``."""
    from dataclasses import asdict

    from bench.score.units import RUNNER_VERSION

    return {
        "model": plan.model_id, "params": asdict(plan.params), "samples": plan.samples, "turns": plan.turns,
        "conditions": list(plan.conditions), "resample": plan.resample, "sandbox": plan.sandbox_name,
        "controller": plan.controller_id, "controller_stateful": plan.controller_stateful,
        "runner_version": RUNNER_VERSION,
        # Only when it is not the default, so folders made before the option existed resume as they are.
        **({"edit_format": plan.edit_format} if plan.edit_format != DEFAULT_EDIT_FORMAT else {}),
        **({"context": plan.context.as_record()} if not plan.context.is_default else {}),
        **({"feed_divergences": True} if plan.feed_divergences else {}),
    }


def write_settings(plan: RunPlan, *, resuming: bool) -> None:
    """Write ``run.json``; a resumed run must use the settings its records were made with."""
    import json

    from bench.errors import UsageError
    from bench.store.atomic import write_atomic

    path = plan.out_dir / "run.json"
    settings = run_settings(plan)
    if resuming and path.is_file():
        earlier = json.loads(path.read_text(encoding="utf-8"))
        changed = sorted(key for key in set(earlier) | set(settings) if earlier.get(key) != settings.get(key))
        if changed:
            raise UsageError(f"{plan.out_dir} holds a run made with other settings ({', '.join(changed)} differ): "
                             "use the same settings, another --out, or --no-resume")
    write_atomic(path, json.dumps(settings, indent=2, sort_keys=True).encode() + b"\n")


def _latest(records: list[dict]) -> dict:
    latest: dict = {}
    for record in records:
        latest[record_key(record)] = record
    return latest


def _sort_key(key: tuple) -> tuple:
    return (key[0], key[1], key[2], int(key[3]))


class _UnitContext:
    """What every unit needs; `run_unit` turns any failure into a record instead of losing the unit."""

    def __init__(self, plan, model, controller, cache, pool, benchmark, store_dir) -> None:
        self.plan, self.model, self.controller, self.cache = plan, model, controller, cache
        self.pool, self.benchmark, self.store_dir = pool, benchmark, store_dir
        from bench.model.registry import declares_deterministic

        # Prompts and responses are kept by hash unless `bench verify` can recompute the record instead.
        self.text_store = None if declares_deterministic(plan.model_id) else store_dir
        self._lock = threading.Lock()

    @profile.timed("score")
    def run_unit(self, unit: Unit) -> tuple[UnitRecord, dict, dict | None]:
        """The unit's record, its timings and its detail for `bench view` (never part of the record)."""
        started = time.monotonic()
        detail = None
        store = self.text_store
        try:
            task = self.pool.get(unit.spec)
            fields, timing, detail = self._dispatch(unit, task, store)
            record = unit_record(unit, task.integrity, self.benchmark, fields)
        except BenchError as exc:
            record, timing, detail = failed_record(unit, self.benchmark, f"{type(exc).__name__}: {exc}"), {}, None
        timing = {"unit": list(unit.key), "wall_seconds": round(time.monotonic() - started, 3), **timing}
        return record, timing, detail

    def _dispatch(self, unit: Unit, task, store) -> tuple[dict, dict, dict]:
        from bench.score.repair_loop import LoopConfig, run_loop
        from bench.score.attempt import single_attempt
        from bench.score.resample import resample

        plan = self.plan
        if unit.patch is not None:
            from bench.score.prediction import score_patch

            return score_patch(task, unit.patch)
        if unit.kind == "attempt":
            return single_attempt(task, self.model, plan.params, sample=unit.sample, store_dir=store,
                                  cache=self.cache, edit_format=plan.edit_format, context=plan.context)
        if unit.kind == "resample":
            return resample(task, self.model, plan.params, budget=plan.turns, sample=unit.sample,
                            store_dir=store, cache=self.cache, edit_format=plan.edit_format, context=plan.context)
        config = LoopConfig(plan.turns, unit.condition, self.controller, plan.controller_stateful,
                            plan.edit_format, plan.context, plan.feed_divergences)
        return run_loop(task, self.model, plan.params, config, sample=unit.sample, store_dir=store,
                        cache=self.cache)
