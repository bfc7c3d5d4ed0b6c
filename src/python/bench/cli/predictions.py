"""Scoring SWE-bench-style predictions: one JSON line per task with `instance_id` and `model_patch`.

Same rules as model replies (:mod:`bench.score.prediction`): the patch may touch only the task's source files,
applies all-or-nothing, and the task's tests decide. Part of `bench score --predictions FILE`.

A verdict is never reported for a patch other than the file's: a resumed unit is reused only when its record's
patch hash and task hashes are the current ones (:func:`stale_units`). The run writes ``run.json`` (what kind of
run it is) and keeps each patch in ``store/`` by its sha256, so ``bench verify`` can score it again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.errors import SpecError, UsageError

PREDICTIONS_EPILOG = """\
Predictions (--predictions FILE): one unit per line. An instance_id on more than one line (for one
model_name_or_path) is an error naming the lines (exit 2), unless those lines are byte for byte the same: then a
warning, and it is scored once. A resumed unit is reused only if its recorded patch (sha256) and task (spec and
lock hashes) are the current ones; otherwise it runs again, and the run says how many did and why. --tasks keeps
the lines of the selected tasks; model options (--model, --turns, --samples, sampling and prompt options) are
refused. The folder holds run.json and each patch in store/: `bench verify <folder>` scores every patch again.
"""

# Options of `bench score` that decide what a model is asked and how it answers: a prediction has no model.
MODEL_OPTIONS = ("model", "turns", "samples", "condition", "both_conditions", "resample", "controller",
                 "controller_stateful", "temperature", "seed", "max_tokens", "reasoning_budget", "context_size",
                 "thinking", "timeout", "edit_format", "context", "context_budget", "tokenizer", "feed_divergences")


def read_predictions(path: Path) -> tuple[list[dict], list[str]]:
    """The predictions of ``path`` (one per instance and model name) and warnings about lines repeated byte for
    byte. A missing file is a usage error; an instance on several different lines is bad input."""
    if not path.is_file():
        raise UsageError(f"--predictions {path}: no such file")
    out, first_line, lines_of, texts = [], {}, {}, {}
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
        key = (item["instance_id"], model_name(item))
        lines_of.setdefault(key, []).append(number)
        texts.setdefault(key, set()).add(line)
        if key not in first_line:
            first_line[key] = number
            out.append(item)
    repeated = {key: numbers for key, numbers in lines_of.items() if len(numbers) > 1}
    differing = sorted((numbers, key) for key, numbers in repeated.items() if len(texts[key]) > 1)
    if differing:
        named = "; ".join(f"{_named(key)} on lines {', '.join(map(str, numbers))}" for numbers, key in differing)
        raise SpecError(f"{len(differing)} instance(s) have more than one prediction: {named}; keep one line each",
                        kind="duplicate_instance", path=str(path))
    warnings = [f"warning: {path}: {_named(key)} is on lines {', '.join(map(str, numbers))}, byte for byte the "
                "same: scored once" for key, numbers in sorted(repeated.items(), key=lambda item: item[1])]
    return out, warnings


def model_name(item: dict) -> str:
    return str(item.get("model_name_or_path") or "predictions")


def _named(key: tuple[str, str]) -> str:
    return key[0] if key[1] == "predictions" else f"{key[0]} ({key[1]})"


def refuse_model_options(args) -> None:
    """A prediction has no model: options that only shape a model's run are refused, not ignored."""
    from bench.cli.main import build_parser

    defaults = build_parser().parse_args(["score"])
    given = [f"--{name.replace('_', '-')}" for name in MODEL_OPTIONS if getattr(args, name) != getattr(defaults, name)]
    if given:
        raise UsageError(f"{', '.join(given)}: {'these options shape' if len(given) > 1 else 'this option shapes'} "
                         "a model's run, and --predictions scores given patches; leave them out")
    if args.update_reference:
        raise UsageError("--update-reference is for models' reference runs, not predictions")


