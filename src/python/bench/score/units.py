"""What one scored unit is, and the parts of its record that every unit kind shares."""

from __future__ import annotations

from dataclasses import dataclass

from bench import __version__
from bench.model.protocol import Completion
from bench.spec.model import TaskSpec
from bench.store.canonical import sha256_bytes

RUNNER_VERSION = f"runner-v1/{__version__}"
CONDITIONS = ("full", "count-only")


@dataclass(frozen=True)
class Unit:
    spec: TaskSpec
    model_id: str
    kind: str  # "attempt" | "loop" | "resample"
    condition: str  # "single" for attempts; "full" | "count-only" for loops; "resample"
    sample: int
    patch: str | None = None  # an attempt given as a prediction's unified diff instead of a model's reply

    @property
    def key(self) -> tuple[str, str, str, int]:
        return (self.spec.task_id, self.model_id, self.condition, self.sample)


def record_key(record: dict) -> tuple[str, str, str, int]:
    return (record["task_id"], record["model"], record["condition"], record["sample"])


def base_record(unit: Unit, integrity: dict, benchmark: dict) -> dict:
    spec = unit.spec
    return {
        "kind": unit.kind,
        "task_id": spec.task_id,
        "task_kind": spec.kind,
        "library": spec.library,
        "difficulty": spec.difficulty,
        "model": unit.model_id,
        "condition": unit.condition,
        "sample": unit.sample,
        "runner_version": RUNNER_VERSION,
        "integrity": {**integrity, **benchmark},
    }


def usage_of(completion: Completion | None) -> dict:
    if completion is None:
        return {"prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0}
    return {"prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens,
            "reasoning_tokens": completion.reasoning_tokens}


def response_sha(completion: Completion | None) -> str:
    return sha256_bytes(completion.text.encode("utf-8")) if completion is not None else ""
