"""Mutation yield: how many of the engine's candidates make good tasks, and how fast they can be judged.

A host-side calibration of ``bench.mutate``, not the gate: for each release given, the sdist is fetched and
mutated, the library's test dependencies are installed from wheels only (``pip download --only-binary :all:``,
so nothing runs on the host), and each mutant's test suite runs in a throwaway bubblewrap sandbox as an
unprivileged uid with no network (untrusted code). Each mutant is classified:

    good        1-20 tests fail that pass on the release
    broad       more than 20 fail
    undetected  the suite still passes
    import      the suite cannot be collected (pytest exit 2-5)
    timeout     slower than max(5 x the release's suite time, 10 s)

Usage (as root, from the checkout):

    PYTHONPATH=src/python python benchmarks/mutation_yield.py cachetools==5.5.0 more-itertools==10.5.0 \\
        [--seed 0] [--limit N] [--jobs 2] [--deps LIB=dep,dep] [--json results.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from queue import Queue
from threading import Lock

from bench.mutate.engine import MutationCandidate, mutate
from bench.source.mutation_site import apply_mutation, revert
from bench.mutate.files import list_test_files
from bench.mutate.operators import OPERATORS
from bench.source.sdist import fetch_sdist, find_release, unpack_sdist

CLASSES = ("good", "broad", "undetected", "import", "timeout")
GOOD_MAX_FAILING = 20
TIMEOUT_FACTOR = 5.0
TIMEOUT_FLOOR_SECONDS = 10.0
SANDBOX_UID = 65534  # nobody: as root-mapped uid the sandboxed code would still be host root
HOST_PYTHON = "/usr/bin/python3.11"  # world-readable, unlike a pyenv interpreter under /root
EXTRA_TEST_DEPS = {"tomlkit": ("pyyaml",), "marshmallow": ("simplejson",), "attrs": ("hypothesis",)}


@dataclass(frozen=True)
class SuiteRun:
    exit_code: int | None
    timed_out: bool
    failing: frozenset[str]
    seconds: float
    reported: bool  # pytest wrote its JUnit report (it ran at all)


@dataclass(frozen=True)
class MutantResult:
    library: str
    index: int
    operator: str
    file: str
    function: str
    outcome: str
    failing: int
    seconds: float


# --- environment (host side: wheels only, nothing of the library runs) ----------------------------------


def build_venv(work: Path, deps: tuple[str, ...]) -> Path:
    wheels, venv = work / "wheels", work / "venv"
    env = {**os.environ, "PIP_CONFIG_FILE": "/dev/null", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run([HOST_PYTHON, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "-q"]
    subprocess.run([*pip, "download", "--only-binary", ":all:", "--dest", str(wheels), *deps], check=True, env=env)
    subprocess.run([*pip, "install", "--no-index", "--find-links", str(wheels), *deps], check=True, env=env)
    return venv


# --- one sandboxed suite run ---------------------------------------------------------------------------------


def _failing_ids(junit: Path) -> frozenset[str]:
    if not junit.is_file():
        return frozenset()
    failing = set()
    for case in ElementTree.parse(junit).iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failing.add(f"{case.get('classname', '')}::{case.get('name', '')}")
    return frozenset(failing)


def _clear_bytecode(tree: Path) -> None:
    for cache in list(tree.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)


def run_suite(run_dir: Path, venv: Path, test_paths: tuple[str, ...], timeout: float) -> SuiteRun:
    """The library's suite in ``run_dir/tree``, sandboxed: no network, unprivileged, only run_dir writable."""
    tree, junit = run_dir / "tree", run_dir / "junit.xml"
    junit.unlink(missing_ok=True)
    _clear_bytecode(tree)
    python_path = ":".join(str(p) for p in (tree / "src", tree) if p.is_dir())
    argv = [
        "setpriv", f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups",
        "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
        "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--ro-bind", str(venv), str(venv),
        "--bind", str(run_dir), str(run_dir),
        "--dev", "/dev", "--proc", "/proc", "--chdir", str(tree), "--clearenv",
        "--setenv", "PATH", f"{venv}/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp",
        "--setenv", "LANG", "C.UTF-8", "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        "--setenv", "PYTHONPATH", python_path, "--setenv", "PYTHONHASHSEED", "0",
        "--", f"{venv}/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}",
        *test_paths,
    ]  # fmt: skip
    started = time.monotonic()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        exit_code, timed_out = process.wait(timeout=timeout), False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # bwrap's --die-with-parent takes the sandbox with it
        process.wait()
        exit_code, timed_out = None, True
    seconds = time.monotonic() - started
    reported = junit.is_file() and not timed_out
    return SuiteRun(exit_code, timed_out, _failing_ids(junit) if reported else frozenset(), seconds, reported)


def classify(run: SuiteRun, baseline: frozenset[str]) -> tuple[str, int]:
    if run.timed_out:
        return "timeout", 0
    if run.exit_code not in (0, 1) or not run.reported:
        return "import", 0
    failing = len(run.failing - baseline)
    if run.exit_code == 1 and failing == 0 and not run.failing:
        failing = 1  # pytest failed without a JUnit failure (e.g. unittest subtests): count it as one
    if failing == 0:
        return "undetected", 0
    return ("good" if failing <= GOOD_MAX_FAILING else "broad"), failing


# --- one library ---------------------------------------------------------------------------------------------


def _copy_tree(source: Path, run_dir: Path) -> None:
    shutil.copytree(source, run_dir / "tree", symlinks=True)
    for path in (run_dir, *run_dir.rglob("*")):
        os.lchown(path, SANDBOX_UID, SANDBOX_UID)


