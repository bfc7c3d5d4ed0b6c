"""Admitting the mutation candidates of one library release in one pass.

Every candidate of a release shares its lock, its environment and its fix side (the released tree), so the
batch resolves the lock once, installs the released tree into an overlay once, and runs the release's suite
K times once (cached by everything that decides those runs). Each mutant then costs its own K base runs,
and a mutant that cannot be admitted stops after its first run: a suite that still passes (``nothing_flips``),
that breaks more than ``max_targets`` tests (``too_many_targets``), that cannot be collected or that runs past
the time limit is dropped with that reason. Further runs could only make tests flaky, never add a target.

The certificate of an admitted mutant is exactly what :func:`bench.gate.certify.certify` computes — the same
K base runs followed by the same K fix runs — and it is cached under the admitted spec's key, so `bench
certify` of the pool runs nothing. A mutant's time limit is ``TIMEOUT_FACTOR`` × the release suite's slowest
run (at least ``TIMEOUT_FLOOR_SECONDS``): an endless loop costs seconds, not the gate's 15 minutes.

The batch resumes: a candidate already admitted or dropped is skipped, and the library's cap counts the
mutation tasks already in the pool. A release whose own suite cannot be locked, installed or collected stops
the batch with an :class:`EnvironmentBuildError` and no drop is recorded.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

from bench.errors import EnvironmentBuildError, SpecError
from bench.gate.admit import Admission, conclude, lock_candidate, sync_build
from bench.gate.budget import runs_of_side
from bench.gate.certify import (GATE_LIMITS, GATE_VERSION, Certificate, certificate_from_runs, failure_summary,
                                lock_path, summarise, summary_from_dict, summary_to_dict)
from bench.gate.giveaway_refusal import refuse_giveaways
from bench.gate.sets import RunSummary, decide, derive_sets
from bench.sandbox.cleanup import remove_tree
from bench.spec.load import discover, load_all, spec_from_document
from bench.spec.model import TaskSpec
from bench.store.canonical import sha256_bytes

TIMEOUT_FACTOR = 5.0
TIMEOUT_FLOOR_SECONDS = 10.0
DEFAULT_CAP = 30  # mutation tasks per library release
YIELD_CLASSES = {  # drop reason → the yield table's column
    "admitted": "good", "too_many_targets": "broad", "nothing_flips": "undetected",
    "collection_failed_at_base": "import", "timeout": "timeout", "giveaway": "giveaway",
}
YIELD_COLUMNS = ("good", "broad", "undetected", "import", "timeout", "giveaway", "other")


def yield_class(reason: str) -> str:
    """The yield column of an admission's reason; duplicates of admitted mutants and environment drops are
    "other" (a duplicate's ``duplicate_of:<id>`` names the task it repeats)."""
    return YIELD_CLASSES.get(reason.split(":")[0], "other")


@dataclass(frozen=True)
class BatchOutcome:
    admissions: tuple[Admission, ...]
    skipped: int  # candidates already admitted or dropped earlier
    release_seconds: float  # the slowest release-suite run (the time limit derives from it)
    seconds: float

    def yield_counts(self) -> Counter:
        return Counter(yield_class(a.reason) for a in self.admissions)


def admit_mutations(candidates: Sequence[dict], root: Path, *, k: int = 3, sandbox_name: str = "bwrap",
                    max_targets: int | None = 20, cap: int | None = DEFAULT_CAP, relock: bool = False,
                    on_result: Callable[[Admission, float], None] | None = None) -> list[BatchOutcome]:
    """Admit mutation candidates, one batch per sdist, in the order given."""
    groups: dict[str, list[dict]] = {}
    for doc in candidates:
        groups.setdefault(doc["sdist"]["sha256"], []).append(doc)
    pool = list(load_all(discover(root)))
    outcomes = [_admit_release(docs, root, pool, k=k, sandbox_name=sandbox_name, max_targets=max_targets,
                               cap=cap, relock=relock, on_result=on_result) for docs in groups.values()]
    sync_build(root)
    return outcomes


def _already_decided(task_id: str, root: Path, pool: Iterable[TaskSpec]) -> bool:
    """Admitted, dropped, or retired (a task taken out of the pool is not admitted again)."""
    return (root / "tasks" / "_dropped" / f"{task_id}.json").exists() or any(s.task_id == task_id for s in pool) \
        or any((root / "tasks" / "_retired").glob(f"*/{task_id}.json"))


def _admit_release(docs, root, pool, *, k, sandbox_name, max_targets, cap, relock, on_result) -> BatchOutcome:
    started = time.monotonic()
    todo, skipped, refused = pending(docs, root, pool)
    report_refused(refused, on_result)
    if not todo or capped(pool, todo[0][1], cap):
        return BatchOutcome(refused, skipped, 0.0, time.monotonic() - started)  # nothing to run: no release built
    release = _open_release(todo[0][1], root, k=k, sandbox_name=sandbox_name, relock=relock)
    with release:
        admissions = judge_in_order(todo, lambda index, spec: release.certify_mutant(spec, max_targets=max_targets),
                                    root, pool, k=k, sandbox_name=sandbox_name, max_targets=max_targets, cap=cap,
                                    on_result=on_result)
    return BatchOutcome(refused + admissions, skipped, release.slowest_seconds, time.monotonic() - started)


def report_refused(refused: tuple[Admission, ...], on_result: Callable[[Admission, float], None] | None) -> None:
    """Candidates dropped as giveaways before any run are reported like every other drop."""
    for admission in refused if on_result is not None else ():
        on_result(admission, 0.0)


def pending(docs, root: Path, pool) -> tuple[list[tuple[dict, TaskSpec]], int, tuple[Admission, ...]]:
    """The candidates of a release not decided yet, as (document, spec); how many were; and the drops of those
    whose mutant gives itself away against its file, decided here before any run."""
    specs = [spec_from_document(doc, path=str(root / "tasks" / "_candidates" / f"{doc['task_id']}.json"))
             for doc in docs]
    todo = [(doc, spec) for doc, spec in zip(docs, specs) if not _already_decided(spec.task_id, root, pool)]
    decided = len(docs) - len(todo)
    kept, refused = refuse_giveaways(todo, root)
    return kept, decided, refused


def capped(pool, spec: TaskSpec, cap: int | None) -> bool:
    return cap is not None and _count_library(pool, spec.library) >= cap


def judge_in_order(todo, certify_one: Callable[[int, TaskSpec], Certificate], root: Path, pool, *, k: int,
                   sandbox_name: str, max_targets: int | None, cap: int | None,
                   on_result: Callable[[Admission, float], None] | None) -> tuple[Admission, ...]:
    """Certify and conclude each candidate in the order given until the library's cap is reached: the order
    decides which of two equal mutants is kept and where the cap falls, wherever the runs happen."""
    admissions = []
    for index, (doc, spec) in enumerate(todo):
        if capped(pool, spec, cap):
            break
        candidate_started = time.monotonic()
        cert = certify_one(index, spec)
        admission = conclude(doc, spec, cert, root, k=k, sandbox_name=sandbox_name, max_targets=max_targets,
                             others=pool, sync=False)
        admissions.append(admission)
        if on_result is not None:
            on_result(admission, time.monotonic() - candidate_started)
    return tuple(admissions)


def _open_release(first: TaskSpec, root: Path, *, k: int, sandbox_name: str, relock: bool) -> "_Release":
    """The release, locked and installed, with a suite that runs.

    A release that cannot be locked, installed or collected says nothing about its mutants: the batch stops
    with the reason and records no drop, so it can be run again once the environment is fixed; a lock this
    call resolved is removed with it (no task of the pool holds that release yet). The lock is
    first resolved from the index as it is now; when the suite cannot run with that (tools released later,
    such as a pytest without a hook an old conftest implements), it is resolved once more as the index stood
    when the release was uploaded, as a PR task's lock is resolved as of its merge.
    """
    locked_before = lock_path(first, root).exists()
    try:
        return _locked_release(first, root, k=k, sandbox_name=sandbox_name, relock=relock)
    except EnvironmentBuildError:
        if not locked_before:  # resolved for this run alone: left behind, it would be taken for a task's lock
            lock_path(first, root).unlink(missing_ok=True)
        raise


def _locked_release(first: TaskSpec, root: Path, *, k: int, sandbox_name: str, relock: bool) -> "_Release":
    from bench.environment.lock import normalise_cutoff
    from bench.source.sdist import release_upload_time

    if relock or not lock_path(first, root).exists():
        try:
            lock_candidate(first, root, sandbox_name=sandbox_name, mirror=None)
        except EnvironmentBuildError:
            pass  # the lock as of the upload time is tried below
    try:
        return _usable_release(first, root, k=k, sandbox_name=sandbox_name)
    except EnvironmentBuildError as latest:
        uploaded = release_upload_time(first.sdist)
        locked = lock_path(first, root).read_text(encoding="utf-8") if lock_path(first, root).exists() else ""
        if not uploaded or f"before {normalise_cutoff(uploaded)}" in locked:
            raise
        lock_candidate(first, root, sandbox_name=sandbox_name, mirror=None, cutoff=uploaded)
        try:
            return _usable_release(first, root, k=k, sandbox_name=sandbox_name)
        except EnvironmentBuildError as then:
            raise EnvironmentBuildError(f"{then} (with the index of today: {latest})") from then


def _usable_release(first: TaskSpec, root: Path, *, k: int, sandbox_name: str) -> "_Release":
    if not lock_path(first, root).exists():
        raise EnvironmentBuildError(f"{first.sdist.filename}: no lock could be resolved")
    release = _Release.open(first, root, k=k, sandbox_name=sandbox_name)
    broken = [run for run in release.fix_runs if _unusable(run)]
    if broken:
        detail = ", ".join(sorted(set(broken[0].collection_errors))[:3]) or f"exit code {broken[0].exit_code}"
        detail += f": {failure_summary(release.last_log_tail)}" if release.last_log_tail else ""
        release.close()
        raise EnvironmentBuildError(f"{first.sdist.filename}: the release's own suite does not run in its "
                                    f"environment ({detail}); no mutant of it can be certified")
    return release


def _unusable(run: RunSummary) -> bool:
    """A release run that cannot judge mutants: no report, a collection error, a timeout, or no test passing
    (a suite that stops at its first module, say, looks collected but tests nothing)."""
    passing = sum(outcome == "passed" for _, outcome in run.results)
    return not run.had_report or bool(run.collection_errors) or run.timed_out or passing == 0


def _count_library(pool: Iterable[TaskSpec], library: str) -> int:
    from bench.gate.admit import group_of

    group = f"mutation-{library}"  # where admitted mutation tasks of the library are kept
    return sum(1 for spec in pool if group_of(spec) == group)


class _Release:
    """The released tree installed once, its K suite runs, and a scratch folder for the mutants' runs."""

    def __init__(self, spec, root, k, sandbox_name, scratch, environment, image, image_root, run_env) -> None:
        from bench.sandbox.registry import get_sandbox

        self.root, self.k, self.sandbox_name, self.scratch = root, k, sandbox_name, scratch
        self.environment, self.image, self.image_root, self.run_env = environment, image, image_root, run_env
        self.test_files = spec.test_files  # every candidate of a release runs the release's whole suite
        self.lock_bytes = lock_path(spec, root).read_bytes()
        self.sandbox = get_sandbox(sandbox_name)
        self.fix_runs: tuple[RunSummary, ...] = ()
        self.slowest_seconds = 0.0
        self.limits = GATE_LIMITS
        self.last_log_tail = ""  # pytest's last lines of the latest run, to explain a release that cannot run

    @classmethod
    def open(cls, spec: TaskSpec, root: Path, *, k: int, sandbox_name: str) -> "_Release":
        from bench.environment.image import ensure_image, unpack_image
        from bench.environment.venv import ensure_venv, prepare_workspace_env
        from bench.source.workspace import prepare

        image = ensure_image(spec.image, root=root)
        image_root = unpack_image(image)
        environment = ensure_venv(lock_path(spec, root), image, sandbox_name)
        scratch = Path(tempfile.mkdtemp(prefix="bench-mutants-"))
        try:
            workspace = prepare(spec, "fix", scratch / "release")
            run_env = prepare_workspace_env(workspace.path, environment, overlay_dir=scratch / "overlay")
            release = cls(spec, root, k, sandbox_name, scratch, environment, image, image_root, run_env)
            release.fix_runs, release.slowest_seconds = release._release_runs(spec, workspace.path)
        except BaseException:
            remove_tree(scratch)
            raise
        wall = max(TIMEOUT_FACTOR * release.slowest_seconds, TIMEOUT_FLOOR_SECONDS)
        release.limits = replace(GATE_LIMITS, wall_seconds=wall)
        return release

    def __enter__(self) -> "_Release":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        remove_tree(self.scratch)

    def _release_runs(self, spec: TaskSpec, tree: Path) -> tuple[tuple[RunSummary, ...], float]:
        """The K fix-side runs, shared by every mutant of the release and cached across batches."""
        from bench import __version__
        from bench.store.action_cache import ActionCache

        cache = ActionCache("release-runs")
        key = cache.key({
            "sdist_sha256": spec.sdist.sha256, "lock_sha256": sha256_bytes(self.lock_bytes),
            "image_digest": self.image.digest, "test_files": list(self.test_files), "k": self.k,
            "sandbox": self.sandbox_name, "gate_version": GATE_VERSION, "harness_version": __version__,
        })
        if (hit := cache.get(key)) is not None:
            stored = json.loads(hit)
            return tuple(summary_from_dict(run) for run in stored["runs"]), stored["slowest_seconds"]
        slowest = 0.0

        def run_one(index: int, limits) -> tuple[RunSummary, float]:
            nonlocal slowest
            run, seconds = self._run(tree, "fix", index, limits)
            slowest = max(slowest, seconds)
            return run, seconds

        runs = runs_of_side(run_one, k=self.k, limits=GATE_LIMITS)  # a release suite that hangs: one run
        if not any(_unusable(run) for run in runs):  # a broken release is run again, to show why it breaks
            cache.put(key, json.dumps({"runs": [summary_to_dict(r) for r in runs], "slowest_seconds": slowest},
                                      sort_keys=True).encode())
        return tuple(runs), slowest

    def _run(self, tree: Path, side: str, index: int, limits) -> tuple[RunSummary, float]:
        from bench.verdict.run_tests import RunEnvironment, run_tests

        run_dir = self.scratch / f"run-{side}-{index}"
        remove_tree(run_dir)
        shutil.copytree(tree, run_dir, symlinks=True)
        started = time.monotonic()
        try:
            where = RunEnvironment(self.sandbox, self.image_root, self.image.digest, self.run_env.python,
                                   tuple(self.run_env.env), tuple(self.run_env.mounts))
            run = run_tests(where, workdir=run_dir, test_files=self.test_files, limits=limits)
        finally:
            remove_tree(run_dir)
        self.last_log_tail = run.log_tail
        return summarise(side, index, run), time.monotonic() - started

    def certify_mutant(self, spec: TaskSpec, *, max_targets: int | None) -> Certificate:
        """The mutant's certificate; a mutant that cannot be admitted stops after its first run."""
        from bench.source.workspace import prepare

        if tuple(spec.test_files) != tuple(self.test_files):
            raise SpecError(f"{spec.task_id}: test_files differ from its release's other candidates",
                            kind="bad_value")
        workspace = prepare(spec, "base", self.scratch / "mutant")
        base_runs = base_runs_until_decided(lambda index: self._run(workspace.path, "base", index, self.limits)[0],
                                            self.fix_runs, k=self.k, max_targets=max_targets)
        return certificate_from_runs(spec, (*base_runs, *self.fix_runs), k=self.k, image=self.image,
                                     lock_bytes=self.lock_bytes, environment=self.environment,
                                     max_targets=max_targets)


def base_runs_until_decided(run_base: Callable[[int], RunSummary], fix_runs: Sequence[RunSummary], *, k: int,
                            max_targets: int | None) -> list[RunSummary]:
    """Up to K base runs, stopping at the first after which the gate already drops the mutant."""
    base_runs: list[RunSummary] = []
    for index in range(k):
        base_runs.append(run_base(index))
        runs = (*base_runs, *fix_runs)
        if not decide(runs, derive_sets(runs), max_targets=max_targets).admitted:
            break
    return base_runs
