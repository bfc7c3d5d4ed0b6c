"""Certifying one task in its pinned environment: K runs at base (fix's tests overlaid), K with the fix.

The result is a :class:`Certificate`. Its JSON holds no durations, host names or paths, so two clean runs on
the same image and lock give byte-identical files; timings are returned beside it, unhashed. Certificates
are cached by the hash of everything that decides them (:func:`certificate_key`): with nothing changed a
second `bench certify` runs no test.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from bench import __version__, profile
from bench.gate.budget import GATE_BUDGET, ends_the_gate, runs_of_side
from bench.gate.phase_clock import add as add_phase, phase
from bench.gate.sets import Decision, GateSets, RunSummary, decide, derive_sets
from bench.sandbox.cleanup import remove_tree, scratch_dir
from bench.sandbox.protocol import Limits
from bench.spec.load import spec_sha256
from bench.spec.model import TaskSpec
from bench.store.canonical import canonical_json, sha256_bytes

GATE_VERSION = "gate-v1"
CERTIFICATE_VERSION = 1
# wall_seconds is the budget's cap: each run's own limit derives from the side's earlier runs (gate.budget).
GATE_LIMITS = Limits(wall_seconds=GATE_BUDGET.cap_seconds, memory_bytes=4 << 30, pids=1024, cpus=1.0,
                     output_bytes=2 << 20)


@dataclass(frozen=True)
class Certificate:
    task_id: str
    spec_sha256: str
    k: int
    image: str
    image_digest: str
    lock_sha256: str
    env_key: str
    environment: dict  # the environment manifest (interpreter, distributions, versions)
    harness_version: str
    gate_version: str
    runs: tuple[RunSummary, ...]
    sets: GateSets
    decision: Decision
    certificate_version: int = CERTIFICATE_VERSION

    def to_json(self) -> bytes:
        data = asdict(self)
        data["runs"] = [summary_to_dict(run) for run in self.runs]
        return canonical_json(data) + b"\n"

    @property
    def sha256(self) -> str:
        return sha256_bytes(self.to_json())

    @property
    def admitted(self) -> bool:
        return self.decision.admitted


@dataclass(frozen=True)
class CertifyOutcome:
    certificate: Certificate
    cached: bool
    seconds: dict  # phase → wall seconds; never hashed


# pip's closing banner after a failed build says only "see above": the cause is the lines before it.
_PIP_BANNER = ("×", "╰─>", "│", "note:", "hint:", "[end of output]", "error: subprocess-exited-with-error",
               "error: metadata-generation-failed")


def failure_summary(text: str, limit: int = 600) -> str:
    """An error's first line and its last lines (where pip and pytest put the cause), within ``limit``."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    lines = lines[:1] + [line for line in lines[1:] if not line.startswith(_PIP_BANNER)]
    if len(lines) <= 1:
        return (lines[0] if lines else "")[:limit]
    tail = " | ".join(lines[-4:] if len(lines) > 4 else lines[1:])
    return f"{lines[0]} … {tail}"[-limit:] if len(lines[0]) < limit else lines[0][:limit]


def certificate_file(root: Path, task_id: str) -> Path:
    """Where a task's certificate is committed: gzip of the canonical JSON (each holds every test's outcome in
    every run, a few hundred kilobytes for a large suite; compressed, a few dozen)."""
    return root / "results" / "certificates" / f"{task_id}.json.gz"


def write_certificate(path: Path, data: bytes) -> Path:
    """Write certificate JSON to ``path``, gzipped (deterministically: no name, no time) when it ends in .gz; a
    file already holding it is left untouched, so a certificate whose content did not change does not show as
    changed after ``./pants certify`` or ``bench certify`` (:mod:`bench.store.gzipped`)."""
    from bench.store import gzipped

    return gzipped.write(path, data)


def read_certificate(path: Path) -> bytes:
    """The canonical JSON of a certificate file written by :func:`write_certificate`."""
    from bench.store import gzipped

    return gzipped.read(path)


