"""Soundness of the authored synthetic tasks: the reference passes every hidden test, the initial code fails one.

For each task the hidden tests run twice in throw-away directories on the host (these are our own authored
files, not untrusted code): once over the fix tree (reference modules + tests) and once over the base tree
with the tests overlaid (initial modules + tests). Results come from a JUnit XML file written to a path
outside the work tree, never from pytest's output. The observed fail-to-pass / pass-to-pass sets must equal
the ones the spec declares.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from bench.errors import SpecError
from bench.source.synthetic import FileTree, SyntheticFiles, load_synthetic_files, write_tree
from bench.spec.model import TaskSpec

PASSED = "passed"
FAILED = "failed"
ERROR = "error"
SKIPPED = "skipped"
MISSING = "missing"  # the test did not run at all (e.g. the module failed to import)

Outcomes = tuple[tuple[str, str], ...]  # (pytest node id, outcome), sorted by node id
_SEVERITY = {PASSED: 0, SKIPPED: 1, FAILED: 2, ERROR: 3}


@dataclass(frozen=True)
class SoundnessResult:
    task_id: str
    problems: tuple[str, ...]  # empty when the task is sound
    reference: Outcomes
    initial: Outcomes
    observed_fail_to_pass: tuple[str, ...]
    observed_pass_to_pass: tuple[str, ...]
    seconds: float = 0.0  # wall time of both runs; informative only

    @property
    def ok(self) -> bool:
        return not self.problems


def check_soundness(spec: TaskSpec, *, root: Path | None = None, timeout: float = 120.0) -> SoundnessResult:
    """Run the hidden tests against the reference and the initial code and compare with the spec."""
    started = time.monotonic()
    files = load_synthetic_files(spec, root=root)
    problems: list[str] = []
    reference, reference_rc = _run_tree(files.fix_tree, spec.test_files, timeout, problems, "reference")
    initial, _ = _run_tree(_initial_with_tests(files), spec.test_files, timeout, problems, "initial")
    problems += _reference_problems(reference, reference_rc, spec.test_files)
    fail_to_pass, pass_to_pass = _classify(reference, initial)
    if reference and not fail_to_pass:
        problems.append("initial code passes every test the reference passes")
    problems += _declared_problems("fail_to_pass", spec.fail_to_pass, fail_to_pass)
    problems += _declared_problems("pass_to_pass", spec.pass_to_pass, pass_to_pass)
    return SoundnessResult(
        task_id=spec.task_id,
        problems=tuple(problems),
        reference=reference,
        initial=initial,
        observed_fail_to_pass=fail_to_pass,
        observed_pass_to_pass=pass_to_pass,
        seconds=round(time.monotonic() - started, 3),
    )


def check_all(
    specs: Iterable[TaskSpec], workers: int = 2, *, root: Path | None = None, timeout: float = 120.0
) -> tuple[SoundnessResult, ...]:
    """Check many tasks concurrently (pytest runs in subprocesses); results keep the order of ``specs``.

    Unlike :func:`check_soundness`, a task whose files do not match its spec becomes a result with a
    ``spec:`` problem instead of an exception.
    """
    specs = tuple(specs)

    def check_one(spec: TaskSpec) -> SoundnessResult:
        try:
            return check_soundness(spec, root=root, timeout=timeout)
        except SpecError as exc:
            # One broken task folder must not hide the verdicts on all the others.
            return SoundnessResult(spec.task_id, (f"spec: {exc}",), (), (), (), ())

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return tuple(pool.map(check_one, specs))


def _initial_with_tests(files: SyntheticFiles) -> FileTree:
    return tuple(sorted(files.base_tree + files.tests))


def _run_tree(
    tree: FileTree, test_files: tuple[str, ...], timeout: float, problems: list[str], label: str
) -> tuple[Outcomes, int | None]:
    """Write ``tree`` to a fresh directory, run pytest there, and read per-test outcomes from JUnit XML."""
    work = Path(tempfile.mkdtemp(prefix="bench-synthetic-work-"))
    report_dir = Path(tempfile.mkdtemp(prefix="bench-synthetic-junit-"))
    # An unpredictable report path outside the work tree: tested code cannot forge the results.
    report = report_dir / f"{secrets.token_hex(16)}.xml"
    try:
        write_tree(tree, work)
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", ".",
                f"--junitxml={report}", *test_files]
        try:
            done = subprocess.run(argv, cwd=work, env=_pytest_env(work), capture_output=True,
                                  timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            problems.append(f"{label}: pytest timed out after {timeout:g}s")
            return (), None
        if not report.is_file():
            problems.append(f"{label}: pytest wrote no JUnit XML (exit {done.returncode})")
            return (), done.returncode
        try:
            return _read_junit(report, test_files), done.returncode
        except ElementTree.ParseError as exc:
            problems.append(f"{label}: unreadable JUnit XML: {exc}")
            return (), done.returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(report_dir, ignore_errors=True)


def _pytest_env(work: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(work),
        "PYTHONPATH": ".",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        # Only pytest's own plugins: whatever else the host venv holds must not change the outcome.
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
    }


def _read_junit(report: Path, test_files: tuple[str, ...]) -> Outcomes:
    """Map each <testcase> to a pytest node id and its worst outcome."""
    outcomes: dict[str, str] = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        node_id = _node_id(case.get("classname", ""), case.get("name", ""), test_files)
        outcome = _case_outcome(case)
        if _SEVERITY[outcome] >= _SEVERITY.get(outcomes.get(node_id, PASSED), 0):
            outcomes[node_id] = outcome
    return tuple(sorted(outcomes.items()))


def _case_outcome(case: ElementTree.Element) -> str:
    tags = {child.tag for child in case}
    if "error" in tags:
        return ERROR
    if "failure" in tags:
        return FAILED
    if "skipped" in tags:
        return SKIPPED
    return PASSED


def _node_id(classname: str, name: str, test_files: tuple[str, ...]) -> str:
    """JUnit's dotted classname back to pytest's ``path::[Class::]name``; a collection error gives the path."""
    for path in test_files:
        dotted = path.removesuffix(".py").replace("/", ".")
        if not classname and name == dotted:
            return path  # a collection error of the whole file
        if classname == dotted:
            return f"{path}::{name}"
        if classname.startswith(dotted + "."):
            return f"{path}::{classname[len(dotted) + 1:].replace('.', '::')}::{name}"
    return f"{classname}::{name}" if classname else name


def _reference_problems(reference: Outcomes, returncode: int | None, test_files: tuple[str, ...]) -> list[str]:
    problems = []
    if not reference:
        problems.append("reference: no test results")
    not_passing = [f"{node} ({outcome})" for node, outcome in reference if outcome != PASSED]
    if not_passing:
        problems.append(f"reference: not passing: {', '.join(not_passing)}")
    if reference and returncode != 0:
        problems.append(f"reference: pytest exit code {returncode}")
    for path in test_files:
        if not any(node.startswith(f"{path}::") for node, _ in reference):
            problems.append(f"reference: no test ran from {path}")
    return problems


def _classify(reference: Outcomes, initial: Outcomes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Tests passing with the reference split by whether they also pass with the initial code."""
    at_initial = dict(initial)
    passing = [node for node, outcome in reference if outcome == PASSED]
    fail_to_pass = tuple(node for node in passing if at_initial.get(node, MISSING) != PASSED)
    pass_to_pass = tuple(node for node in passing if at_initial.get(node, MISSING) == PASSED)
    return fail_to_pass, pass_to_pass


def _declared_problems(label: str, declared: tuple[str, ...], observed: tuple[str, ...]) -> list[str]:
    if tuple(declared) == observed:
        return []
    if sorted(declared) == list(observed):
        return [f"{label}: declared ids are not sorted"]
    missing = sorted(set(observed) - set(declared))
    extra = sorted(set(declared) - set(observed))
    return [f"{label}: declared differs from observed (undeclared: {missing}, not observed: {extra})"]
