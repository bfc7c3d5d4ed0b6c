"""Scoring one SWE-bench-style prediction (a unified diff) on a prepared task: the unit a line of
``bench score --predictions`` becomes, run by any executor like a model's attempt.

Same rules as model replies: the patch may touch only the task's source files, applies all-or-nothing, and
the task's tests decide.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from bench.errors import EditError


def score_patch(task, patch: str) -> tuple[dict, dict, dict]:
    """The record fields (by name) of ``patch`` applied to a copy of the task's pristine tree, its timing and its
    detail for `bench view`."""
    from bench.attempt.unified_diff import apply_unified_diff
    from bench.loop.records import Outcome
    from bench.sandbox.cleanup import tree_scratch
    from bench.score.attempt import turn_detail, verification_fields
    from bench.score.evaluate import full_feedback, judge, source_snapshot, verify_resolved
    from bench.store.canonical import sha256_bytes

    fields: dict = {"response_sha256": sha256_bytes(patch.encode())}
    started = time.monotonic()
    with tree_scratch(task.pristine, "bench-pred-") as attempt:
        tree = Path(attempt) / "tree"
        shutil.copytree(task.pristine, tree, symlinks=True)
        try:
            if not patch.strip():
                raise EditError("empty model_patch", reason="no_edits")
            apply_unified_diff(tree, patch, task.spec.source_files)
        except EditError as exc:
            fields.update(outcome=Outcome.INVALID_EDIT, resolved=False, reason=str(exc))
            detail = {"turns": [turn_detail(1, "invalid_edit", reason=str(exc), diff=patch)]}
        else:
            sources = source_snapshot(tree, task.spec.source_files)
            verdict = judge(task, tree, sources, fresh_copy=False)
            fields.update(verification_fields(verify_resolved(task, verdict, sources)))
            fields.update(outcome=Outcome(verdict.outcome), resolved=verdict.resolved, reason=verdict.reason,
                          still_failing=tuple(verdict.still_failing),
                          pass_to_pass_broken=tuple(verdict.pass_to_pass_broken))
            feedback = "" if verdict.resolved else full_feedback(verdict, verdict.failures)
            detail = {"turns": [turn_detail(1, verdict.outcome, reason=feedback, diff=patch)]}
    return fields, {"verdict_seconds": round(time.monotonic() - started, 3)}, detail


PREDICTIONS_KIND = "predictions"


def predictions_settings(sandbox_name: str, source: Path) -> dict:
    """``run.json`` of a predictions run: what kind of run it is and what decides its verdicts besides each
    line (the sandbox, the runner); ``predictions`` names the file last scored into it (informative: each unit's
    record names its own patch by hash)."""
    from bench.score.units import RUNNER_VERSION
    from bench.store.canonical import sha256_bytes

    return {"kind": PREDICTIONS_KIND, "runner_version": RUNNER_VERSION, "sandbox": sandbox_name,
            "predictions": {"file": str(source), "sha256": sha256_bytes(source.read_bytes())}}


def is_predictions_run(folder: Path) -> bool:
    import json

    settings = folder / "run.json"
    return settings.is_file() and json.loads(settings.read_text(encoding="utf-8")).get("kind") == PREDICTIONS_KIND


def keep_patch(store: Path, patch: str) -> str:
    """Keep ``patch`` in the run's store by its sha256 (the record's ``response_sha256``); returns the sha."""
    from bench.score.attempt import store_text
    from bench.store.canonical import sha256_bytes

    sha = sha256_bytes(patch.encode("utf-8"))
    store_text(store, sha, patch)
    return sha


def recompute_predictions(records: list, root: Path, store: Path, *, sandbox_name: str, workers: int = 2) -> list:
    """`bench verify` of a predictions run: score each record's kept patch again from scratch and compare the
    records field by field (the run's context aside, as for models). ``records``: ``UnitRecord``s."""
    import hashlib
    import json
    import tempfile

    from bench.score.recompute import RUN_CONTEXT, Check, first_difference, unit_name
    from bench.score.runner import RunPlan, run
    from bench.score.units import Unit, record_key
    from bench.spec.load import discover, load_all

    specs = {s.task_id: s for s in load_all(discover(root, retired=True))}
    checks, units = [], []
    for record in records:
        sha = record.response_sha256 or ""
        kept = store / sha[:2] / sha
        if record.task_id not in specs:
            checks.append(Check(unit_name(record), "different", "task no longer exists"))
        elif record.outcome.value == "infrastructure_error":
            checks.append(Check(unit_name(record), "different", "an infrastructure error, not a verdict"))
        elif not sha or not kept.is_file() or hashlib.sha256(kept.read_bytes()).hexdigest() != sha:
            checks.append(Check(unit_name(record), "mismatch", f"patch {sha[:12]} missing or altered in {store}"))
        else:
            units.append(Unit(specs[record.task_id], record.model, "attempt", "single", record.sample,
                              patch=kept.read_text(encoding="utf-8")))
    fresh = {}
    if units:
        with tempfile.TemporaryDirectory(prefix="bench-verify-") as scratch:
            plan = RunPlan(model_id="", specs=tuple(u.spec for u in units), out_dir=Path(scratch), root=root,
                           workers=workers, sandbox_name=sandbox_name, use_cache=False)
            fresh = {record_key(r): r for r in run(plan, units=units).records}

    def comparable(value: dict) -> dict:
        value = json.loads(json.dumps(value))
        for name in RUN_CONTEXT:
            value.get("integrity", {}).pop(name, None)
        return value

    by_key = {record.key: record for record in records}
    for unit in units:
        record = by_key[unit.key]
        if unit.key not in fresh:
            checks.append(Check(unit_name(record), "different", "unit not produced again"))
            continue
        where = first_difference(comparable(record.to_json()), comparable(fresh[unit.key]))
        checks.append(Check(unit_name(record), "identical" if where is None else "different",
                            f"first difference at {where}" if where else ""))
    return checks