def lock_path(spec: TaskSpec, root: Path) -> Path:
    return root / spec.lockfile


def certificate_key(spec: TaskSpec, root: Path, *, k: int, sandbox_name: str) -> dict:
    """Everything that decides a certificate. The harness commit is deliberately absent: only the gate's
    semantics (GATE_VERSION, harness version) matter, so unrelated commits do not invalidate the pool."""
    from bench.environment.image import image_folder, read_pin

    digest, _ = read_pin(image_folder(spec.image, root))
    return {
        "spec_sha256": spec_sha256(spec),
        "task_files_sha256": task_files_digest(spec, root),
        "lock_sha256": sha256_bytes(lock_path(spec, root).read_bytes()),
        "image": spec.image,
        "image_digest": digest or "",
        "k": k,
        "sandbox": sandbox_name,
        "gate_version": GATE_VERSION,
        "harness_version": __version__,
    }


def task_files_digest(spec: TaskSpec, root: Path) -> str:
    """A task whose code is kept in this repository (a synthetic task's folder) has it as an input of the
    certificate too; "" for a task with none."""
    from bench.source.workspace import tree_digest
    from bench.spec.kind_registry import get_kind

    inputs = get_kind(spec.kind).repo_inputs(spec)
    if not inputs:
        return ""
    if len(inputs) == 1:
        return tree_digest(root / inputs[0])
    from bench.store.canonical import sha256_of

    return sha256_of([[folder, tree_digest(root / folder)] for folder in inputs])


@profile.timed("certify")
def certify(spec: TaskSpec, root: Path, *, k: int = 3, sandbox_name: str = "bwrap", mirror: Path | None = None,
            use_cache: bool = True, max_targets: int | None = None, committed: bool = False) -> CertifyOutcome:
    """The task's certificate. With ``committed``, the one committed with the task when it was made from exactly
    these inputs (:mod:`bench.gate.committed_certificate`): it is the reference, ahead of one this machine made
    and cached. Else from the action cache, else certified here."""
    from bench.store.action_cache import ActionCache

    if use_cache and committed:
        from bench.gate.committed_certificate import committed_certificate

        if stored := committed_certificate(spec, root, k=k, sandbox_name=sandbox_name):
            return CertifyOutcome(stored, True, {})
    cache = ActionCache("certificates")
    key = cache.key(certificate_key(spec, root, k=k, sandbox_name=sandbox_name))
    if use_cache and (hit := cache.get(key)) is not None:
        return CertifyOutcome(certificate_from_json(hit), True, {})
    certificate, seconds = _certify_uncached(spec, root, k=k, sandbox_name=sandbox_name, mirror=mirror,
                                             max_targets=max_targets)
    cache.put(key, certificate.to_json())
    return CertifyOutcome(certificate, False, seconds)


def _certify_uncached(spec, root, *, k, sandbox_name, mirror, max_targets):
    from bench.environment.image import ensure_image, unpack_image
    from bench.environment.venv import ensure_venv
    from bench.errors import EnvironmentBuildError
    from bench.sandbox.registry import get_sandbox

    seconds: dict[str, float] = {}
    started = time.monotonic()
    with phase("image"):
        image = ensure_image(spec.image, root=root)
        image_root = unpack_image(image)
    lock_bytes = lock_path(spec, root).read_bytes()
    try:
        with phase("environment"):
            environment = ensure_venv(lock_path(spec, root), image, sandbox_name)
    except EnvironmentBuildError as exc:
        return _dropped(spec, k, image, lock_bytes, f"install_failed: {failure_summary(str(exc))}"), seconds
    seconds["environment"] = time.monotonic() - started
    sandbox = get_sandbox(sandbox_name)
    with scratch_dir(prefix="bench-certify-") as scratch:
        prepared = _prepare_sides(spec, scratch, environment, mirror)
        try:
            runs = _run_sides(spec, scratch, k, prepared, sandbox, image, image_root, seconds)
        except EnvironmentBuildError as exc:
            return _dropped(spec, k, image, lock_bytes, f"install_failed: {failure_summary(str(exc))}",
                            environment), seconds
    certificate = certificate_from_runs(spec, runs, k=k, image=image, lock_bytes=lock_bytes,
                                        environment=environment, max_targets=max_targets)
    return certificate, seconds


