"""The repair loop: generate → verify → feed back → repair, for one task, one condition, one sample.

The conversation is kept across turns and edits are cumulative: each turn's edits apply to the tree as the
previous turn left it (an invalid edit leaves it unchanged). After a failed turn the harness feeds back either
the failing tests and their error text (``full``) or only how many fail (``count-only``), as
docs/ARCHITECTURE.md §2 "What a model is told" lays out per outcome (bench.score.feedback). An optional
controller model reads each failed attempt and returns guidance — never code — which is added to the feedback.
"""

from __future__ import annotations

import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from bench.attempt import DEFAULT_EDIT_FORMAT
from bench.attempt.prompt import feedback_message
from bench.loop.convergence import Trajectory, Turn, classify
from bench.loop.records import Outcome, TurnRecord, final_outcome
from bench.model.protocol import Message, ModelParams, RequestContext
from bench.sandbox.cleanup import tree_scratch
from bench.score.attempt import (call_model, prompt_fields, response_fields, store_text, task_prompt, turn_detail,
                                 verification_fields)
from bench.score.evaluate import evaluate, source_snapshot
from bench.score.feedback import divergence_feedback
from bench.score.task_env import PreparedTask

CONTROLLER_SYSTEM = (
    "You supervise a programmer who is fixing a bug. You see their last edit and the test results. Reply with "
    "at most five sentences of guidance about what is wrong and where to look. Never write code."
)
_CODE = re.compile(r"```.*?```|<<<<<<<.*?>>>>>>>[^\n]*", re.S)


@dataclass(frozen=True)
class LoopConfig:
    budget: int
    condition: str  # "full" | "count-only"
    controller: object | None = None  # a Model, or None
    controller_stateful: bool = False
    edit_format: str = DEFAULT_EDIT_FORMAT  # how the model is asked to answer (bench.attempt.formats)
    context: object = None  # bench.attempt.context.ContextSettings; None: the editable files whole
    # A resolved turn the verified tier finds diverging is fed back and the loop goes on (bench score
    # --feed-divergences); the unit is still resolved from its first resolved turn.
    feed_divergences: bool = False


def run_loop(task: PreparedTask, model, params: ModelParams, config: LoopConfig, *, sample: int,
             store_dir: Path | None, cache=None) -> tuple[dict, dict, dict]:
    """Run one trajectory; returns (record fields by name, timings, detail for `bench view`)."""
    spec = task.spec
    prompt = task_prompt(task, config.edit_format, config.context, cache)
    if store_dir is not None:
        from bench.score.attempt import _messages_text

        store_text(store_dir, prompt.sha256, _messages_text(prompt.messages))
    base_files = source_snapshot(task.pristine, spec.source_files)
    messages = list(prompt.messages)
    controller_log: list[Message] = [Message("system", CONTROLLER_SYSTEM)]
    turns: list[Turn] = []
    records: list[TurnRecord] = []
    timings = {"model_seconds": 0.0, "verdict_seconds": 0.0}
    details: list[dict] = []  # each turn's diff and feedback, for bench view (never in the record)
    feedback, final_verification = "", None
    with tree_scratch(task.pristine, "bench-loop-") as scratch:
        tree = Path(scratch) / "tree"
        shutil.copytree(task.pristine, tree, symlinks=True)
        for index in range(1, config.budget + 1):
            context = RequestContext(task_id=spec.task_id, turn=index, sample=sample, condition=config.condition,
                                     source_files=source_snapshot(tree, spec.source_files), feedback=feedback,
                                     base_files=base_files)
            call = call_model(model, tuple(messages), params, context)
            timings["model_seconds"] += call.seconds
            if call.completion is None:
                records.append(TurnRecord(turn=index, outcome=Outcome(call.outcome), resolved=False,
                                          reason=call.error))
                turns.append(Turn(index, "", "", False, True))
                details.append(turn_detail(index, call.outcome, reason=call.error))
                if call.outcome == "infrastructure_error":
                    break
                continue
            started = time.monotonic()
            evaluation = evaluate(task, tree, call.completion.text, cache=cache, edit_format=config.edit_format)
            timings["verdict_seconds"] += time.monotonic() - started
            # Converged means resolved: a turn that passes its targets but breaks a guard test is still failing.
            turn = Turn(index, evaluation.candidate_digest, evaluation.signature, evaluation.resolved,
                        evaluation.compiles)
            turns.append(turn)
            details.append(turn_detail(index, evaluation.outcome, evaluation))
            response = response_fields(call.completion, store_dir)
            feedback = evaluation.feedback_full if config.condition == "full" else evaluation.feedback_count
            diverged = evaluation.verification is not None and evaluation.verification.status == "diverged"
            go_on = config.feed_divergences and diverged and index < config.budget
            if go_on:
                feedback = divergence_feedback(evaluation.verification, config.condition)
            guidance, controller_tokens = "", 0
            if not turn.solved and config.controller is not None and index < config.budget:
                guidance, controller_tokens = _guidance(config, controller_log, call.completion.text, feedback,
                                                        params, spec.task_id, index, sample)
            usage = response["usage"]
            records.append(TurnRecord(
                turn=index, outcome=Outcome(evaluation.outcome), resolved=evaluation.resolved,
                verified=evaluation.verified, reason=evaluation.reason, signature=evaluation.signature,
                candidate_digest=evaluation.candidate_digest, compiles=evaluation.compiles,
                failing=tuple(evaluation.failing), response_sha256=response["response_sha256"],
                edited_files=tuple(evaluation.edited_files),
                worker_tokens=usage.prompt_tokens + usage.completion_tokens,
                controller_tokens=controller_tokens, guidance=guidance,
            ))
            if turn.solved:
                final_verification = evaluation.verification
                if not go_on:
                    break
            messages.append(Message("assistant", call.completion.text))
            text = feedback + (f"\n\nGuidance from a reviewer:\n{guidance}" if guidance else "")
            messages.append(feedback_message(text, current_files=source_snapshot(tree, spec.source_files),
                                             edit_format=config.edit_format, shown=prompt.shown, tree=tree))
    classification = classify(Trajectory(spec.task_id, config.condition, tuple(turns), config.budget))
    first = classification.first_solved_turn
    fields = {
        **prompt_fields(prompt, config.edit_format), "budget": config.budget, "turns": tuple(records),
        "convergence_class": classification.outcome, "class_reason": classification.reason,
        "first_solved_turn": first, "outcome": final_outcome("loop", records, first), "resolved": first is not None,
        **verification_fields(final_verification),
        **({"feed_divergences": True} if config.feed_divergences else {}),
    }
    return fields, timings, {"turns": details}


def _guidance(config: LoopConfig, log: list[Message], reply: str, feedback: str, params, task_id, index, sample):
    """Ask the controller for guidance on the failed attempt; code in its answer is removed."""
    observation = Message("user", f"Their edit:\n{reply}\n\nTest results:\n{feedback}")
    conversation = (*log, observation) if config.controller_stateful else (log[0], observation)
    context = RequestContext(task_id=task_id, turn=index, sample=sample, condition="controller")
    call = call_model(config.controller, tuple(conversation), params, context)
    if call.completion is None:
        return "", 0
    guidance = _CODE.sub("[code removed]", call.completion.text).strip()[:1500]
    if config.controller_stateful:
        log.extend([observation, Message("assistant", guidance)])
    usage = call.completion
    return guidance, usage.prompt_tokens + usage.completion_tokens
