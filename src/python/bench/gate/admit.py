"""Admission: validate a candidate, lock its environment, certify it, and only then add it to the pool.

Admitted: the spec (with the gate's fail_to_pass / pass_to_pass) goes to `tasks/<group>/<task_id>.json`, the
lock to `lockfiles/tasks/` (a synthetic task keeps the lock all synthetic tasks share:
:mod:`bench.gate.shared_lock`), the certificate to `results/certificates/<task_id>.json.gz`, and the folder's
BUILD file gains the task's target. Dropped: the candidate and the reason go to `tasks/_dropped/<task_id>.json`
and its own lock is removed (:mod:`bench.gate.drops`). A candidate whose fix or whose fail_to_pass set
equals an admitted task of the same repository is a duplicate and is dropped with a pointer to the kept one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from bench.errors import EnvironmentBuildError
from bench.gate.certify import Certificate, certify
from bench.gate.committed_certificate import commit_certificate
from bench.gate.drops import collection_errors_of, find_duplicate, forget_lock, lock_drop_reason, ran_of, \
    record_drop
from bench.gate.honest_fix import drop_reason, honest_fix_findings
from bench.gate.phase_clock import phase
from bench.spec.load import discover, load_all, spec_from_document
from bench.spec.model import TaskSpec
from bench.store.action_cache import write_atomic

MAX_TEST_ID_CHARS = 1000  # the task spec schema's maxLength for one test id
# Items pytest plugins add to check a file's text (formatting, lint, typing), not the code's behaviour:
# pytest-black, pytest-mypy, pytest-flake8, pytest-isort, pytest-ruff, pytest-pylint, pytest-pycodestyle,
# pytest-mccabe. A scored run rewrites the test files it runs (decoy targets, renamed classes), and such a check
# of the test file itself then fails whatever the candidate did (inflect's BLACK broke every honest fix).
FILE_CHECK_ITEMS = frozenset({"BLACK", "black", "mypy", "mypy-status", "FLAKE8", "flake-8::FLAKE8", "ISORT",
                              "isort", "RUFF", "ruff", "ruff::format", "PYLINT", "pylint", "PYCODESTYLE",
                              "pycodestyle", "MCCABE", "mccabe"})


def is_file_check(test_id: str) -> bool:
    """A plugin's check of the file's text (``tests/test_x.py::BLACK``), not a test of the code."""
    return test_id.partition("::")[2] in FILE_CHECK_ITEMS


@dataclass(frozen=True)
class Admission:
    task_id: str
    admitted: bool
    reason: str
    spec_path: Path | None
    certificate: Certificate | None


def spec_file_name(spec: TaskSpec) -> str:
    """The admitted spec's file name in its group's folder, as its kind names it."""
    from bench.spec.kind_registry import get_kind

    return get_kind(spec.kind).spec_file_name(spec)


def group_of(spec: TaskSpec) -> str:
    """The folder under ``tasks/`` the admitted spec goes to, as its kind names it."""
    from bench.spec.kind_registry import get_kind

    return get_kind(spec.kind).admission_group(spec)


def lock_candidate(spec: TaskSpec, root: Path, *, sandbox_name: str, mirror: Path | None,
                   cutoff: str | None = None, late: tuple[str, ...] = ()) -> Path:
    """Resolve the candidate's test dependencies at base inside the sandbox and write its lock (as of
    ``cutoff``, default the fix's merge time; none for a task without one)."""
    from bench.environment.image import ensure_image
    from bench.environment.lock import resolve_lock, write_lock
    from bench.sandbox.cleanup import scratch_dir
    from bench.source.workspace import prepare

    with phase("image"):  # built once, on first use
        image = ensure_image(spec.image, root=root)
    with phase("lock"), scratch_dir(prefix="bench-admit-") as scratch:  # the build backend ran in the sandbox
        workspace = prepare(spec, "base", scratch / "repo", mirror=mirror)
        result = resolve_lock(workspace.path, image=image, sandbox_name=sandbox_name,
                              cutoff=cutoff or spec.provenance.merged_at or None, late=late)
    return write_lock(_lock_name(spec), result.text, root=root)