def certificate_from_runs(spec: TaskSpec, runs, *, k: int, image, lock_bytes: bytes, environment,
                          max_targets: int | None) -> Certificate:
    """The certificate K base runs and K fix runs give (a committed spec must still certify the targets it
    names). The one place a certificate is assembled from runs, so every path to it gives the same bytes."""
    runs = tuple(runs)
    sets = derive_sets(runs)
    decision = decide(runs, sets, claimed_fail_to_pass=spec.fail_to_pass, max_targets=max_targets)
    return Certificate(
        task_id=spec.task_id, spec_sha256=spec_sha256(spec), k=k, image=spec.image, image_digest=image.digest,
        lock_sha256=sha256_bytes(lock_bytes), env_key=environment.env_key,
        environment=_manifest_for_certificate(environment), harness_version=__version__,
        gate_version=GATE_VERSION, runs=runs, sets=sets, decision=decision,
    )


def _prepare_sides(spec, scratch, environment, mirror) -> dict:
    """Both sides' workspaces (the tree exported, the repository installed into its overlay), the fix side's
    export begun once the base side's is done (by then the source is fetched and cached, so the two never
    fetch it at once) and the rest side by side: most of it is waiting on a sandboxed install."""
    import contextvars
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from bench.environment.venv import prepare_workspace_env
    from bench.source.workspace import prepare

    exported, base_failed = threading.Event(), threading.Event()

    def one(side: str):
        if side == "fix":
            exported.wait()
            if base_failed.is_set():
                return None  # never used: the base side's failure ends certification at its turn
        try:
            workspace = prepare(spec, side, scratch / side / "repo", mirror=mirror)
        except BaseException:
            if side == "base":
                base_failed.set()
            raise
        finally:
            exported.set()
        return workspace, prepare_workspace_env(workspace.path, environment, overlay_dir=scratch / side / "overlay")

    with phase("workspace"), ThreadPoolExecutor(max_workers=2, thread_name_prefix="certify-side") as pool:
        # Each thread runs in a copy of this context: the profile's current phase goes with it.
        futures = {side: pool.submit(contextvars.copy_context().run, one, side) for side in ("base", "fix")}
        done = {side: future.exception() for side, future in futures.items()}  # waits for both
    # A side's failure is raised when that side's turn comes, as if it had been prepared then: the fix side's
    # never surfaces when the base side already ended the gate.
    return {side: done[side] or futures[side].result() for side in futures}


class _Stopped(Exception):
    """The base side ended the gate: the fix side's remaining runs are not made."""


def _run_sides(spec, scratch, k, prepared, sandbox, image, image_root, seconds: dict) -> list[RunSummary]:
    """The base side's K runs and, beside them, the fix side's: the decision is the one of running the sides in
    turn. The base side decides first; when it ends the gate (see bench.gate.budget) the fix side stops after
    its current run and everything it did is left out, its failure included, as if it had never started."""
    import contextvars
    import threading
    from concurrent.futures import ThreadPoolExecutor

    stop = threading.Event()

    def side_runs(side: str) -> list[RunSummary]:
        started = time.monotonic()
        try:
            return _run_side(spec, side, scratch, k, prepared[side], sandbox, image, image_root,
                             stop if side == "fix" else None)
        finally:
            seconds[side] = time.monotonic() - started

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="certify-runs") as pool:
        futures = {side: pool.submit(contextvars.copy_context().run, side_runs, side) for side in ("base", "fix")}
        try:
            base = futures["base"].result()
        except BaseException:
            stop.set()
            raise
        if any(ends_the_gate(run) for run in base):
            stop.set()
            return base
        return base + futures["fix"].result()


