"""One attempt: prompt → model → edits → tests → verdict, with every failure mode mapped to an outcome."""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from bench.attempt import DEFAULT_EDIT_FORMAT
from bench.errors import EndpointError, EndpointTimeout
from bench.loop.records import Outcome, PromptContext, Usage
from bench.sandbox.cleanup import tree_scratch
from bench.model.protocol import Completion, Message, ModelParams, RequestContext
from bench.score.evaluate import Evaluation, evaluate, source_snapshot
from bench.score.task_env import PreparedTask


@dataclass(frozen=True)
class ModelCall:
    completion: Completion | None
    outcome: str  # "" when the model answered; "model_timeout" | "infrastructure_error" otherwise
    error: str
    seconds: float


def call_model(model, messages: tuple[Message, ...], params: ModelParams, context: RequestContext) -> ModelCall:
    started = time.monotonic()
    try:
        completion = model.complete(messages, params, context)
    except EndpointTimeout as exc:
        return ModelCall(None, "model_timeout", str(exc), time.monotonic() - started)
    except EndpointError as exc:
        return ModelCall(None, "infrastructure_error", str(exc), time.monotonic() - started)
    return ModelCall(completion, "", "", time.monotonic() - started)


def single_attempt(task: PreparedTask, model, params: ModelParams, *, sample: int, store_dir: Path | None,
                   cache=None, edit_format: str = DEFAULT_EDIT_FORMAT, context=None) -> tuple[dict, dict, dict]:
    """Run one attempt; returns (record fields by name, timings, detail). The detail (each turn's diff and
    feedback) goes to <out>/units/ for `bench view`, never into the record."""
    prompt = task_prompt(task, edit_format, context, cache)
    context = RequestContext(task_id=task.spec.task_id, sample=sample, condition="single",
                             source_files=source_snapshot(task.pristine, task.spec.source_files),
                             base_files=source_snapshot(task.pristine, task.spec.source_files))
    call = call_model(model, prompt.messages, params, context)
    fields = prompt_fields(prompt, edit_format)
    if store_dir is not None:
        store_text(store_dir, prompt.sha256, _messages_text(prompt.messages))
    if call.completion is None:
        fields.update(outcome=Outcome(call.outcome), resolved=False, reason=call.error, response_sha256="",
                      usage=Usage())
        return fields, {"model_seconds": call.seconds}, {"turns": [turn_detail(1, call.outcome, reason=call.error)]}
    fields.update(response_fields(call.completion, store_dir))
    started = time.monotonic()
    with tree_scratch(task.pristine, "bench-attempt-") as scratch:
        tree = Path(scratch) / "tree"
        shutil.copytree(task.pristine, tree, symlinks=True)
        evaluation = evaluate(task, tree, call.completion.text, cache=cache, fresh_copy=False,
                              edit_format=edit_format)
    fields.update(evaluation_fields(evaluation))
    timings = {"model_seconds": call.seconds, "latency_seconds": call.completion.latency_seconds,
               "verdict_seconds": time.monotonic() - started}
    return fields, timings, {"turns": [turn_detail(1, evaluation.outcome, evaluation)]}


def task_prompt(task: PreparedTask, edit_format: str, context, cache):
    """The task's first prompt; a context policy that localizes or retrieves reads the failing tests' output
    at base (one sandboxed run of the unedited tree, cached with the verdicts)."""
    from bench.attempt.prompt import build_prompt

    failures: tuple[str, ...] = ()
    if context is not None and context.policy != "files":
        failures = base_failure_texts(task, cache)
    return build_prompt(task.spec, task.pristine, spec_text=task.spec_text, edit_format=edit_format,
                        context=context, failure_texts=failures)


def prompt_fields(prompt, edit_format: str) -> dict:
    """What a record says of its first prompt: its hash and, when not the defaults, the edit format asked for
    and the context policy (records of default runs keep their bytes)."""
    return {"prompt_sha256": prompt.sha256,
            **({"edit_format": edit_format} if edit_format != DEFAULT_EDIT_FORMAT else {}),
            **({"context": PromptContext.from_json(prompt.context)} if prompt.context else {})}


def base_failure_texts(task: PreparedTask, cache=None) -> tuple[str, ...]:
    """What the failing tests print at base, a text per failing test (what a model could see by running them)."""
    from bench.score.evaluate import judge

    sources = source_snapshot(task.pristine, task.spec.source_files)
    verdict = judge(task, task.pristine, sources, cache=cache)
    return tuple(detail or message for _, _, message, detail in verdict.failures)


def response_fields(completion: Completion, store_dir: Path | None) -> dict:
    from bench.score.units import response_sha, usage_of

    sha = response_sha(completion)
    if store_dir is not None:
        store_text(store_dir, sha, completion.text)
    return {"response_sha256": sha, "usage": usage_of(completion), "served_model": completion.served_model}


def evaluation_fields(evaluation: Evaluation) -> dict:
    verdict = evaluation.verdict
    return {
        "outcome": Outcome(evaluation.outcome),
        "resolved": evaluation.resolved,
        **verification_fields(evaluation.verification),
        "reason": evaluation.reason,
        "edited_files": tuple(evaluation.edited_files),
        "candidate_digest": evaluation.candidate_digest,
        "still_failing": tuple(verdict.still_failing) if verdict else (),
        "pass_to_pass_broken": tuple(verdict.pass_to_pass_broken) if verdict else (),
        "results": tuple(tuple(r) for r in verdict.results) if verdict else (),
    }


def verification_fields(verification) -> dict:
    """The verified tier's fields of a record (bench.loop.records.UnitRecord); none when it did not run."""
    if verification is None:
        return {}
    return {"verified": verification.verified, "verification": verification.status,
            "divergence": verification.divergence or None}


def turn_detail(turn: int, outcome: str, evaluation: Evaluation | None = None, reason: str = "", *,
                diff: str = "") -> dict:
    """What `bench view` shows of one turn: the edit as applied (a unified diff of this turn's change) and the
    feedback a model gets with the full condition (failing tests and their messages); without an evaluation,
    ``diff`` and ``reason`` as given."""
    if evaluation is None:
        return {"turn": turn, "outcome": outcome, "diff": diff, "feedback": reason}
    return {"turn": turn, "outcome": outcome, "diff": evaluation.diff, "feedback": evaluation.feedback_full}


def store_text(store_dir: Path, sha: str, text: str) -> None:
    """Keep prompts and responses by hash so `bench verify` can check non-deterministic records."""
    from bench.store.action_cache import write_atomic

    path = store_dir / sha[:2] / sha
    if not path.exists():
        write_atomic(path, text.encode("utf-8"))


def _messages_text(messages: tuple[Message, ...]) -> str:
    import json

    return json.dumps([{"content": m.content, "role": m.role} for m in messages], sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)
