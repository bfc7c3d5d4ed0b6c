"""Running a task's tests inside the sandbox and reading back what happened.

pytest writes its JUnit XML into a private report folder bound at a path chosen at random per run, outside
the work dir; the harness reads that file and pytest's exit code, never the printed output.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bench.sandbox.protocol import ExecRequest, Limits, Mount, NetworkPolicy
from bench.verdict.junit import JUnitReport, parse_junit

# pytest exit codes (pytest.ExitCode)
PYTEST_OK, PYTEST_TESTS_FAILED, PYTEST_INTERRUPTED, PYTEST_INTERNAL, PYTEST_USAGE, PYTEST_NO_TESTS = range(6)

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
class TestRun:
    exit_code: int | None
    timed_out: bool
    oom_killed: bool
    report: JUnitReport | None  # None when pytest wrote no XML (crashed, killed, or the code exited early)
    junit_sha256: str
    log_sha256: str
    log_tail: str  # last lines of pytest's output, for humans; never graded
    wall_seconds: float
    notes: tuple[str, ...] = ()


def pytest_argv(python: str, report_path: str, targets: Sequence[str]) -> tuple[str, ...]:
    return (
        python, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
        "-o", "junit_family=xunit2", "-o", "junit_logging=no", "-o", "console_output_style=classic",
        f"--junitxml={report_path}", "-q", "-rfE", "--color=no", "--rootdir=/work", *targets,
    )


def run_tests(
    *,
    sandbox,
    workdir: Path,
    image_root: Path,
    image_digest: str,
    python: str,
    env: Sequence[tuple[str, str]],
    mounts: Sequence[Mount],
    test_files: Sequence[str],
    limits: Limits,
) -> TestRun:
    """Run pytest over `test_files` in `workdir` (bound at /work) and parse the result."""
    report_host = Path(tempfile.mkdtemp(prefix="bench-report-"))
    os.chmod(report_host, 0o777)  # the sandbox runs as an unprivileged uid
    report_dir = f"/run/bench-{secrets.token_hex(8)}"
    try:
        request = ExecRequest(
            argv=pytest_argv(python, f"{report_dir}/junit.xml", test_files),
            workdir=workdir,
            image_root=image_root,
            image_digest=image_digest,
            env=tuple(BASE_ENV) + tuple(env),
            limits=limits,
            network=NetworkPolicy.NONE,
            mounts=tuple(mounts) + (Mount(report_host, report_dir, writable=True),),
        )
        result = sandbox.run(request)
        xml_path = report_host / "junit.xml"
        xml = xml_path.read_bytes() if xml_path.is_file() and not xml_path.is_symlink() else b""
    finally:
        shutil.rmtree(report_host, ignore_errors=True)
    log = result.stdout + b"\n" + result.stderr
    report = parse_junit(xml, test_files) if xml else None
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
    )
