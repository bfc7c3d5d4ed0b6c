"""Running a task's tests inside the sandbox and reading back what happened.

pytest writes its JUnit XML into a receive channel (an inherited pipe the host drains while the run goes on;
no path in the sandbox leads to it); the harness keeps at most ``MAX_REPORT_BYTES`` of it and reads pytest's
exit code, never the printed output. A *guarded* run (``guard=GuardRequest(...)``, every scored candidate)
adds the run-time layers of :mod:`bench.verdict.guard` and reports what they saw in ``TestRun.tampering``.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from bench.errors import CheckFailed
from bench.sandbox.cleanup import fast_scratch, scratch_dir
from bench.sandbox.protocol import Channel, ExecRequest, Limits, Mount, NetworkPolicy, Received
from bench.verdict.guard import spare_findings, violations
from bench.verdict.junit import JUnitReport, parse_junit

# pytest exit codes (pytest.ExitCode)
PYTEST_OK, PYTEST_TESTS_FAILED, PYTEST_INTERRUPTED, PYTEST_INTERNAL, PYTEST_USAGE, PYTEST_NO_TESTS = range(6)
# A report is a few KB per test; anything near this is output the code under test produced on purpose.
MAX_REPORT_BYTES = 16 << 20
# pytest expands variables in its --junitxml path; the backend names the report channel's descriptor there.
REPORT_PATH = "${BENCH_CHANNEL_REPORT}"
# A canary the report does not list: forgery that rewrote the report, or a run cut short before the canaries
# (a project's `-x`); grading counts it only against a run that would otherwise be solved.
MISSING_CANARY = "missing"

BASE_ENV = (
    ("LANG", "C.UTF-8"),
    ("LC_ALL", "C.UTF-8"),
    ("TZ", "UTC"),
    ("HOME", "/tmp"),
    ("PYTHONDONTWRITEBYTECODE", "1"),  # a stale .pyc of the original must never be imported
    ("PYTHONHASHSEED", "0"),
    ("PYTHONUTF8", "1"),
)


@dataclass(frozen=True)
class RunEnvironment:
    """Where a task's tests run, the same for every run of one side of one task: the sandbox backend, the
    image (unpacked root and pinned digest), the interpreter with its environment, and the mounts that carry
    the task's venv."""

    sandbox: object
    image_root: Path
    image_digest: str
    python: str
    env: tuple[tuple[str, str], ...]
    mounts: tuple[Mount, ...]


@dataclass(frozen=True)
class TestRun:
    __test__ = False  # not a test class, whatever pytest's name rule says
    exit_code: int | None
    timed_out: bool
    oom_killed: bool
    report: JUnitReport | None  # None when pytest wrote no XML (crashed, killed, or the code exited early)
    junit_sha256: str
    log_sha256: str
    log_tail: str  # last lines of pytest's output, for humans; never graded
    wall_seconds: float
    notes: tuple[str, ...] = ()
    tampering: tuple[str, ...] = ()  # rules a guarded run saw broken (audit guard, canaries); () when clean
    tampering_if_solved: tuple[str, ...] = ()  # canaries missing from the report: counts against a "solved"
    report_problem: str = ""  # why a report that exists could not be used (too large, unreadable)


@dataclass(frozen=True)
class GuardRequest:
    """Ask for a guarded run: the edit's changed lines per file and the task's top-level packages."""

    changed: tuple[tuple[str, tuple[int, ...]], ...]
    packages: tuple[str, ...]
    allowed_rules: tuple[str, ...] = ()  # rules the task's own honest fix breaks
    content_masks: tuple[str, ...] = ()  # sandbox paths of files that hold the answer under another name
    source_files: tuple[str, ...] = ()  # the only files of the work dir left writable
    targets: tuple[str, ...] = ()  # fail_to_pass ids: decoys are cloned from them
    # A second look at hidden copies that failed beside passing targets: copy only the targets (no decoys) and
    # run the copies alone, with the canaries (see _copies_alone).
    copies_alone: bool = False