def _run_side(spec, side, scratch, k, prepared, sandbox, image, image_root, stop=None) -> list[RunSummary]:
    from bench.verdict.run_tests import RunEnvironment, run_tests

    if (stop is not None and stop.is_set()) or prepared is None:  # None: never prepared, as the base side failed
        raise _Stopped(side)
    if isinstance(prepared, BaseException):
        raise prepared
    workspace, run_env = prepared
    where = RunEnvironment(sandbox, image_root, image.digest, run_env.python, tuple(run_env.env),
                           tuple(run_env.mounts))

    def run_one(index: int, limits) -> tuple[RunSummary, float]:
        if stop is not None and stop.is_set():
            raise _Stopped(side)
        run_dir = scratch / side / f"run{index}"
        shutil.copytree(workspace.path, run_dir, symlinks=True)
        try:
            run = run_tests(where, workdir=run_dir, test_files=spec.test_files, limits=limits)
        finally:
            remove_tree(run_dir)
        add_phase("tests", run.wall_seconds)
        return summarise(side, index, run), run.wall_seconds

    return runs_of_side(run_one, k=k, limits=GATE_LIMITS)


def summarise(side: str, index: int, run) -> RunSummary:
    report = run.report
    results = tuple((o.test_id, o.outcome) for o in report.outcomes) if report else ()
    collection = tuple(o.test_id for o in report.collection_errors) if report else ()
    return RunSummary(side, index, run.exit_code, run.timed_out, results, collection, report is not None,
                      oom_killed=run.oom_killed)


def _manifest_for_certificate(environment) -> dict:
    manifest = environment.manifest.to_dict()
    manifest.pop("harness_commit", None)  # recorded with timings, not in the hashed certificate
    return manifest


def _dropped(spec, k, image, lock_bytes, reason, environment=None) -> Certificate:
    return Certificate(
        task_id=spec.task_id, spec_sha256=spec_sha256(spec), k=k, image=spec.image, image_digest=image.digest,
        lock_sha256=sha256_bytes(lock_bytes), env_key=environment.env_key if environment else "",
        environment=_manifest_for_certificate(environment) if environment else {},
        harness_version=__version__, gate_version=GATE_VERSION, runs=(),
        sets=GateSets((), (), (), (), ()), decision=Decision(False, reason),
    )


def certificate_from_json(data: bytes) -> Certificate:
    import json

    raw = json.loads(data)
    runs = tuple(summary_from_dict(r) for r in raw["runs"])
    sets = GateSets(**{name: tuple(values) for name, values in raw["sets"].items()})
    return Certificate(
        task_id=raw["task_id"], spec_sha256=raw["spec_sha256"], k=raw["k"], image=raw["image"],
        image_digest=raw["image_digest"], lock_sha256=raw["lock_sha256"], env_key=raw["env_key"],
        environment=raw["environment"], harness_version=raw["harness_version"],
        gate_version=raw["gate_version"], runs=runs, sets=sets, decision=Decision(**raw["decision"]),
        certificate_version=raw["certificate_version"],
    )


def summary_to_dict(run: RunSummary) -> dict:
    """A run as certificates (and the release-runs cache) hold it: ``oom_killed`` only when true, so files
    written before the field existed keep their bytes."""
    data = asdict(run)
    if not data["oom_killed"]:
        del data["oom_killed"]
    return data


def summary_from_dict(raw: dict) -> RunSummary:
    return RunSummary(raw["side"], raw["index"], raw["exit_code"], raw["timed_out"],
                      tuple(tuple(x) for x in raw["results"]), tuple(raw["collection_errors"]), raw["had_report"],
                      oom_killed=raw.get("oom_killed", False))
