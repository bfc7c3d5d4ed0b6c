"""Run the synthetic suite's hidden tests on the host, for building and checking scripted trajectories.

Only our own authored code runs here (the synthetic tasks' initial, reference and mutated modules and their
tests), so the host interpreter is used directly, without a sandbox. The harness's fingerprints
(:mod:`bench.loop.signature`) and classifier (:mod:`bench.loop.convergence`) judge the replayed turns, and
the harness's own parser and applier (:mod:`bench.attempt.edits`) apply the responses, so a trajectory that
replays here to its expected class is judged the same way by the harness.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import xml.etree.ElementTree as ElementTree
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bench.attempt.edits import apply_edits, parse_edits
from bench.errors import CheckFailed, EditError
from bench.loop.convergence import NO_CANDIDATE, Classification, Turn, classify_turns
from bench.loop.signature import candidate_digest, failure_signature, top_error_line
from bench.spec.load import identity_document

Files = tuple[tuple[str, str], ...]  # (path, text) sorted by path
SYNTHETIC_DIR = Path("tasks") / "synthetic"
# The suites run in well under a second; a mutant that takes this long loops forever.
_TEST_TIMEOUT_SECONDS = 8
_BATCH_PROCESSES = 2


@dataclass(frozen=True)
class SyntheticTask:
    task_id: str
    slug: str
    difficulty: str
    source_files: tuple[str, ...]
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    initial: Files
    reference: Files
    tests: Files  # paths under tests/
    inputs_sha256: str  # over the spec and every file above: a change makes the scripted data stale


@dataclass(frozen=True)
class Observation:
    compiles: bool
    solved: bool
    failing: tuple[str, ...]  # target tests (fail_to_pass + pass_to_pass) that did not pass, sorted
    signature: str
    timed_out: bool = False  # the run was killed: a hanging candidate (never used in a trajectory)


@dataclass(frozen=True)
class Replay:
    turns: tuple[Turn, ...]
    failing: tuple[tuple[str, ...], ...]  # per replayed turn
    classification: Classification


def load_tasks(checkout: Path) -> tuple[SyntheticTask, ...]:
    """Every synthetic task of ``checkout``, sorted by task id."""
    specs = sorted((Path(checkout) / SYNTHETIC_DIR).glob("*.json"))
    return tuple(sorted((load_task(spec) for spec in specs), key=lambda task: task.task_id))


def load_task(spec_path: Path) -> SyntheticTask:
    spec_text = spec_path.read_text(encoding="utf-8")
    spec = json.loads(spec_text)
    folder = spec_path.parent / spec_path.stem
    sources = tuple(spec["source_files"])
    initial = tuple(sorted((path, (folder / "initial" / path).read_text(encoding="utf-8")) for path in sources))
    reference = tuple(sorted((path, (folder / "reference" / path).read_text(encoding="utf-8")) for path in sources))
    tests = tuple(sorted(
        (f"tests/{p.relative_to(folder / 'tests').as_posix()}", p.read_text(encoding="utf-8"))
        for p in (folder / "tests").rglob("*.py") if "__pycache__" not in p.parts
    ))
    # The spec without its labels (the authoring day, a judgement), as it is written: they decide nothing the
    # scripted data depends on, so dating a task leaves its data current.
    unlabelled = json.dumps(identity_document(spec), indent=2, ensure_ascii=False) + "\n"
    digest = hashlib.sha256(unlabelled.encode("utf-8"))
    for path, text in initial + reference + tests:
        digest.update(f"\0{path}\0{len(text)}\0{text}".encode("utf-8"))
    return SyntheticTask(
        task_id=spec["task_id"],
        slug=spec_path.stem,
        difficulty=spec.get("difficulty", ""),
        source_files=sources,
        fail_to_pass=tuple(spec["fail_to_pass"]),
        pass_to_pass=tuple(spec["pass_to_pass"]),
        initial=initial,
        reference=reference,
        tests=tests,
        inputs_sha256=digest.hexdigest(),
    )


def apply_response(task: SyntheticTask, files: Files, text: str) -> Files | None:
    """The files after applying ``text`` with the harness's applier, or None for an invalid edit."""
    with tempfile.TemporaryDirectory(prefix="scripted-apply-") as scratch:
        workspace = Path(scratch)
        _write(workspace, files)
        try:
            apply_edits(workspace, parse_edits(text), allowed_paths=task.source_files)
        except EditError:
            return None
        return tuple(sorted((path, (workspace / path).read_text(encoding="utf-8")) for path, _ in files))


