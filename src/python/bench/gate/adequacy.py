"""Test adequacy, per task: would the task's tests catch a near miss of its fix?

A near miss is the fixed code with one more single-site mutation (the mutation engine's operators, every
verified site) inside the function(s) enclosing the lines the fix changed — for a PR task the lines the fix
commit changed in its source files, for a mutation task the injected span (whose own inverse, the task's
bug, is left out). Each near miss runs the task's test files once in the sandbox, in the certified
environment; it is **killed** when a fail_to_pass or pass_to_pass test does not pass (or the run times out or
reports nothing), and **survives** when every one passes: a wrong fix the tests would take for right.

The fixed tree runs once first: every target must pass there (else nothing is measured, and the note says
why), and a near miss gets the mutation gate's time limit, ``TIMEOUT_FACTOR`` × that run's wall time (at least
``TIMEOUT_FLOOR_SECONDS``): one that loops costs seconds and counts as killed.

The result names survivors by file, operator and span — never code — and is cached under the certificate's
inputs, the engine's version and this module's (:data:`ADEQUACY_VERSION`).
"""

from __future__ import annotations

import difflib
import hashlib
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

ADEQUACY_VERSION = "3"
MAX_NEAR_MISSES = 24  # per task, chosen by a seeded hash when a region holds more


@dataclass(frozen=True)
class Survivor:
    file: str
    operator: str
    lineno: int
    start: int
    end: int


@dataclass(frozen=True)
class Adequacy:
    task_id: str
    version: str
    made: int  # near misses the region proposes (sites, before each is checked to parse as intended)
    run: int  # near misses run (at most MAX_NEAR_MISSES)
    killed: int
    survivors: tuple[Survivor, ...]
    note: str = ""  # why nothing could be made, when nothing was

    @property
    def score(self) -> float | None:
        """Killed / run: 1.0 when the tests catch every near miss; None when none could be made."""
        return self.killed / self.run if self.run else None

    def to_json(self) -> dict:
        return {"task_id": self.task_id, "version": self.version, "made": self.made, "run": self.run,
                "killed": self.killed, "note": self.note,
                "survivors": [[s.file, s.operator, s.lineno, s.start, s.end] for s in self.survivors]}

    @classmethod
    def from_json(cls, data: dict) -> Adequacy:
        return cls(data["task_id"], data["version"], data["made"], data["run"], data["killed"],
                   tuple(Survivor(*row) for row in data["survivors"]), data.get("note", ""))


def changed_lines(before: str, after: str) -> set[int]:
    """1-based lines of ``after`` that the change from ``before`` added or rewrote; a pure deletion marks the
    line that now stands where the deleted lines were."""
    old, new = before.splitlines(), after.splitlines()
    lines: set[int] = set()
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            lines.update(range(j1 + 1, j2 + 1))
        elif tag == "delete":
            lines.add(min(j1 + 1, max(len(new), 1)))
    return lines


def regions(spec, fixed: Path, base: Path) -> dict[str, set[int]]:
    """path -> the lines of the fixed tree whose enclosing functions hold the near misses."""
    if spec.mutation is not None:  # the fixed code is the release; the bug sat on the mutated lines
        text = (fixed / spec.mutation.file).read_text(encoding="utf-8", errors="replace")
        first = text.encode("utf-8")[: spec.mutation.start].count(b"\n") + 1
        last = text.encode("utf-8")[: spec.mutation.end].count(b"\n") + 1
        return {spec.mutation.file: set(range(first, last + 1))}
    found = {}
    for path in spec.source_files:
        after = (fixed / path).read_text(encoding="utf-8", errors="replace") if (fixed / path).is_file() else ""
        before = (base / path).read_text(encoding="utf-8", errors="replace") if (base / path).is_file() else ""
        lines = changed_lines(before, after)
        if lines and after:
            found[path] = lines
    return found


def _rank(task_id: str, file: str, start: int, end: int, operator: str, text: str) -> str:
    key = f"{ADEQUACY_VERSION}|{task_id}|{file}|{start}|{end}|{operator}|{text}"
    return hashlib.sha256(key.encode()).hexdigest()


def near_misses_of(spec, fixed: Path, base: Path, limit: int = MAX_NEAR_MISSES) -> tuple[int, list]:
    """How many near misses the task's region proposes, and at most ``limit`` of them, verified (each a
    bench.mutate.engine.MutationCandidate of the fixed tree), chosen by a seeded hash of their identity (stable
    across runs and machines) and sorted by place. Sites are ranked first and verified in rank order until
    enough are found: the same choice as verifying all, without re-parsing a large file for every site."""
    from bench.mutate.engine import near_miss_sites, verify

    proposed, seen = [], set()
    for path, lines in sorted(regions(spec, fixed, base).items()):
        for function, site in near_miss_sites(fixed, path, lines)[1]:
            identity = (path, site.start, site.end, site.operator, site.edits[0][2])
            own_bug = spec.mutation is not None and (path, site.start, site.end) == (
                spec.mutation.file, spec.mutation.start, spec.mutation.end)
            if identity not in seen and not own_bug:
                seen.add(identity)
                proposed.append((_rank(spec.task_id, *identity), function, site))
    chosen = []
    for _, function, site in sorted(proposed, key=lambda item: item[0]):
        if len(chosen) == limit:
            break
        if (candidate := verify(function, site)) is not None:
            chosen.append(candidate)
    chosen.sort(key=lambda c: (c.site.file, c.site.start, c.site.end, c.site.operator, c.site.replacement))
    return len(proposed), chosen


