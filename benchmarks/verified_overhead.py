"""Cost of the verified tier: the probe replay a resolved candidate gets, against the resolved verdict's own run.

    python benchmarks/verified_overhead.py [--task synthetic.caesar_shift] [--repeats 9]
    python benchmarks/verified_overhead.py --task mutation.idna.3.10.047e7b84

Warm environment (the task prepared, its probe set built and cached before timing starts). Both sides judge
the task's own fix, with the verdict and verification caches off:
  resolved — what scoring does to reach ``resolved``: copy the pristine tree, apply the reply, scan the edit,
             run the tests guarded, grade;
  verified — the same with the verified tier: a fresh copy of the pristine tree with the candidate's source
             files, the probe set's inputs replayed in a new sandbox, outputs compared on the host. The replay
             starts beside the test run (bench.score.probe_sets.begin_verification) and is read only when the
             verdict is resolved, so its time hides behind the run's where a second core is free;
  replay   — the check alone, after the verdict (what it costs in CPU time, run by itself).
Prints the medians and the ratio verified / resolved, measured in one run with the sides interleaved (the
machine is shared: only the ratios mean anything). The tier's bar is 1.3.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.score.evaluate import evaluate
from bench.score.probe_sets import probe_set_for
from bench.testing.support import prepared_task

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness_overhead import reference_reply  # noqa: E402  (a sibling script)


def time_one(task, reply: str, scratch: Path, *, verify: bool) -> float:
    tree = scratch / "tree"
    shutil.copytree(task.pristine, tree, symlinks=True)
    started = time.perf_counter()
    result = evaluate(task, tree, reply, cache=None, fresh_copy=False, verify=verify)
    elapsed = time.perf_counter() - started
    assert result.resolved, result.reason
    assert not verify or result.verified, result.verification
    shutil.rmtree(tree)
    return elapsed


def time_replay(task, reply: str, scratch: Path) -> float:
    from bench.score.evaluate import apply_reply, source_snapshot
    from bench.score.probe_sets import verify_candidate

    tree = scratch / "replayed"
    shutil.copytree(task.pristine, tree, symlinks=True)
    apply_reply(tree, reply, task.spec.source_files)
    sources = source_snapshot(tree, task.spec.source_files)
    started = time.perf_counter()
    result = verify_candidate(task, sources)
    elapsed = time.perf_counter() - started
    assert result.verified, result
    shutil.rmtree(tree)
    return elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="synthetic.caesar_shift")
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-verified-") as scratch:
        scratch = Path(scratch)
        task = prepared_task(args.task, scratch / "prepared")
        reply = reference_reply(task, scratch)
        probes = probe_set_for(task)  # built (or read from the cache) before timing: a warm environment
        time_one(task, reply, scratch, verify=True)  # warms the page cache for both sides
        resolved, verified, alone = [], [], []
        for _ in range(args.repeats):
            resolved.append(time_one(task, reply, scratch, verify=False))
            verified.append(time_one(task, reply, scratch, verify=True))
            alone.append(time_replay(task, reply, scratch))
    r, v, a = statistics.median(resolved), statistics.median(verified), statistics.median(alone)
    print(f"task {args.task}, {args.repeats} repeats, {len(probes.probes)} probes, sandbox {task.sandbox.name}")
    print(f"resolved verdict (copy + edit + scan + guarded pytest + grade): median {r * 1000:.0f} ms")
    print(f"resolved + verified (… + fresh tree + probe replay + host comparison): median {v * 1000:.0f} ms")
    print(f"the replay alone, after the verdict (fresh tree + sandbox + replay + comparison): median {a * 1000:.0f} ms")
    print(f"ratio verified / resolved = {v / r:.3f} (bar: 1.3); (resolved + replay alone) / resolved = {(r + a) / r:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
