"""`bench goal plan|unit|merge`: the steps `./pants score` runs as cached processes (bench.score.goal).

Not meant to be typed: the goal passes each step exactly the arguments that decide its output, so Pants can
key its cache by them. Each step takes `bench score`'s settings options.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

EPILOG = """what ./pants score runs (docs/scaling.md):
  bench goal plan --model repairer --turns 3 tasks/synthetic/caesar_shift.json ...
      print the units of each task and the files they read besides the task's (JSON)
  bench goal unit --model repairer --turns 3 --spec tasks/synthetic/caesar_shift.json --unit loop:full:0 --out u.json
      score one unit; its record lacks the run's context (commit, pool hash)
  bench goal merge --model repairer --turns 3 --commit SHA --out run/ --spec ... --units u1.json u2.json ...
      write the run folder bench score writes, results.jsonl byte for byte
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    from bench.cli.score import add_settings_arguments

    p = sub.add_parser("goal", help="the steps of ./pants score (one plan, one process per unit, one merge)",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = p.add_subparsers(dest="step", metavar="STEP")
    steps.required = True
    plan = steps.add_parser("plan", help="the units of each task, as JSON on stdout")
    plan.add_argument("specs", nargs="+", type=Path, help="the run's task specs")
    unit = steps.add_parser("unit", help="score one unit into a unit file")
    unit.add_argument("--spec", type=Path, required=True, help="the task's spec")
    unit.add_argument("--unit", required=True, help="KIND:CONDITION:SAMPLE, as the plan names it")
    unit.add_argument("--out", type=Path, required=True, help="the unit file to write")
    merge = steps.add_parser("merge", help="the units' files into a run folder")
    merge.add_argument("--commit", required=True, help="the commit the records name (the checkout's HEAD)")
    merge.add_argument("--out", type=Path, required=True, help="the run folder to write (new or empty)")
    merge.add_argument("--spec", dest="specs", type=Path, nargs="+", required=True, help="the run's task specs")
    merge.add_argument("--units", type=Path, nargs="+", required=True, help="unit files from `bench goal unit`")
    merge.add_argument("--no-report", action="store_true", help="do not build the report")
    for step in (plan, unit, merge):
        step.add_argument("--model", required=True, help="provider/name of a deterministic model")
        step.add_argument("--samples", type=int, default=1, help="independent draws per task")
        step.add_argument("--no-cache", action="store_true", help="do not reuse cached verdicts")
        add_settings_arguments(step)
        step.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bench.score import goal

    if args.step == "plan":
        plan = _plan(args, tuple(args.specs), out=Path("."))
        print(json.dumps(goal.plan_document(plan), indent=1, sort_keys=True))
        return 0
    if args.step == "unit":
        plan = _plan(args, (args.spec,), out=args.out.parent)
        goal.require_deterministic(plan.model_id)
        document = goal.score_unit(plan, goal.parse_unit_name(plan.specs[0], plan.model_id, args.unit))
        from bench.store.atomic import write_atomic
        from bench.store.canonical import canonical_json

        write_atomic(args.out, canonical_json(document) + b"\n")
        print(f"{document['task_id']} {args.unit}: {document['record'].get('outcome')}", file=sys.stderr)
        return 0
    import time

    from bench.cli.run_folder import conclude_run

    started = time.monotonic()
    plan = _plan(args, tuple(args.specs), out=args.out, commit=args.commit)
    goal.require_deterministic(plan.model_id)
    result = goal.merge(plan, args.units)
    return conclude_run(result, args.out, plan.model_id, report=not args.no_report,
                        wall_seconds=time.monotonic() - started)


def _plan(args, spec_paths, *, out: Path, commit: str | None = None):
    from bench.cli.score import context_settings, model_params, resolve_settings
    from bench.errors import UsageError
    from bench.score.runner import RunPlan
    from bench.spec.load import load_spec
    from bench.variables import find_root, get

    model_id, turns, conditions, _ = resolve_settings(args)
    if args.samples < 1:
        raise UsageError("--samples must be positive")
    root = find_root()
    specs = tuple(sorted((load_spec(root / path) for path in spec_paths), key=lambda spec: spec.task_id))
    return RunPlan(model_id=model_id, specs=specs, out_dir=out, root=root, params=model_params(args),
                   samples=args.samples, turns=turns, conditions=conditions, resample=args.resample, workers=1,
                   sandbox_name=get("BENCH_SANDBOX"), controller_id=args.controller,
                   controller_stateful=args.controller_stateful, use_cache=not args.no_cache, commit=commit,
                   edit_format=args.edit_format, context=context_settings(args, model_id),
                   feed_divergences=args.feed_divergences)