def _lock_name(spec: TaskSpec) -> str:
    return Path(spec.lockfile).stem


def admit(candidate: dict, root: Path, *, k: int = 3, sandbox_name: str = "bwrap", mirror: Path | None = None,
          relock: bool = True, max_targets: int | None = None, relock_shared: bool = False) -> Admission:
    try:
        gated = gate_candidate(candidate, root, k=k, sandbox_name=sandbox_name, mirror=mirror, relock=relock,
                               max_targets=max_targets, relock_shared=relock_shared)
    except BaseException:  # stopped (SIGTERM, ^C) or failed before a decision: no lock of its own stays behind
        forget_lock(spec_from_document(candidate, path=str(root / "tasks" / "_candidates" / "x.json")), root)
        raise
    return finish(candidate, gated, root, k=k, sandbox_name=sandbox_name, max_targets=max_targets)


@dataclass(frozen=True)
class Gated:
    """What the gate made of a candidate before anything is added to the pool: its certificate, or why no
    lock could be made, and the lock's bytes (a worker of a cluster hands them to the client)."""

    spec: TaskSpec
    certificate: Certificate | None
    lock_failure: str  # "" when a lock was made and the candidate certified
    lock_bytes: bytes


def gate_candidate(candidate: dict, root: Path, *, k: int, sandbox_name: str, mirror: Path | None,
                   relock: bool, max_targets: int | None, relock_shared: bool = False) -> Gated:
    """Lock (unless kept) and certify a candidate, trying later releases when its environment fails.

    ``relock`` re-resolves a task's own lock; a synthetic task's lock is shared and is re-resolved only with
    ``relock_shared`` (else kept when it serves the task, and a UsageError when it does not)."""
    from bench.gate.shared_lock import ensure_shared_lock, shares_lock

    spec = spec_from_document(candidate, path=str(root / "tasks" / "_candidates" / f"{candidate['task_id']}.json"))
    shared = shares_lock(spec)
    if shared or relock or not (root / spec.lockfile).exists():
        try:
            if shared:
                ensure_shared_lock(spec, root, sandbox_name=sandbox_name, relock=relock_shared)
            else:
                lock_candidate(spec, root, sandbox_name=sandbox_name, mirror=mirror)
        except EnvironmentBuildError as error:  # unresolvable test dependencies: a drop like a failed install
            return Gated(spec, None, lock_drop_reason(str(error)), b"")
    outcome = certify(spec, root, k=k, sandbox_name=sandbox_name, mirror=mirror, max_targets=max_targets)
    attempts = later_attempts(environment_reason(outcome.certificate)) if relock and not shared else ()
    if attempts:
        outcome = _with_later_releases(spec, root, outcome, attempts, k=k, sandbox_name=sandbox_name,
                                       mirror=mirror, max_targets=max_targets)
    return Gated(spec, outcome.certificate, "", (root / spec.lockfile).read_bytes())


def finish(candidate: dict, gated: Gated, root: Path, *, k: int, sandbox_name: str,
           max_targets: int | None) -> Admission:
    """Record a gated candidate: a drop when no lock could be made, else admit or drop it (:func:`conclude`).
    A dropped candidate leaves no lock of its own behind."""
    if gated.certificate is None:
        record_drop(candidate, gated.lock_failure, root)
        admission = Admission(gated.spec.task_id, False, gated.lock_failure, None, None)
    else:
        admission = conclude(candidate, gated.spec, gated.certificate, root, k=k, sandbox_name=sandbox_name,
                             max_targets=max_targets)
    if not admission.admitted:
        forget_lock(gated.spec, root)
    return admission


def later_attempts(reason: str) -> tuple[tuple[str, ...], ...]:
    """The ``late`` sets to lock again with, in order, after a failure the task's own releases may cause: pytest
    and then everything as of the interpreter's release when the suite cannot be collected; the package whose
    sdist did not build, then everything, when the environment cannot be installed. Nothing otherwise."""
    from bench.environment.build_floor import EVERYTHING, RUNNER
    from bench.environment.sdist_build import unbuildable_project

    if reason == "collection_failed":
        return RUNNER, EVERYTHING
    project = unbuildable_project(reason) if reason.startswith("install_failed") else None
    return ((project,), EVERYTHING) if project else ()


