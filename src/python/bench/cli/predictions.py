"""Scoring SWE-bench-style predictions: one JSON line per task with `instance_id` and `model_patch`.

Same rules as model replies (:mod:`bench.score.prediction`): the patch may touch only the task's source files,
applies all-or-nothing, and the task's tests decide. Part of `bench score --predictions FILE`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.errors import SpecError


def read_predictions(path: Path) -> list[dict]:
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SpecError(f"line {number}: not JSON: {exc}", kind="invalid_json", path=str(path)) from exc
        if not isinstance(item, dict) or not isinstance(item.get("instance_id"), str) \
                or not isinstance(item.get("model_patch"), (str, type(None))):
            raise SpecError(f"line {number}: needs instance_id (string) and model_patch (string)",
                            kind="bad_prediction", path=str(path))
        out.append(item)
    return out


def score_predictions(args) -> int:
    """Each line a unit (an attempt whose reply is the patch), run by the same executors as `bench score`:
    threads here (``--workers``) or a cluster (``--cluster``); records, resume and results as for models."""
    import time

    from bench.cli.run_folder import conclude_run
    from bench.errors import UsageError
    from bench.model.protocol import ModelParams
    from bench.score.runner import RunPlan, run
    from bench.score.units import Unit
    from bench.spec.load import discover, load_all
    from bench.variables import find_root, get

    root = find_root()
    predictions = read_predictions(args.predictions)
    specs = {s.task_id: s for s in load_all(discover(root))}
    unknown = sorted({p["instance_id"] for p in predictions} - set(specs))
    if unknown:
        raise SpecError(f"unknown instance ids: {', '.join(unknown[:5])}", kind="unknown_task",
                        path=str(args.predictions))
    if args.update_reference:
        raise UsageError("--update-reference is for models' reference runs, not predictions")
    out = args.out or root / "results" / "runs" / f"predictions-{args.predictions.stem}" / (args.name or "latest")
    units = [Unit(specs[p["instance_id"]], str(p.get("model_name_or_path") or "predictions"), "attempt", "single",
                  0, patch=p.get("model_patch") or "") for p in predictions]
    plan = RunPlan(model_id="", specs=tuple(u.spec for u in units), out_dir=out, root=root, params=ModelParams(),
                   workers=args.workers, sandbox_name=args.sandbox or get("BENCH_SANDBOX"), mirror=args.mirror,
                   use_cache=False, cluster=get("BENCH_CLUSTER") if args.cluster is None else args.cluster)
    started = time.monotonic()
    result = run(plan, units=_first_of_each(units))
    if plan.cluster and result.execution is not None:
        for line in result.execution.lines():
            print(line, file=sys.stderr)
    return conclude_run(result, out, "predictions", report=False, wall_seconds=time.monotonic() - started)


def _first_of_each(units: list) -> list:
    """One unit per (instance, model): a later line for the same pair is ignored, as a resumed run would."""
    seen, kept = set(), []
    for unit in units:
        if unit.key not in seen:
            seen.add(unit.key)
            kept.append(unit)
    return kept
