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
    from bench.sandbox.cleanup import scratch_dir
    from bench.score.attempt import turn_detail, verification_fields
    from bench.score.evaluate import full_feedback, judge, source_snapshot, verify_resolved
    from bench.store.canonical import sha256_bytes

    fields: dict = {"response_sha256": sha256_bytes(patch.encode())}
    started = time.monotonic()
    with scratch_dir(prefix="bench-pred-") as attempt:
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