class HostRunner:
    """Runs a task's tests against candidate files with the host interpreter; results cached by digest.

    :meth:`observe` runs one candidate in its own pytest process with a timeout (what generation uses: a
    mutant may loop forever). :meth:`prefetch` runs many known-good candidates in one interpreter
    (``_pytest_batch.py``), which is what makes checking every stored trajectory fast.
    """

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], Observation] = {}
        self._lock = threading.Lock()
        self.runs = 0

    def observe(self, task: SyntheticTask, files: Files) -> Observation:
        key = (task.task_id, candidate_digest(files))
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        observation = self._run(task, files)
        self._remember(key, observation)
        return observation

    def prefetch(self, items: list[tuple[SyntheticTask, Files]], timeout: float | None = None) -> None:
        """Observe every (task, files) not yet cached, in pytest-running interpreters (one per core, at most 2).

        If a batch outlives ``timeout`` (a candidate hangs), its results are dropped and :meth:`observe`
        later runs each of those candidates on its own, with its own timeout.
        """
        pending: dict[tuple[str, str], tuple[SyntheticTask, Files]] = {}
        for task, files in items:
            key = (task.task_id, candidate_digest(files))
            if key not in self._cache:
                pending.setdefault(key, (task, files))
        entries = list(pending.items())
        workers = max(1, min(_BATCH_PROCESSES, os.cpu_count() or 1, len(entries)))
        if not entries:
            return
        shares = [entries[index::workers] for index in range(workers)]
        with ThreadPoolExecutor(workers) as pool:
            for share, observations in zip(shares, pool.map(lambda part: _run_batch(part, timeout), shares)):
                for (key, _), observation in zip(share, observations or ()):
                    self._remember(key, observation)

    def _remember(self, key: tuple[str, str], observation: Observation) -> None:
        with self._lock:
            self._cache[key] = observation
            self.runs += 1

    def _run(self, task: SyntheticTask, files: Files) -> Observation:
        with tempfile.TemporaryDirectory(prefix="scripted-run-") as scratch:
            workdir = Path(scratch)
            _write(workdir, files + task.tests)
            junit = workdir / ".junit.xml"
            command = [sys.executable, "-m", "pytest", "-q", "--tb=short", "-p", "no:cacheprovider",
                       f"--junitxml={junit}", "tests"]
            try:
                done = subprocess.run(command, cwd=workdir, env=_test_env(), capture_output=True, text=True,
                                      timeout=_TEST_TIMEOUT_SECONDS, check=False)
            except subprocess.TimeoutExpired:
                targets = tuple(sorted(task.fail_to_pass + task.pass_to_pass))
                return Observation(True, False, targets, "", timed_out=True)
            return _observation(task, done.returncode, done.stdout, junit)


def _run_batch(entries: list[tuple[tuple[str, str], tuple[SyntheticTask, Files]]],
               timeout: float | None) -> list[Observation] | None:
    """Observations of ``entries`` from one ``_pytest_batch.py`` process; None if it timed out."""
    with tempfile.TemporaryDirectory(prefix="scripted-batch-") as scratch:
        jobs = []
        for number, (_, (task, files)) in enumerate(entries):
            workdir = Path(scratch) / str(number)
            _write(workdir, files + task.tests)
            jobs.append({"workdir": str(workdir), "junit": str(workdir / ".junit.xml")})
        jobs_path = Path(scratch) / "jobs.json"
        jobs_path.write_text(json.dumps(jobs), encoding="utf-8")
        batch = Path(__file__).with_name("_pytest_batch.py")
        try:
            done = subprocess.run([sys.executable, str(batch), str(jobs_path)], env=_test_env(),
                                  capture_output=True, text=True, check=False, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        if done.returncode != 0:
            raise CheckFailed(f"pytest batch failed ({done.returncode}): {done.stderr[-2000:]}")
        results = json.loads(Path(f"{jobs_path}.out").read_text(encoding="utf-8"))
        return [
            _observation(task, result["returncode"], result["stdout"], Path(job["junit"]))
            for (_, (task, _)), job, result in zip(entries, jobs, results)
        ]


def _test_env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=".", PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0",
                PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")


def _observation(task: SyntheticTask, returncode: int, stdout: str, junit: Path) -> Observation:
    passed = _passed_ids(junit, task) if junit.exists() else set()
    compiles = returncode in (0, 1)
    targets = task.fail_to_pass + task.pass_to_pass
    failing = tuple(sorted(test for test in targets if test not in passed))
    solved = compiles and all(test in passed for test in task.fail_to_pass)
    return Observation(compiles, solved, failing, failure_signature(compiles, failing, top_error_line(stdout)))


def played_states(task: SyntheticTask, responses: list[str] | tuple[str, ...], budget: int) -> list[Files | None]:
    """The files after each turn of ``budget`` (None for a turn whose edit is invalid), without running tests."""
    files, states = task.initial, []
    for index in range(1, budget + 1):
        after = apply_response(task, files, responses[min(index, len(responses)) - 1])
        states.append(after)
        files = after if after is not None else files
    return states


def replay(task: SyntheticTask, responses: list[str] | tuple[str, ...], runner: HostRunner,
           budget: int) -> Replay:
    """Play ``responses`` as the cumulative repair loop does (past the last, the last repeats)."""
    files = task.initial
    turns: list[Turn] = []
    failing: list[tuple[str, ...]] = []
    for index, after in enumerate(played_states(task, responses, budget), start=1):
        if after is None:
            turns.append(Turn(index, NO_CANDIDATE, "", False, True))
            failing.append(runner.observe(task, files).failing)
            continue
        files = after
        observed = runner.observe(task, files)
        turns.append(Turn(index, candidate_digest(files), observed.signature, observed.solved, observed.compiles))
        failing.append(observed.failing)
        if observed.solved:
            break
    return Replay(tuple(turns), tuple(failing), classify_turns(turns, budget=budget))


def _passed_ids(junit: Path, task: SyntheticTask) -> set[str]:
    modules = {path[:-3].replace("/", "."): path for path, _ in task.tests if path.endswith(".py")}
    passed = set()
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        if any(child.tag in ("failure", "error", "skipped") for child in case):
            continue
        test_id = _test_id(case.get("classname", ""), case.get("name", ""), modules)
        if test_id:
            passed.add(test_id)
    return passed


def _test_id(classname: str, name: str, modules: dict[str, str]) -> str:
    for module, path in modules.items():
        if classname == module:
            return f"{path}::{name}"
        if classname.startswith(module + "."):
            return f"{path}::{classname[len(module) + 1:].replace('.', '::')}::{name}"
    return ""


def _write(root: Path, files: Files) -> None:
    for path, text in files:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