def stale_units(out: Path, units: list, root: Path) -> tuple[set, dict[str, int]]:
    """Keys of the units recorded in ``out`` whose record is not of this unit: another patch (its sha256), or the
    task changed (its spec or lock hash), or another runner; with how many for each reason. Records of
    infrastructure errors are left to --retry-errors."""
    from bench.loop.records import Outcome
    from bench.score.units import RUNNER_VERSION, record_key
    from bench.spec.load import spec_sha256
    from bench.store.canonical import sha256_bytes
    from bench.store.records import read_records

    recorded = {record_key(r): r for r in read_records(out / "records.jsonl")}
    stale, reasons = set(), {}
    for unit in units:
        record = recorded.get(unit.key)
        if record is None or record.get("outcome") == Outcome.INFRASTRUCTURE_ERROR.value:
            continue
        integrity = record.get("integrity") or {}
        lock = sha256_bytes((root / unit.spec.lockfile).read_bytes())
        if record.get("response_sha256") != sha256_bytes((unit.patch or "").encode("utf-8")):
            why = "their patch changed"
        elif integrity.get("spec_sha256") != spec_sha256(unit.spec) or integrity.get("lock_sha256") != lock:
            why = "their task changed"
        elif record.get("runner_version") != RUNNER_VERSION:
            why = "the runner changed"
        else:
            continue
        stale.add(unit.key)
        reasons[why] = reasons.get(why, 0) + 1
    return stale, reasons


def score_predictions(args) -> int:
    """Each line a unit (an attempt whose reply is the patch), run by the same executors as `bench score`:
    threads here (``--workers``) or a cluster (``--cluster``); records, resume and results as for models."""
    import shutil
    import time

    from bench.cli.run_folder import again_command, check_destination, conclude_run, folder_slug, run_folder
    from bench.model.protocol import ModelParams
    from bench.score.prediction import keep_patch, predictions_settings
    from bench.score.runner import RunPlan, run
    from bench.score.units import Unit
    from bench.spec.load import discover, load_all, select
    from bench.variables import find_root, get

    refuse_model_options(args)
    root = find_root()
    predictions, warnings = read_predictions(args.predictions)
    for warning in warnings:
        print(warning, file=sys.stderr)
    specs = {s.task_id: s for s in load_all(discover(root))}
    unknown = sorted({p["instance_id"] for p in predictions} - set(specs))
    if unknown:
        raise SpecError(f"unknown instance ids: {', '.join(unknown[:5])}", kind="unknown_task",
                        path=str(args.predictions))
    if args.tasks:
        chosen = {s.task_id for s in select(tuple(specs.values()), args.tasks)}
        kept = [p for p in predictions if p["instance_id"] in chosen]
        print(f"{len(kept)} of {len(predictions)} predictions are of tasks selected by {args.tasks!r}", file=sys.stderr)
        predictions = kept
    out = run_folder(root, f"predictions-{folder_slug(args.predictions.stem)}", out=args.out,
                     name=args.name or (None if args.out else "latest"), reference=False)
    sandbox = args.sandbox or get("BENCH_SANDBOX")
    settings = predictions_settings(sandbox, args.predictions)
    check_destination(root, out, settings, None, reference=False, discard=args.no_resume, ignored=("predictions",))
    if args.no_resume and out.exists():
        shutil.rmtree(out)
    units = [Unit(specs[p["instance_id"]], model_name(p), "attempt", "single", 0, patch=p.get("model_patch") or "")
             for p in predictions]
    rerun, reasons = stale_units(out, units, root)
    if reasons:
        print(f"{len(rerun)} recorded unit(s) run again: "
              + ", ".join(f"{n} because {why}" for why, n in sorted(reasons.items())), file=sys.stderr)
    _write_settings(out, settings)
    for unit in units:
        keep_patch(out / "store", unit.patch)
    plan = RunPlan(model_id="", specs=tuple(u.spec for u in units), out_dir=out, root=root, params=ModelParams(),
                   workers=args.workers, sandbox_name=sandbox, mirror=args.mirror, use_cache=False,
                   retry_errors=args.retry_errors, cluster=get("BENCH_CLUSTER") if args.cluster is None else args.cluster)
    if not args.no_preflight and not plan.cluster:
        from bench.score.preflight import check_sources

        check_sources(tuple({u.spec.task_id: u.spec for u in units}.values()), args.mirror)
    started = time.monotonic()
    result = run(plan, units=units, rerun=rerun)
    if plan.cluster and result.execution is not None:
        for line in result.execution.lines():
            print(line, file=sys.stderr)
    return conclude_run(result, out, "predictions", report=not args.no_report, wall_seconds=time.monotonic() - started,
                        again=again_command(args, out, add=("--retry-errors",)))


def _write_settings(out: Path, settings: dict) -> None:
    from bench.store.atomic import write_atomic

    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "run.json", json.dumps(settings, indent=2, sort_keys=True).encode() + b"\n")
