"""Harness overhead of scoring one certified task with a ready environment, against bare pytest.

    python benchmarks/harness_overhead.py [--task synthetic.caesar_shift] [--repeats 61]
    python benchmarks/harness_overhead.py --task mutation.idna.3.10.047e7b84

Both sides run in the same sandbox, image and venv, on the same tree:
  scored  — what `bench score` does per attempt once the model has answered: copy the pristine tree, apply
            the reply's SEARCH/REPLACE edits, scan what the edit adds, run the test files guarded (launcher
            with the audit hook, read-only tests, canaries, decoys, masks) with JUnit XML through a channel,
            parse, grade (the verdict cache is off), remove the attempt's folder;
  bare    — `python -m pytest <the task's test files>` on the already-edited tree, nothing else: the tests a
            verdict needs (fail_to_pass and pass_to_pass live in them), without the harness around them.
Prints the median of each and the ratio scored / bare, measured in one run (the machine is shared, so only
the ratio means anything).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.sandbox.protocol import ExecRequest
from bench.score.evaluate import evaluate
from bench.testing.support import prepared_task, whole_file_edit
from bench.verdict.run_tests import BASE_ENV


def reference_reply(task, scratch: Path) -> str:
    """The task's own fix as a reply: a synthetic task's reference, a PR's fix commit, a mutation's revert."""
    from bench.source.workspace import prepare

    spec = task.spec
    fixed = prepare(spec, "fix", scratch / "fix").path
    parts = []
    for path in spec.source_files:
        old, new = (task.pristine / path).read_text(), (fixed / path).read_text()
        if old != new:
            parts.append(whole_file_edit(path, old, new))
    return "\n".join(parts)


class CpuMeter:
    """CPU seconds a side used: the harness process's own (``process_time``) plus what each sandboxed run's
    cgroup counted. Less moved by other work on a shared machine than the wall clock."""

    def __init__(self, sandbox) -> None:
        self.sandboxed = 0.0
        self._run = sandbox.run
        sandbox.run = self._counted

    def _counted(self, request):
        result = self._run(request)
        self.sandboxed += result.cpu_seconds or 0.0
        return result

    def measure(self, side, *args) -> tuple[float, float]:
        """(wall seconds, CPU seconds) of one call of ``side``."""
        before, host = self.sandboxed, time.process_time()
        wall = side(*args)
        return wall, time.process_time() - host + self.sandboxed - before


def time_scored(task, reply: str, scratch: Path) -> float:
    """One attempt as ``bench.score.attempt`` makes it: a copy of the pristine tree in the attempt's own scratch
    folder (the host's tmpfs where it fits), the edit, the verdict, and the folder removed again."""
    from bench.sandbox.cleanup import tree_scratch

    started = time.perf_counter()
    with tree_scratch(task.pristine, "bench-overhead-") as folder:
        tree = folder / "tree"
        shutil.copytree(task.pristine, tree, symlinks=True)
        # as a single attempt does, the verified tier aside (benchmarks/verified_overhead.py measures that)
        result = evaluate(task, tree, reply, cache=None, fresh_copy=False, verify=False)
    elapsed = time.perf_counter() - started
    assert result.resolved, result.reason
    return elapsed


def time_bare(task, tree: Path) -> float:
    argv = (task.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *task.spec.test_files)
    request = ExecRequest(argv=argv, workdir=tree, image_root=task.image_root, image_digest=task.image_digest,
                          env=tuple(BASE_ENV) + tuple(task.env), mounts=tuple(task.mounts))
    started = time.perf_counter()
    result = task.sandbox.run(request)
    elapsed = time.perf_counter() - started
    assert result.exit_code == 0, result.stdout[-500:]
    return elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="synthetic.caesar_shift")
    # The ratio of one run of 15 repeats moved by about ±0.05 on a shared machine; 61 narrow that.
    parser.add_argument("--repeats", type=int, default=61)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as scratch:
        scratch = Path(scratch)
        task = prepared_task(args.task, scratch / "prepared")
        reply = reference_reply(task, scratch)
        edited = scratch / "edited"
        shutil.copytree(task.pristine, edited, symlinks=True)
        evaluate(task, edited, reply)  # leaves the solved tree for the bare runs (and warms the page cache)
        meter = CpuMeter(task.sandbox)
        scored, bare = [], []
        for _ in range(args.repeats):  # interleaved, so load on the machine hits both sides alike
            scored.append(meter.measure(time_scored, task, reply, scratch))
            bare.append(meter.measure(time_bare, task, edited))
    print(f"task {args.task}, {args.repeats} repeats, sandbox {task.sandbox.name}")
    for index, what in ((0, "wall"), (1, "CPU")):
        s, b = statistics.median(x[index] for x in scored), statistics.median(x[index] for x in bare)
        low, high = ratio_interval([x[index] for x in scored], [x[index] for x in bare])
        print(f"{what:4s}: scored attempt (copy + edit + sandboxed pytest + JUnit + grade) median {s * 1000:.0f} ms, "
              f"bare pytest of the task's test files in the same sandbox and venv {b * 1000:.0f} ms")
        print(f"{what:4s}: overhead ratio scored / bare = {s / b:.3f} (90 % bootstrap interval {low:.3f}-{high:.3f})")
    return 0


def ratio_interval(scored: list[float], bare: list[float], rounds: int = 2000) -> tuple[float, float]:
    """The 5th and 95th percentiles of the ratio of medians over resampled runs (seeded: the same times give
    the same interval). On a shared machine one run's ratio moves by a few hundredths; this says how far."""
    import random

    rng = random.Random(0)
    ratios = sorted(statistics.median(rng.choices(scored, k=len(scored)))
                    / statistics.median(rng.choices(bare, k=len(bare))) for _ in range(rounds))
    return ratios[int(0.05 * rounds)], ratios[int(0.95 * rounds) - 1]


if __name__ == "__main__":
    sys.exit(main())