def environment_reason(certificate: Certificate) -> str:
    """The decision's reason as the environment sees it: a base side whose runs left no report at all is the
    runner failing to start (pytest 5 on Python 3.13), not the tests, however the gate names the drop; the
    fix side is never run after it, so it reads as ``collection_failed``."""
    reason = certificate.decision.reason
    base = [run for run in certificate.runs if run.side == "base"]
    if reason == "collection_failed_at_base" and base and not any(run.had_report for run in base):
        return "collection_failed"
    return reason


def _environment_failure(certificate: Certificate) -> bool:
    reason = environment_reason(certificate)
    return reason == "collection_failed" or reason.startswith("install_failed")


def _with_later_releases(spec: TaskSpec, root: Path, first, attempts: tuple[tuple[str, ...], ...], *, k: int,
                         sandbox_name: str, mirror: Path | None, max_targets: int | None):
    """Certify again with each later lock in turn; the first whose environment installs and collects decides.
    The first lock and outcome stand when no later lock differs, can be made, or gets that far."""
    path = root / spec.lockfile
    before = path.read_bytes()
    tried = {before}
    for late in attempts:
        try:
            lock_candidate(spec, root, sandbox_name=sandbox_name, mirror=mirror, late=late)
        except EnvironmentBuildError:
            continue
        if path.read_bytes() in tried:
            continue
        tried.add(path.read_bytes())
        later = certify(spec, root, k=k, sandbox_name=sandbox_name, mirror=mirror, max_targets=max_targets)
        if not _environment_failure(later.certificate):
            return later
    write_atomic(path, before)  # the drop record goes with the task's own lock
    return first


def conclude(candidate: dict, spec: TaskSpec, cert: Certificate, root: Path, *, k: int, sandbox_name: str,
             max_targets: int | None, others: list[TaskSpec] | None = None, sync: bool = True) -> Admission:
    """Admit or drop a certified candidate: duplicates and over-long target ids are drops too.

    ``others`` is the pool to check duplicates against (default: read from the checkout); a batch passes its
    own list and gets the admitted spec appended, and syncs the BUILD files once at its end (``sync=False``).
    """
    reason = cert.decision.reason
    pool = others
    if cert.admitted:
        if pool is None:  # read once, for the duplicate check and the BUILD files
            pool = load_all(discover(root))
        duplicate = find_duplicate(spec, cert, root, pool)
        if duplicate:
            reason = f"duplicate_of:{duplicate}"
    if not cert.admitted or reason.startswith("duplicate_of"):
        record_drop(candidate, reason, root, collection_errors=collection_errors_of(cert), ran=ran_of(cert))
        return Admission(spec.task_id, False, reason, None, cert)
    if any(len(test_id) > MAX_TEST_ID_CHARS for test_id in cert.sets.fail_to_pass):
        record_drop(candidate, "target_id_too_long", root)
        return Admission(spec.task_id, False, "target_id_too_long", None, cert)
    fail_to_pass = [test_id for test_id in cert.sets.fail_to_pass if not is_file_check(test_id)]
    if not fail_to_pass:
        record_drop(candidate, "only_file_checks_fail", root, fail_to_pass=cert.sets.fail_to_pass)
        return Admission(spec.task_id, False, "only_file_checks_fail", None, cert)
    # The schema caps a test id's length; an over-long pass-to-pass id (a huge parametrize value) is left out
    # of the set rather than losing the task: it still runs, it is just not checked for breakage. So is a
    # plugin's check of a file's text.
    pass_to_pass = [test_id for test_id in cert.sets.pass_to_pass
                    if len(test_id) <= MAX_TEST_ID_CHARS and not is_file_check(test_id)]
    doc = dict(candidate, fail_to_pass=fail_to_pass, pass_to_pass=pass_to_pass)
    judgement = judge_document(doc, fix_side_failing=cert.sets.baseline_failing)
    if judgement is not None:
        reason = ""
        if not judgement.admitted:  # tests flip for a feature too: the change itself must be a fix
            reason = f"not_a_bugfix:{judgement.verdict}"
        elif judgement.pins_only_this_fix(tuple(fail_to_pass)):  # a different correct fix fails them all
            reason = f"over_specified:{len(judgement.over_specified)}/{len(cert.sets.fail_to_pass)}"
        elif judgement.mostly_failing_own_tests:  # never shrink the change's tests to a remnant silently
            reason = f"own_tests_fail_with_fix:{len(judgement.own_tests_failing)}/{judgement.own_tests}"
        if reason:
            record_drop(candidate, reason, root, judgement=judgement.to_json(), fail_to_pass=cert.sets.fail_to_pass)
            return Admission(spec.task_id, False, reason, None, cert)
        doc["provenance"] = {**doc["provenance"], "judgement": judgement.to_json()}
    doc["provenance"] = dated(doc)
    path = root / "tasks" / group_of(spec_from_document(doc)) / spec_file_name(spec)
    final = spec_from_document(doc, path=str(path))  # the admitted spec must itself validate
    flagged = honest_fix_findings(final, root)
    if flagged:  # its own fix would be scored tampered: a task nobody can solve honestly
        reason = drop_reason(flagged)
        record_drop(candidate, reason, root, judgement=doc["provenance"].get("judgement"))
        return Admission(spec.task_id, False, reason, None, cert)
    write_atomic(path, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode())
    (root / "tasks" / "_dropped" / f"{final.task_id}.json").unlink(missing_ok=True)  # a retried drop
    cert = certificate_for_admitted(final, cert, root, k=k, sandbox_name=sandbox_name, max_targets=max_targets)
    commit_certificate(final, cert, root, k=k, sandbox_name=sandbox_name)
    if others is not None:
        others.append(final)
    if sync:
        sync_build(root, [s for s in pool if s.task_id != final.task_id] + [final])
    return Admission(final.task_id, True, "admitted", path, cert)


