"""The resampling baseline: best-of-K independent draws without feedback, at the budget of a K-turn loop."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bench.attempt import DEFAULT_EDIT_FORMAT
from bench.loop import convergence
from bench.loop.records import TurnRecord, final_outcome
from bench.model.protocol import ModelParams
from bench.score.attempt import single_attempt
from bench.score.task_env import PreparedTask


def resample(task: PreparedTask, model, params: ModelParams, *, budget: int, sample: int,
             store_dir: Path | None, cache=None, edit_format: str = DEFAULT_EDIT_FORMAT,
             context=None) -> tuple[dict, dict, dict]:
    """K fresh attempts (draw index = sample * budget + i, and a distinct seed each); stop at the first solve.
    Returns (record fields by name, timings, detail for `bench view`)."""
    turns, details, seconds = [], [], 0.0
    for index in range(1, budget + 1):
        draw = sample * budget + (index - 1)
        draw_params = replace(params, seed=None if params.seed is None else params.seed + draw)
        fields, timing, detail = single_attempt(task, model, draw_params, sample=draw, store_dir=store_dir,
                                                cache=cache, edit_format=edit_format, context=context)
        carried = {key: fields[key] for key in ("edit_format", "context") if key in fields}  # as every draw's
        seconds += sum(v for v in timing.values() if isinstance(v, float))
        details += [dict(turn, turn=index) for turn in detail.get("turns", ())]
        turns.append(_draw_turn(index, fields))
        if turns[-1].resolved:
            carried.update({k: fields[k] for k in ("verified", "verification", "divergence") if k in fields})
            break
    first = next((turn.turn for turn in turns if turn.resolved), None)
    return {
        "budget": budget, "turns": tuple(turns), "first_solved_turn": first,
        "convergence_class": convergence.Outcome.CONVERGED if first else convergence.Outcome.EXHAUSTED,
        "class_reason": f"draw {first} solved" if first else f"none of {len(turns)} draws solved",
        "outcome": final_outcome("resample", turns, first), "resolved": first is not None,
        **carried,
    }, {"seconds": seconds}, {"turns": details}


def _draw_turn(index: int, fields: dict) -> TurnRecord:
    """A draw as a turn of the run: no signature (no feedback was given), tokens of the whole call."""
    usage = fields.get("usage")
    return TurnRecord(turn=index, outcome=fields["outcome"], resolved=fields.get("resolved", False),
                      verified=fields.get("verified"), reason=fields.get("reason", ""), candidate_digest=fields.get("candidate_digest", ""),
                      failing=fields.get("still_failing", ()), response_sha256=fields.get("response_sha256", ""),
                      worker_tokens=usage.total if usage else 0)
