"""Scoring SWE-bench-style predictions: one JSON line per task with `instance_id` and `model_patch`.

Same rules as model replies: the patch may touch only the task's source files, applies all-or-nothing, and
the task's tests decide. Part of `bench score --predictions FILE`.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from bench.errors import EditError, SpecError


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
    from bench.attempt.unified_diff import apply_unified_diff
    from bench.sandbox.cleanup import scratch_dir
    from bench.score.evaluate import judge, source_snapshot
    from bench.score.runner import benchmark_identity
    from bench.score.summary import summary_lines
    from bench.score.task_env import TaskPool
    from bench.score.units import Unit, base_record, record_key
    from bench.spec.load import discover, load_all
    from bench.store.action_cache import write_atomic
    from bench.store.canonical import canonical_json, sha256_bytes
    from bench.store.records import RecordWriter, read_records
    from bench.variables import find_root, get

    root = find_root()
    predictions = read_predictions(args.predictions)
    specs = {s.task_id: s for s in load_all(discover(root))}
    unknown = sorted({p["instance_id"] for p in predictions} - set(specs))
    if unknown:
        raise SpecError(f"unknown instance ids: {', '.join(unknown[:5])}", kind="unknown_task",
                        path=str(args.predictions))
    out = args.out or root / "results" / "runs" / f"predictions-{args.predictions.stem}"
    out.mkdir(parents=True, exist_ok=True)
    benchmark = benchmark_identity(root, [specs[p["instance_id"]] for p in predictions])
    done = {record_key(r) for r in read_records(out / "records.jsonl")}
    with tempfile.TemporaryDirectory(prefix="bench-preds-") as scratch, RecordWriter(out / "records.jsonl") as w:
        pool = TaskPool(root, Path(scratch), sandbox_name=args.sandbox or get("BENCH_SANDBOX"), mirror=args.mirror)
        for item in predictions:
            spec = specs[item["instance_id"]]
            unit = Unit(spec, str(item.get("model_name_or_path") or "predictions"), "attempt", "single", 0)
            if unit.key in done:
                continue
            task = pool.get(spec)
            record = base_record(unit, task.integrity, benchmark)
            patch = item.get("model_patch") or ""
            record["response_sha256"] = sha256_bytes(patch.encode())
            with scratch_dir(prefix="bench-pred-") as attempt:
                tree = Path(attempt) / "tree"
                shutil.copytree(task.pristine, tree, symlinks=True)
                try:
                    if not patch.strip():
                        raise EditError("empty model_patch", reason="no_edits")
                    apply_unified_diff(tree, patch, spec.source_files)
                except EditError as exc:
                    record.update(outcome="invalid_edit", resolved=False, reason=str(exc))
                else:
                    verdict = judge(task, tree, source_snapshot(tree, spec.source_files), fresh_copy=False)
                    record.update(outcome=verdict.outcome, resolved=verdict.resolved, reason=verdict.reason,
                                  still_failing=list(verdict.still_failing),
                                  pass_to_pass_broken=list(verdict.pass_to_pass_broken))
            w.append(record)
    records = sorted(read_records(out / "records.jsonl"), key=record_key)
    write_atomic(out / "results.jsonl", b"".join(canonical_json(r) + b"\n" for r in records))
    for line in summary_lines(records):
        print(line)
    return 0