def certificate_for_admitted(final: TaskSpec, cert: Certificate, root: Path, *, k: int, sandbox_name: str,
                             max_targets: int | None) -> Certificate:
    """The certificate of the admitted spec, derived from the candidate's runs without running them again.

    The admitted spec differs from the candidate only by the sets the gate derived from those runs, so
    certifying it would repeat the same runs and reach the same decision; what changes is the spec hash the
    certificate names. The decision is re-derived with the spec's claims, and the result is cached under the
    admitted spec's key, so `bench certify` of the pool finds it.
    """
    from dataclasses import replace

    from bench.gate.certify import certificate_key
    from bench.gate.sets import decide
    from bench.spec.load import spec_sha256
    from bench.store.action_cache import ActionCache

    decision = decide(cert.runs, cert.sets, claimed_fail_to_pass=final.fail_to_pass, max_targets=max_targets)
    adopted = replace(cert, spec_sha256=spec_sha256(final), decision=decision)
    cache = ActionCache("certificates")
    cache.put(cache.key(certificate_key(final, root, k=k, sandbox_name=sandbox_name)), adopted.to_json())
    return adopted


def dated(doc: dict) -> dict:
    """The candidate's provenance with the labels that date it (every admitted task has a date)."""
    from bench.spec.kind_registry import get_kind

    return {**doc["provenance"], **get_kind(doc["kind"]).dating(doc)}


def judge_document(doc: dict, *, fix_side_failing: tuple[str, ...] = ()):
    """The admission judgement of a candidate with its certified sets (None for a kind that is not judged)."""
    from bench.spec.kind_registry import get_kind

    spec = spec_from_document(doc)
    return get_kind(spec.kind).judge(spec, mirror=None, fix_side_failing=fix_side_failing)


def sync_build(root: Path, pool: list[TaskSpec] | None = None) -> None:
    """The BUILD files of ``pool`` (default: the pool as ``root`` holds it) written where they differ."""
    from bench.gate.pants_targets import sync

    sync(pool if pool is not None else load_all(discover(root)))
