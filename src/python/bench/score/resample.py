"""The resampling baseline: best-of-K independent draws without feedback, at the budget of a K-turn loop."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bench.attempt import DEFAULT_EDIT_FORMAT
from bench.model.protocol import ModelParams
from bench.score.attempt import DETAIL, single_attempt
from bench.score.task_env import PreparedTask


def resample(task: PreparedTask, model, params: ModelParams, *, budget: int, sample: int,
             store_dir: Path | None, cache=None, edit_format: str = DEFAULT_EDIT_FORMAT,
             context=None) -> tuple[dict, dict]:
    """K fresh attempts (draw index = sample * budget + i, and a distinct seed each); stop at the first solve."""
    turns, details, seconds = [], [], 0.0
    for index in range(1, budget + 1):
        draw = sample * budget + (index - 1)
        draw_params = replace(params, seed=None if params.seed is None else params.seed + draw)
        fields, timing = single_attempt(task, model, draw_params, sample=draw, store_dir=store_dir, cache=cache,
                                        edit_format=edit_format, context=context)
        carried = {key: fields[key] for key in ("edit_format", "context") if key in fields}  # as every draw's
        seconds += sum(v for v in timing.values() if isinstance(v, float))
        details += [dict(turn, turn=index) for turn in fields.pop(DETAIL, {}).get("turns", ())]
        turns.append({
            "turn": index, "outcome": fields["outcome"], "resolved": fields.get("resolved", False),
            "reason": fields.get("reason", ""),
            "signature": "", "candidate_digest": fields.get("candidate_digest", ""), "compiles": True,
            "failing": fields.get("still_failing", []), "response_sha256": fields.get("response_sha256", ""),
            "worker_tokens": sum(fields.get("usage", {}).values()) if fields.get("usage") else 0,
            "controller_tokens": 0,
        })
        if fields.get("resolved"):
            break
    first = next((t["turn"] for t in turns if t["resolved"]), None)
    return {
        "budget": budget, "turns": turns, "first_solved_turn": first,
        "class": "CONVERGED" if first else "EXHAUSTED",
        "class_reason": f"draw {first} solved" if first else f"none of {len(turns)} draws solved",
        "outcome": "solved" if first else turns[-1]["outcome"],
        "resolved": first is not None, DETAIL: {"turns": details},
        **carried,
    }, {"seconds": seconds}