def killed(run, targets: tuple[str, ...]) -> bool:
    """Whether a run of a near miss tells it from the fix: a target test does not pass, or no verdict at all."""
    if run.timed_out or run.report is None:
        return True
    outcomes = {o.test_id: o.outcome for o in run.report.outcomes}
    return any(outcomes.get(test_id) != "passed" for test_id in targets)


def caught_early(run, fail_to_pass: tuple[str, ...]) -> bool:
    """A run of the fail_to_pass tests alone that tells the near miss from the fix: it timed out, or it reported
    every one of them and one does not pass. Anything else (no report, a test it did not find) is not decisive."""
    if run.timed_out:
        return True
    if run.report is None:
        return False
    outcomes = {o.test_id: o.outcome for o in run.report.outcomes}
    return set(fail_to_pass) <= set(outcomes) and any(outcomes[test_id] != "passed" for test_id in fail_to_pass)


def measure(spec, root: Path, *, sandbox_name: str = "bwrap", mirror: Path | None = None,
            limit: int = MAX_NEAR_MISSES) -> Adequacy:
    """Run every chosen near miss of a certified task once (uncached; see :func:`adequacy`)."""
    from bench.environment.image import ensure_image, unpack_image
    from bench.environment.venv import ensure_venv, prepare_workspace_env
    from bench.gate.certify import GATE_LIMITS, lock_path
    from bench.gate.mutation_batch import TIMEOUT_FACTOR, TIMEOUT_FLOOR_SECONDS
    from bench.sandbox.cleanup import remove_tree, scratch_dir
    from bench.sandbox.registry import get_sandbox
    from bench.source.mutation_site import apply_mutation
    from bench.source.workspace import prepare
    from bench.verdict.run_tests import RunEnvironment, run_tests

    image = ensure_image(spec.image, root=root)
    environment = ensure_venv(lock_path(spec, root), image, sandbox_name)
    targets = spec.fail_to_pass + spec.pass_to_pass
    with scratch_dir(prefix="bench-adequacy-") as scratch:
        fixed = prepare(spec, "fix", scratch / "fix", mirror=mirror).path
        base = prepare(spec, "base", scratch / "base", mirror=mirror).path
        made, chosen = near_misses_of(spec, fixed, base, limit)
        if not chosen:
            note = "no near miss: no operator applies in a function enclosing the change"
            return Adequacy(spec.task_id, ADEQUACY_VERSION, made, 0, 0, (), note)
        run_env = prepare_workspace_env(fixed, environment, overlay_dir=scratch / "overlay")
        where = RunEnvironment(get_sandbox(sandbox_name), unpack_image(image), image.digest, run_env.python,
                               tuple(run_env.env), tuple(run_env.mounts))

        def run_on(index: int, site, limits, tests: tuple[str, ...]):
            run_dir = scratch / f"run{index}"
            shutil.copytree(fixed, run_dir, symlinks=True)
            try:
                if site is not None:
                    apply_mutation(run_dir, site)
                return run_tests(where, workdir=run_dir, test_files=tests, limits=limits)
            finally:
                remove_tree(run_dir)

        baseline = run_on(-1, None, GATE_LIMITS, spec.test_files)
        if killed(baseline, targets):
            return Adequacy(spec.task_id, ADEQUACY_VERSION, made, 0, 0, (),
                            "the fixed code does not pass every target here: nothing measured")
        limits = replace(GATE_LIMITS, wall_seconds=max(TIMEOUT_FACTOR * baseline.wall_seconds, TIMEOUT_FLOOR_SECONDS))
        # The fail_to_pass tests alone first: they exercise the change, so most near misses fail there at a
        # fraction of the suite's time. Only when they all pass on the fixed code run alone too, and a near
        # miss passes them, does the whole run decide; either way the verdict is the whole run's.
        quick = not killed(run_on(-2, None, limits, spec.fail_to_pass), spec.fail_to_pass)
        survivors, caught = [], 0
        for index, candidate in enumerate(chosen):
            if quick and caught_early(run_on(index, candidate.site, limits, spec.fail_to_pass), spec.fail_to_pass):
                caught += 1
            elif killed(run_on(index, candidate.site, limits, spec.test_files), targets):
                caught += 1
            else:
                site = candidate.site
                survivors.append(Survivor(site.file, site.operator, site.lineno, site.start, site.end))
    return Adequacy(spec.task_id, ADEQUACY_VERSION, made, len(chosen), caught, tuple(survivors))


def adequacy(spec, root: Path, *, sandbox_name: str = "bwrap", mirror: Path | None = None,
             use_cache: bool = True) -> Adequacy:
    """The task's adequacy, cached under its certificate's inputs and the versions that decide it."""
    import json

    from bench.gate.certify import certificate_key
    from bench.mutate.engine import NEAR_MISS_VERSION
    from bench.store.action_cache import ActionCache

    cache = ActionCache("adequacy")
    key = cache.key({"certificate": certificate_key(spec, root, k=1, sandbox_name=sandbox_name),
                     "adequacy_version": ADEQUACY_VERSION, "engine_version": NEAR_MISS_VERSION,
                     "limit": MAX_NEAR_MISSES})
    if use_cache and (hit := cache.get(key)) is not None:
        return Adequacy.from_json(json.loads(hit))
    result = measure(spec, root, sandbox_name=sandbox_name, mirror=mirror)
    cache.put(key, json.dumps(result.to_json(), sort_keys=True).encode())
    return result
