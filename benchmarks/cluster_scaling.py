"""Wall time of the same scoring work on local threads and on a Dask cluster of 1 and of 2 workers.

    python benchmarks/cluster_scaling.py [--model scripted/study] [--tasks 'synthetic.*'] [--limit 20] [--turns 3]
    python benchmarks/cluster_scaling.py --model repairer/ast --tasks 'kind:mutation' --limit 20

The work: a deterministic model's repair loops (both conditions) on the first --limit tasks of the selector
with the verdict cache off, so every turn is a real sandboxed test run (20 tasks: 40 units). Each configuration starts
cold (a fresh scratch folder for the local run, fresh worker processes for a cluster; the image, venvs and
certificates come from the shared cache in every case) and gives byte-identical results.jsonl, checked here.
Cluster start-up (a scheduler and the workers joining) is timed apart from the scoring. Prints wall times,
the ratios 2 workers / 1 worker and cluster-of-1 / local (1 thread), and the scheduler overhead per unit:
the cluster-of-1's wall time minus the sum of its units' own wall times, per unit. Measured within one run on
a shared machine: only the ratios mean anything.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from bench.model.protocol import ModelParams
from bench.testing.loopback_cluster import start_cluster
from bench.score.runner import RunPlan, run
from bench.spec.load import discover, load_all, select
from bench.variables import find_root


def plan_for(model: str, specs, out: Path, root: Path, turns: int, cluster: str | None) -> RunPlan:
    return RunPlan(model_id=model, specs=tuple(specs), out_dir=out, root=root, params=ModelParams(),
                   turns=turns, conditions=("full", "count-only"), workers=1, use_cache=False, cluster=cluster)


def timed(plan: RunPlan) -> tuple[float, bytes, float, str]:
    started = time.monotonic()
    result = run(plan)
    wall = time.monotonic() - started
    units = [json.loads(line) for line in (plan.out_dir / "timings.jsonl").read_text().splitlines()]
    busy = sum(u["wall_seconds"] for u in units)
    lines = result.execution.lines()[0] if result.execution is not None else ""
    per_worker: dict[str, float] = {}
    for unit in units:
        per_worker[unit.get("worker", "local")] = per_worker.get(unit.get("worker", "local"), 0.0) + unit["wall_seconds"]
    if len(per_worker) > 1:  # whether a cluster's workers were busy alike (imbalance) or slowed down (contention)
        lines += "; busy seconds per worker: " + ", ".join(f"{v:.1f}" for _, v in sorted(per_worker.items()))
    return wall, result.results_path.read_bytes(), busy, lines


def on_cluster(model: str, workers: int, specs, scratch: Path, root: Path,
               turns: int) -> tuple[float, float, bytes, float, str]:
    started = time.monotonic()
    with start_cluster(workers, root=root, log_dir=scratch / f"cluster-{workers}") as cluster:
        startup = time.monotonic() - started
        wall, results, busy, line = timed(plan_for(model, specs, scratch / f"out-{workers}", root, turns,
                                                   cluster.address))
    return startup, wall, results, busy, line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="scripted/study", help="a deterministic model")
    parser.add_argument("--tasks", default="synthetic.*")
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--turns", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("BENCH_NO_PROGRESS", "1")
    root = find_root()
    specs = sorted(select(load_all(discover(root)), args.tasks), key=lambda s: s.task_id)[: args.limit]
    units = 2 * len(specs)
    with tempfile.TemporaryDirectory(prefix="bench-cluster-scaling-") as folder:
        scratch = Path(folder)
        local, local_results, local_busy, _ = timed(plan_for(args.model, specs, scratch / "out-local", root,
                                                             args.turns, None))
        start1, one, one_results, one_busy, line1 = on_cluster(args.model, 1, specs, scratch, root, args.turns)
        start2, two, two_results, _, line2 = on_cluster(args.model, 2, specs, scratch, root, args.turns)
    assert local_results == one_results == two_results, "results.jsonl differ between executors"
    print(f"work: {args.model}, {len(specs)} tasks x 2 conditions = {units} loop units of up to {args.turns} "
          f"turns, verdict cache off; results.jsonl byte-identical across the three runs")
    print(f"local executor, 1 thread : {local:7.1f} s  (sum of unit walls {local_busy:.1f} s)")
    print(f"cluster of 1 worker      : {one:7.1f} s  (start-up {start1:.1f} s, sum of unit walls {one_busy:.1f} s)")
    print(f"cluster of 2 workers     : {two:7.1f} s  (start-up {start2:.1f} s)")
    print(f"  {line1}\n  {line2}")
    print(f"speed-up 2 workers / 1 worker   : {one / two:.2f}x  (wall time 1 worker / 2 workers)")
    print(f"ratio cluster-of-1 / local      : {one / local:.2f}  (wall time)")
    print(f"scheduler overhead per unit     : {(one - one_busy) / units * 1000:.0f} ms "
          f"(cluster-of-1 wall minus its units' own walls; local: {(local - local_busy) / units * 1000:.0f} ms)")
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")


if __name__ == "__main__":  # the cluster's processes are started from here, never on import
    main()