def pytest_argv(python: str, report_path: str, targets: Sequence[str]) -> tuple[str, ...]:
    # --maxfail=0 after the project's addopts (pytest puts those first): a project's -x stopped the run at the
    # first decoy an honest fix must fail, before the canary, and transitions' honest fixes read as tampered.
    return (
        python, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "--maxfail=0",
        "-o", "junit_family=xunit2", "-o", "junit_logging=no", "-o", "console_output_style=classic",
        f"--junitxml={report_path}", "-q", "-rfE", "--color=no", "--rootdir=/work", *targets,
    )


def run_tests(
    where: RunEnvironment,
    *,
    workdir: Path,
    test_files: Sequence[str],
    limits: Limits,
    guard: GuardRequest | None = None,
) -> TestRun:
    """Run pytest over `test_files` in `workdir` (bound at /work) in `where`, and parse the result.

    The report leaves through a receive channel (an inherited pipe read by the host while the run goes on):
    pytest opens it as ``/dev/fd/N`` (``${BENCH_CHANNEL_REPORT}``, which pytest expands), and no path of the
    sandbox leads to what the host has read."""
    argv = pytest_argv(where.python, REPORT_PATH, test_files)
    extra: tuple[Mount, ...] = ()
    channels: tuple[Channel, ...] = (Channel("report", receive=MAX_REPORT_BYTES + 1),)
    frozen: tuple[str, ...] = ()
    guarded = None
    with scratch_dir(prefix="bench-guard-", dir=fast_scratch()) as scratch:
        if guard is not None:
            guarded, guard_mounts = _guard_run(scratch, workdir, where, test_files, guard)
            selected = tuple(copy for copy, _ in guarded.decoys.copies) if guard.copies_alone else ()
            argv = guarded.argv_prefix + (argv[3:-len(test_files)] + selected if selected else argv[3:]) \
                + (guarded.canary_file,)
            extra, channels, frozen = guard_mounts, channels + guarded.channels, guarded.frozen
        request = ExecRequest(
            argv=argv, workdir=workdir, image_root=where.image_root, image_digest=where.image_digest,
            env=tuple(BASE_ENV) + tuple(where.env), limits=limits, network=NetworkPolicy.NONE,
            mounts=tuple(where.mounts) + extra, channels=channels, frozen=frozen,
        )
        try:
            result = where.sandbox.run(request)
        finally:
            if guarded is not None:
                (workdir / guarded.canary_file).unlink(missing_ok=True)
                guarded.decoys.restore()
    xml, problem = _report_bytes(result.received_from("report"))
    log = result.stdout + b"\n" + result.stderr
    report = None
    if xml:
        try:  # the canary file's tests are read with the rest, checked, then dropped
            report = parse_junit(xml, test_files if guarded is None else (*test_files, guarded.canary_file))
        except CheckFailed as exc:  # the code under test wrote it, or cut it short: its fault, not ours
            problem = str(exc)
    findings: tuple[str, ...] = ()
    if_solved: tuple[str, ...] = ()
    if guarded is not None:
        findings = (_marker_rules(result.received_from("marker")) + spare_findings(result.received)
                    or _canary_findings(guarded, report) + _decoy_findings(guarded, report))
        if guard.copies_alone:
            copies = tuple(f"hidden copy (an unchanged copy of {real} failed when run alone)"
                           for real in guarded.decoys.copies_not_passed(_outcomes(report)))
        else:
            copies = guarded.decoys.copy_findings(_outcomes(report))
            if copies and _targets_passed(report, guard.targets):
                copies = _copies_alone(where, workdir, test_files, limits, guard, guarded, report)
        if_solved = _data_findings(guarded, workdir) + copies
        if report is not None:
            report = _without(report, guarded)
    return TestRun(
        exit_code=result.exit_code,
        timed_out=result.timed_out,
        oom_killed=result.oom_killed,
        report=report,
        junit_sha256=hashlib.sha256(xml).hexdigest() if xml else "",
        log_sha256=hashlib.sha256(log).hexdigest(),
        log_tail="\n".join(log.decode("utf-8", "replace").splitlines()[-60:]),
        wall_seconds=result.wall_seconds,
        notes=tuple(result.notes),
        tampering=tuple(f for f in findings if MISSING_CANARY not in f),
        tampering_if_solved=tuple(f for f in findings if MISSING_CANARY in f) + if_solved,
        report_problem=problem,
    )