def measure_library(release: str, args: argparse.Namespace, work: Path) -> tuple[list[MutantResult], float]:
    name, _, version = release.partition("==")
    pin = find_release(name, version)
    lib_work = work / pin.name
    pristine = unpack_sdist(fetch_sdist(pin), lib_work / "pristine")
    tests = list_test_files(pristine)
    test_paths = tuple(sorted({path.split("/")[0] for path in tests}))
    deps = ("pytest", *EXTRA_TEST_DEPS.get(pin.name, ()), *args.deps.get(pin.name, ()))
    venv = build_venv(lib_work, deps)
    candidates = mutate(pristine, seed=args.seed, limit=args.limit)
    run_dirs: Queue[Path] = Queue()
    for worker in range(args.jobs):
        run_dir = lib_work / f"run{worker}"
        run_dir.mkdir()
        _copy_tree(pristine, run_dir)
        run_dirs.put(run_dir)
    first = run_dirs.get()
    baseline = run_suite(first, venv, test_paths, timeout=600)
    run_dirs.put(first)
    if baseline.exit_code not in (0, 1) or not baseline.reported:
        raise SystemExit(f"{release}: the release's own suite does not run (pytest exit {baseline.exit_code})")
    timeout = max(TIMEOUT_FACTOR * baseline.seconds, TIMEOUT_FLOOR_SECONDS)
    print(f"{release}: {len(candidates)} candidates, baseline {baseline.seconds:.1f}s with "
          f"{len(baseline.failing)} failing tests excluded, timeout {timeout:.0f}s", file=sys.stderr)

    done, done_lock = [0], Lock()

    def judge(candidate: MutationCandidate) -> MutantResult:
        run_dir = run_dirs.get()
        try:
            apply_mutation(run_dir / "tree", candidate.site)
            try:
                run = run_suite(run_dir, venv, test_paths, timeout)
            finally:
                revert(run_dir / "tree", candidate.site, candidate.original)
        finally:
            run_dirs.put(run_dir)
        outcome, failing = classify(run, baseline.failing)
        with done_lock:
            done[0] += 1
            if done[0] % 25 == 0:
                print(f"{release}: {done[0]}/{len(candidates)} judged", file=sys.stderr, flush=True)
        site = candidate.site
        return MutantResult(pin.name, site.index, site.operator, site.file, site.function, outcome, failing,
                            round(run.seconds, 3))

    started = time.monotonic()
    pool = ThreadPoolExecutor(max_workers=args.jobs)
    try:
        results = list(pool.map(judge, candidates))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # on Ctrl-C: finish the running mutant, drop the rest
    elapsed = time.monotonic() - started
    print(f"{release}: judged {len(results)} mutants in {elapsed:.0f}s", file=sys.stderr)
    return results, elapsed


# --- report ------------------------------------------------------------------------------------------------


def _row(label: str, results: list[MutantResult], elapsed: float | None) -> str:
    counts = Counter(result.outcome for result in results)
    total = len(results) or 1
    cells = [f"{counts[c]:>4} {100 * counts[c] / total:>3.0f}%" for c in CLASSES]
    good_failing = [result.failing for result in results if result.outcome == "good"]
    median = f"{statistics.median(good_failing):>6.1f}" if good_failing else "     -"
    rates = ""
    if elapsed:
        rates = f"  {3600 * len(results) / elapsed:>8.0f}  {3600 * counts['good'] / elapsed:>8.0f}"
    return f"{label:<20} {len(results):>5}  " + "  ".join(cells) + f"  {median}" + rates


def print_tables(per_library: dict[str, tuple[list[MutantResult], float]]) -> None:
    header = f"{'library':<20} {'cands':>5}  " + "  ".join(f"{c:>9}" for c in CLASSES) + "  median"
    print(header + "  mutants/h  good/h")
    everything, total_elapsed = [], 0.0
    for library, (results, elapsed) in per_library.items():
        print(_row(library, results, elapsed))
        everything.extend(results)
        total_elapsed += elapsed
    if len(per_library) > 1:
        print(_row("all", everything, total_elapsed))
    print()
    print(f"{'operator':<20} {'cands':>5}  " + "  ".join(f"{c:>9}" for c in CLASSES) + "  median")
    by_operator = defaultdict(list)
    for result in everything:
        by_operator[result.operator].append(result)
    for operator in OPERATORS:
        if by_operator[operator]:
            print(_row(operator, by_operator[operator], None))


def _parse_deps(values: list[str]) -> dict[str, tuple[str, ...]]:
    deps = {}
    for value in values:
        library, _, names = value.partition("=")
        deps[library] = tuple(name for name in names.split(",") if name)
    return deps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("releases", nargs="+", metavar="LIB==VER")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=1, help="mutants judged in parallel (default 1)")
    parser.add_argument("--deps", action="append", default=[], help="extra test deps: LIB=dep1,dep2")
    parser.add_argument("--json", type=Path, default=None, help="write one JSON line per mutant here")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args(argv)
    args.deps = _parse_deps(args.deps)
    if os.geteuid() != 0:
        raise SystemExit("run as root: the sandbox drops to an unprivileged uid with setpriv")
    work = Path(tempfile.mkdtemp(prefix="mutation-yield-"))
    os.chmod(work, 0o755)
    try:
        per_library = {}
        for release in args.releases:
            per_library[release] = measure_library(release, args, work)
        if args.json:
            lines = [json.dumps(asdict(r), sort_keys=True) for rs, _ in per_library.values() for r in rs]
            args.json.write_text("\n".join(lines) + "\n")
        print_tables(per_library)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
