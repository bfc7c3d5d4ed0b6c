"""Running a task's tests inside the sandbox and reading back what happened.

pytest writes its JUnit XML into a private report folder bound at a path chosen at random per run, outside
the work dir; the harness reads that file (bounded: ``MAX_REPORT_BYTES``) and pytest's exit code, never the
printed output. A *guarded* run (``guard=GuardRequest(...)``, every scored candidate) adds the run-time
layers of :mod:`bench.verdict.guard` and reports what they saw in ``TestRun.tampering``.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bench.errors import CheckFailed
from bench.sandbox.cleanup import remove_tree
from bench.sandbox.protocol import ExecRequest, Limits, Mount, NetworkPolicy
from bench.verdict.junit import JUnitReport, parse_junit

# pytest exit codes (pytest.ExitCode)
PYTEST_OK, PYTEST_TESTS_FAILED, PYTEST_INTERRUPTED, PYTEST_INTERNAL, PYTEST_USAGE, PYTEST_NO_TESTS = range(6)
# A report is a few KB per test; anything near this is output the code under test produced on purpose.
MAX_REPORT_BYTES = 16 << 20
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


def pytest_argv(python: str, report_path: str, targets: Sequence[str]) -> tuple[str, ...]:
    return (
        python, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
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
    """Run pytest over `test_files` in `workdir` (bound at /work) in `where`, and parse the result."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-report-"))
    report_host = scratch / "report"
    report_host.mkdir()
    os.chmod(report_host, 0o777)  # the sandbox runs as an unprivileged uid
    report_dir = f"/run/bench-{secrets.token_hex(8)}"
    argv = pytest_argv(where.python, f"{report_dir}/junit.xml", test_files)
    extra: tuple[Mount, ...] = (Mount(report_host, report_dir, writable=True),)
    guarded = None
    try:
        if guard is not None:
            guarded, guard_mounts = _guard_run(scratch, workdir, where, test_files, guard, report_dir)
            argv = guarded.argv_prefix + argv[3:] + (guarded.canary_file,)
            extra += guard_mounts
        request = ExecRequest(
            argv=argv,
            workdir=workdir,
            image_root=where.image_root,
            image_digest=where.image_digest,
            env=tuple(BASE_ENV) + tuple(where.env),
            limits=limits,
            network=NetworkPolicy.NONE,
            mounts=tuple(where.mounts) + extra,
        )
        result = where.sandbox.run(request)
        xml, problem = _read_report(report_host / "junit.xml")
        marker_rules = () if guarded is None else _marker_rules(guarded)
    finally:
        if guarded is not None:
            (workdir / guarded.canary_file).unlink(missing_ok=True)
        remove_tree(scratch)
    log = result.stdout + b"\n" + result.stderr
    report = None
    if xml:
        try:  # the canary file's tests are read with the rest, checked, then dropped
            report = parse_junit(xml, test_files if guarded is None else (*test_files, guarded.canary_file))
        except CheckFailed as exc:  # the code under test wrote it, or cut it short: its fault, not ours
            problem = str(exc)
    findings: tuple[str, ...] = ()
    if guarded is not None:
        findings = marker_rules or _canary_findings(guarded, report)
        if report is not None:
            report = _without(report, guarded.canary_file)
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
        tampering_if_solved=tuple(f for f in findings if MISSING_CANARY in f),
        report_problem=problem,
    )


def _read_report(path: Path) -> tuple[bytes, str]:
    """The report's bytes, bounded; a symlink, a special file or an oversized file is not read."""
    try:
        with open(path, "rb", opener=lambda p, flags: os.open(p, flags | os.O_NOFOLLOW | os.O_NONBLOCK)) as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return b"", "the report is not a regular file"
            data = handle.read(MAX_REPORT_BYTES + 1)
    except FileNotFoundError:
        return b"", ""
    except OSError as exc:
        return b"", f"the report could not be read ({exc.strerror})"
    if len(data) > MAX_REPORT_BYTES:
        return b"", f"the report is larger than {MAX_REPORT_BYTES >> 20} MiB"
    return data, ""


def _guard_run(scratch, workdir, where: RunEnvironment, test_files, guard, report_dir):
    from bench.verdict.guard import prepare_guard
    from bench.verdict.masks import masks_for

    empty_dir, empty_file = scratch / "empty", scratch / "empty-file"
    empty_dir.mkdir()
    empty_file.write_bytes(b"")
    os.chmod(empty_dir, 0o755)
    guarded = prepare_guard(run_dir=workdir, guard_host=scratch / "guard", report_host=scratch / "report",
                            report_sandbox=report_dir,
                            guard_sandbox=f"/run/bench-{secrets.token_hex(8)}", python=where.python,
                            test_files=test_files, changed={p: list(lines) for p, lines in guard.changed},
                            allowed=guard.allowed_rules)
    masks = masks_for(where.mounts, where.image_root, guard.packages, empty_dir=empty_dir, empty_file=empty_file)
    masks += tuple(Mount(empty_file, path, mask=True) for path in guard.content_masks
                   if path not in {m.sandbox_path for m in masks})
    return guarded, guarded.mounts + masks


def _marker_rules(guarded) -> tuple[str, ...]:
    from bench.verdict.guard import violations

    return tuple(violations(guarded))


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


def _without(report: JUnitReport, canary_file: str) -> JUnitReport:
    keep = tuple(o for o in report.outcomes if not o.test_id.startswith(canary_file + "::"))
    return JUnitReport(keep, report.collection_errors)