def _report_bytes(received: Received | None) -> tuple[bytes, str]:
    """The report as the host received it; what is too large is not read."""
    if received is None or not received.data:
        return b"", ""
    if received.truncated or len(received.data) > MAX_REPORT_BYTES:
        return b"", f"the report is larger than {MAX_REPORT_BYTES >> 20} MiB"
    return received.data, ""


def _guard_run(scratch: Path, workdir, where: RunEnvironment, test_files, guard):
    from bench.verdict.guard import launcher_source, prepare_guard
    from bench.verdict.launcher_code import launcher_bytecode
    from bench.verdict.masks import masks_for

    empty_dir, empty_file = scratch / "empty", scratch / "empty-file"
    empty_dir.mkdir()
    empty_file.write_bytes(b"")
    os.chmod(empty_dir, 0o755)
    os.chmod(scratch, 0o755)
    masks = masks_for(where.mounts, where.image_root, guard.packages, empty_dir=empty_dir, empty_file=empty_file)
    masks += tuple(Mount(empty_file, path, mask=True) for path in guard.content_masks
                   if path not in {m.sandbox_path for m in masks})
    guarded = prepare_guard(run_dir=workdir, guard_host=scratch / "guard",
                            guard_sandbox=f"/run/bench-{secrets.token_hex(8)}", python=where.python,
                            test_files=test_files, source_files=guard.source_files,
                            changed={p: list(lines) for p, lines in guard.changed},
                            allowed=guard.allowed_rules, taken=tuple(m.sandbox_path for m in masks),
                            targets=guard.targets, decoys=not guard.copies_alone,
                            launcher_code=launcher_bytecode(where, launcher_source()))
    return guarded, guarded.mounts + masks


def _marker_rules(received: Received | None) -> tuple[str, ...]:

    if received is None:
        return ()
    rules = violations(received.data)
    return rules + (("marker-flooded",) if received.truncated else ())


def _canary_findings(guarded, report: JUnitReport | None) -> tuple[str, ...]:
    if report is None:
        return ()  # no report (or an unreadable one): nothing was forged into it (graded as a miss)
    by_id = report.by_id()
    found = []
    for test_id, expected in guarded.canaries:
        seen = by_id[test_id].outcome if test_id in by_id else MISSING_CANARY
        if seen != expected:
            found.append(f"canary (a test that must be {expected} was {seen})")
    return tuple(found)


def _data_findings(guarded, workdir: Path) -> tuple[str, ...]:
    """Test data whose content the run changed: counts against a run that would otherwise be solved."""
    from bench.verdict.readonly_tree import changed_data

    return tuple(f"test data changed ({path})" for path in changed_data(workdir, dict(guarded.data_before)))


def _outcomes(report: JUnitReport | None) -> dict[str, str]:
    return {} if report is None else {o.test_id: o.outcome for o in report.outcomes}


def _decoy_findings(guarded, report: JUnitReport | None) -> tuple[str, ...]:
    return guarded.decoys.findings(_outcomes(report))


def _targets_passed(report: JUnitReport | None, targets: Sequence[str]) -> bool:
    by_id = {} if report is None else report.by_id()
    return bool(targets) and all(t in by_id and by_id[t].outcome == "passed" for t in targets)


def _copies_alone(where, workdir, test_files, limits, guard, guarded, report) -> tuple[str, ...]:
    """Hidden copies that failed beside their passing real tests, run again alone in a fresh sandbox with the
    canaries: what counts is what fails there too. A copy runs the real test's body a second time in one
    process, and a body that leaves state a second run cannot take (a class registry refusing a second class
    of one name) fails its copy whatever the candidate does; alone, the copy passes. Code that forges the
    real tests' results by id leaves the bug in place, so its copies fail alone too."""
    failed = guarded.decoys.copies_not_passed(_outcomes(report))
    again = run_tests(where, workdir=workdir, test_files=test_files, limits=limits,
                      guard=replace(guard, targets=failed, copies_alone=True))
    return again.tampering + again.tampering_if_solved


def _without(report: JUnitReport, guarded) -> JUnitReport:
    """The report without the harness's own tests: the canaries and the decoys."""
    keep = tuple(o for o in report.outcomes
                 if not o.test_id.startswith(guarded.canary_file + "::") and not guarded.decoys.is_decoy(o.test_id))
    return JUnitReport(keep, report.collection_errors)
